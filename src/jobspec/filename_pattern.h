#pragma once
// Expansion of output/error/input file name patterns (man sbatch "filename pattern").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace drover::jobspec {

// Slurm prints this for %a of a job that is not an array task (NO_VAL - 1).
inline constexpr std::uint32_t kNoArrayTask = 4294967294u;
// Zero padding is capped as Slurm caps it.
inline constexpr int kMaxPatternPad = 10;

struct PatternContext {
  std::uint32_t job_id = 0;
  std::optional<std::uint32_t> array_job_id;   // %A; job_id when unset
  std::optional<std::uint32_t> array_task_id;  // %a; kNoArrayTask when unset
  std::string user;                            // %u
  std::string job_name;                        // %x
  std::string node;                            // %N (short host name)
  std::uint32_t node_index = 0;                // %n: node rank within the job/step
  std::optional<std::uint32_t> step_id;        // %s, and the ".step" of %J
  std::uint32_t task_id = 0;                   // %t: task rank
};

// "%j %J %x %A %a %u %N %n %t %s %%", zero padding "%4a" (or "%.4a"); a pattern containing
// "\\" is taken literally (with the backslashes removed), as Slurm does. Unknown "%c" sequences
// are kept as written.
std::string expandFilenamePattern(std::string_view pattern, const PatternContext& ctx);

}  // namespace drover::jobspec
