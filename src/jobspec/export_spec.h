#pragma once
// --export=ALL | NONE | [ALL,]VAR[=value][,VAR...]
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::jobspec {

struct ExportVar {
  std::string name;
  std::optional<std::string> value;  // "VAR=value"; without it the submitter's value is taken
  bool operator==(const ExportVar&) const = default;
};

struct ExportSpec {
  // ALL: the whole submitting environment; NONE or a bare list: only the named variables
  // (Slurm still adds its own SLURM_* variables).
  bool propagate_all = true;
  std::vector<ExportVar> vars;
  std::string text;  // as written: the job's SLURM_EXPORT_ENV, as the reference's ("NONE,FOO=bar")
  bool operator==(const ExportSpec&) const = default;
};

Result<ExportSpec> parseExportSpec(std::string_view text);

}  // namespace drover::jobspec
