#pragma once
// Input environment variables (man sbatch/srun/salloc "INPUT ENVIRONMENT VARIABLES"): each
// variable stands for one option and is applied between #SBATCH directives and the command
// line in precedence.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "jobspec/cli_error.h"
#include "jobspec/options.h"

namespace drover::jobspec {

using EnvMap = std::map<std::string, std::string>;

struct EnvOption {
  std::string_view variable;     // "SBATCH_TIMELIMIT"
  std::string_view long_name;    // "time"
  unsigned tools = 0;            // bit set of Tool
};

std::span<const EnvOption> inputEnvTable();

// Applies every documented input variable set in `env` for `pc.tool`, in table order (later
// rows win, so e.g. SRUN_EXPORT_ENV overrides SLURM_EXPORT_ENV). Flag options are turned on by
// an empty value, "yes" or a non-zero number, as the man pages say; other values leave them off.
std::optional<CliError> applyInputEnvironment(ParsedCommand& pc, const EnvMap& env,
                                              std::int64_t now);

// srun's "--distribution=plane" without "=N" takes the size from SLURM_DIST_PLANESIZE; call
// after every source is applied.
std::optional<CliError> applyPlaneSize(ParsedCommand& pc, const EnvMap& env);

}  // namespace drover::jobspec
