#pragma once
// --dependency: "afterok:12:13", "after:5+10", "afterany:7_3?afternotok:9", "singleton".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::jobspec {

enum class DependencyType { After, AfterAny, AfterOk, AfterNotOk, AfterCorr, AfterBurstBuffer, Expand, Singleton };

// Slurm's spelling ("afterok", ...).
std::string_view dependencyTypeName(DependencyType type);

struct DependencyItem {
  DependencyType type = DependencyType::AfterAny;
  std::uint32_t job_id = 0;                 // 0 for singleton
  std::optional<std::uint32_t> task_id;     // "123_4"
  bool all_tasks = false;                   // "123_*"
  std::uint32_t delay_minutes = 0;          // "after:123+10" (after only)
  bool operator==(const DependencyItem&) const = default;
};

struct DependencySpec {
  std::vector<DependencyItem> items;
  bool any = false;  // joined with '?' (OR) instead of ',' (AND)
  std::string text;
  bool operator==(const DependencySpec&) const = default;
};

// "" is rejected; mixing ',' and '?' is rejected as Slurm does.
Result<DependencySpec> parseDependencySpec(std::string_view text);

// Canonical text, as scontrol shows it: "afterok:12_*,afterany:13".
std::string formatDependency(const DependencySpec& spec);

}  // namespace drover::jobspec
