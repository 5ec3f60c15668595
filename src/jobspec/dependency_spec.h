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
  // Sticky once set: the target ended in a way that can never meet this item. sbatch(1): a
  // dependency that failed stays failed, even if the target is requeued later (or purged after
  // MinJobAge). Kept in the job's stored text as Slurm shows it: "afterok:12(failed)".
  bool failed = false;
  bool operator==(const DependencyItem&) const = default;
};

struct DependencySpec {
  std::vector<DependencyItem> items;
  bool any = false;  // joined with '?' (OR) instead of ',' (AND)
  std::string text;
  bool operator==(const DependencySpec&) const = default;
};

// "" is rejected; mixing ',' and '?' is rejected as Slurm does. A job id may carry the suffix
// "(failed)" (the stored form of a failed item, as scontrol shows it).
Result<DependencySpec> parseDependencySpec(std::string_view text);

// Canonical text, as scontrol shows it: "afterok:12_*,afterany:13", failed items with
// "(failed)" so that the state survives a restart.
std::string formatDependency(const DependencySpec& spec);

}  // namespace drover::jobspec
