#pragma once
// Batch script checks and #SBATCH directive extraction.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobspec/cli_error.h"

namespace drover::jobspec {

struct Directive {
  std::size_t line = 0;              // 1-based line number in the script
  std::vector<std::string> tokens;   // the line's words, quotes removed
};

// Slurm's script checks: not empty, not only whitespace, no DOS line breaks, starts with "#!".
// Returns the stderr text and exit code Slurm gives (golden 018/019).
std::optional<CliError> checkBatchScript(std::string_view script);

// "#SBATCH" lines (at the start of a line) up to the first line that is neither blank nor a
// comment. Words are split on whitespace; single and double quotes group; an unquoted word
// starting with '#' starts a comment. `magic` lets salloc/PBS-style prefixes reuse this.
std::vector<Directive> extractDirectives(std::string_view script,
                                         std::string_view magic = "#SBATCH");

// The script sbatch builds for --wrap.
std::string wrapScript(std::string_view command);

}  // namespace drover::jobspec
