#pragma once
// The whole request of one sbatch / srun / salloc invocation, with Slurm's precedence:
// command line > input environment variables > #SBATCH directives.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobspec/cli_error.h"
#include "jobspec/command_line.h"
#include "jobspec/input_env.h"
#include "jobspec/job_spec.h"

namespace drover::jobspec {

struct BatchRequest {
  JobSpec spec;
  std::string script;                    // the script text (built for --wrap)
  std::optional<std::string> script_path;  // as given on the command line; none for stdin/--wrap
  std::vector<std::string> script_args;
};

// The CLI first calls parseCommandLine (to see --help/--version and which script to read),
// then this with the script text (from the file or stdin; ignored with --wrap).
CliResult<BatchRequest> buildBatchRequest(const ParsedCommand& command_line, const EnvMap& env,
                                          std::optional<std::string_view> script_text,
                                          std::int64_t now);

// One-call form: argv without argv[0].
CliResult<BatchRequest> buildBatchRequest(const std::vector<std::string>& args,
                                          const EnvMap& env,
                                          std::optional<std::string_view> script_text,
                                          std::int64_t now);

struct StepRequest {
  JobSpec spec;
  std::vector<std::string> command;  // srun: executable and args; salloc: may be empty
};

// srun: SLURM_*/SRUN_* input variables under the command line; a command is required.
CliResult<StepRequest> buildStepRequest(const std::vector<std::string>& args, const EnvMap& env,
                                        std::int64_t now);

// salloc: SALLOC_* input variables under the command line; the command is optional.
CliResult<StepRequest> buildAllocRequest(const std::vector<std::string>& args, const EnvMap& env,
                                         std::int64_t now);

// The --gpu-bind srun's step binds its tasks by: the one given, else --ntasks-per-gpu=K's
// single:K (srun(1)). Only a given one is the job's (TresBind, SLURM_GPU_BIND), as the
// reference's.
std::optional<std::string> stepGpuBind(const JobSpec& spec);

// Fewer tasks than nodes (-N 3 -n 2; for srun also -n 1 inside a 2-node job, whose
// SLURM_NNODES it reads as -N; without -N, -w's distinct hosts count as -N, and the list keeps
// its first hosts, as the reference's `-n 1 -w node[01-02]` ran on node01): as Slurm's sbatch,
// salloc and srun, the node count becomes the task count and the warning to print is returned
// ("sbatch: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n"); nothing when
// the tasks fill the nodes.
std::optional<std::string> fitNodesToTasks(Tool tool, JobSpec& spec);

// `-N` with `-w` of K distinct hosts, as Slurm's clients took them: a least below K becomes K
// (`-N 1-3 -w node[1-2]` asks 2-3 nodes); a most below K: sbatch and salloc refuse,
// `invalid number of nodes (-N K-MOST)`, srun keeps the list's first MOST hosts and says so,
// as the reference's did. Without -N, or with a file of hosts (a `/` in -w), nothing changes.
struct NodelistFit {
  bool refused = false;
  std::string message;   // the error to print (refused, or srun's notice); empty for none
};
NodelistFit fitNodesToNodelist(Tool tool, JobSpec& spec);

}  // namespace drover::jobspec
