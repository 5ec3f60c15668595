#pragma once
// srun --bcast[=dest_path]: before the step is created, srun copies its executable to the
// job's nodes (cli/file_broadcast.h, the copies replacing existing files as Slurm's srun does)
// and the step runs the copies. Into a directory (dest_path ending in '/', or no dest_path:
// --chdir or the current directory) each node's copy is slurm_bcast_<job>.<step>_<node>: the
// controller reserves the step id with the first block and names each node's argv[0]
// (StepSpec.reserved_step_id, bcast_dir).
#include <optional>
#include <string>

#include "cli/controller_client.h"
#include "drover/config.h"
#include "drover/result.h"
#include "jobspec/job_spec.h"

namespace drover::cli {

// Where the copy goes: `value` (--bcast's argument, "" = none) made absolute from `cwd`, else
// `dest_dir` (BcastParameters' DestDir, "" = none), --chdir's directory (from `cwd` when
// relative) or `cwd`, with a '/' at the end (man srun's order).
std::string bcastDestination(const std::string& value, const std::optional<std::string>& chdir,
                             const std::string& cwd, const std::string& dest_dir = "");

// The file srun's command names: a name with a '/' from `cwd`, else the first executable
// regular file of that name in `path_env`'s directories (an empty entry is `cwd`).
std::optional<std::string> findExecutable(const std::string& name, const std::string& path_env,
                                          const std::string& cwd);

// Sends the executable and points `spec` at the copies; options not given take `defaults`
// (cluster.conf's bcast section). Errors are lines for printError.
Status broadcastExecutable(ControllerClient& client, const jobspec::JobSpec& options,
                           const config::BcastConfig& defaults, v1::StepSpec& spec);

}  // namespace drover::cli
