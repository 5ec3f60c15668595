#include "jobspec/build_spec.h"

#include <unistd.h>

#include <algorithm>
#include <unordered_set>

#include "drover/hostlist.h"
#include "jobspec/script_directives.h"

namespace drover::jobspec {

namespace {

// "<tool>: error: LINE" for each line, as Slurm prints a refused request.
CliError gresError(Tool tool, const std::string& first) {
  const std::string prog(toolName(tool));
  return CliError{prog + ": error: " + first + "\n" + prog +
                      ": error: Invalid generic resource (gres) specification",
                  kExitError};
}

// GPUs asked for on each node (--gpus-per-node, else --gres=gpu:N); 0 = none.
std::uint64_t gpusPerNode(const JobSpec& spec) {
  if (spec.gpus_per_node) return spec.gpus_per_node->count;
  for (const auto& g : spec.gres)
    if (g.name == "gpu") return g.count;
  return 0;
}

// The GPUs the request names for the whole job (0: none): --gpus, or per node times the
// minimum node count.
std::uint64_t requestedGpus(const JobSpec& spec) {
  if (spec.gpus) return spec.gpus->count;
  return gpusPerNode(spec) * (spec.nodes ? spec.nodes->min : 1);
}

// --ntasks-per-gpu=K, as srun(1) and the reference Slurm: with GPUs asked for, K tasks for each
// (a -n given is replaced); else with -n, n/K GPUs (n must be a multiple of K). The binding it
// implies is stepGpuBind's.
std::optional<CliError> applyTasksPerGpu(Tool tool, JobSpec& spec) {
  if (!spec.ntasks_per_gpu) return std::nullopt;
  const std::uint32_t per_gpu = *spec.ntasks_per_gpu;
  if (spec.ntasks_per_node) {
    return CliError{std::string(toolName(tool)) +
                        ": fatal: --ntasks-per-node is mutually exclusive with --ntasks-per-gpu "
                        "and SLURM_NTASKS_PER_GPU",
                    kExitError};
  }
  if (const std::uint64_t gpus = requestedGpus(spec); gpus > 0) {
    if (gpus * per_gpu > UINT32_MAX) return gresError(tool, "--ntasks-per-gpu: too many tasks");
    spec.ntasks = static_cast<std::uint32_t>(gpus * per_gpu);
  } else if (spec.ntasks) {
    if (*spec.ntasks % per_gpu != 0) {
      return gresError(tool, "Failed to validate job spec, -n/--ntasks has to be a multiple of "
                             "--ntasks-per-gpu.");
    }
    spec.gpus = GpuCount{std::nullopt, *spec.ntasks / per_gpu};
    spec.gpus_implied = true;
  } else {
    return gresError(tool, "gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU "
                           "specification or a node/ntask specification");
  }
  return std::nullopt;
}

// The GPU requests the reference refuses before anything is sent: per-task GPUs with no task
// count to multiply them by, and memory per GPU with no GPU.
std::optional<CliError> checkGpuRequests(Tool tool, const JobSpec& spec) {
  if (spec.gpus_per_task && !spec.ntasks && !spec.gpus) {
    return gresError(tool, "Failed to validate job spec. --gpus-per-task used without either "
                           "--gpus or -n/--ntasks is not allowed.");
  }
  // --gpus with GPUs per node: a whole number of nodes, within -N when given.
  const std::uint64_t per_node = gpusPerNode(spec);
  if (spec.gpus && spec.gpus->count > 0 && per_node > 0) {
    if (spec.gpus->count % per_node != 0) {
      return gresError(tool, "Failed to validate job spec, --gpus is not multiple of "
                             "--gres=gpu/--gpus-per-node");
    }
    const std::uint64_t needed = spec.gpus->count / per_node;
    if (spec.nodes) {
      const std::uint64_t max = spec.nodes->max > 0 ? spec.nodes->max : spec.nodes->min;
      if (needed < spec.nodes->min || needed > max) {
        return gresError(tool, "Failed to validate job spec. Based on --gpu and --gres=gpu/--gpus-per-node "
                               "required nodes (" + std::to_string(needed) + ") doesn't fall between "
                               "min_nodes (" + std::to_string(spec.nodes->min) + ") and max_nodes (" +
                               std::to_string(max) + ") boundaries.");
      }
    }
  }
  if (spec.mem_per_gpu_mb && requestedGpus(spec) == 0 && !spec.gpus_per_task && !spec.gpus_per_socket) {
    return gresError(tool, "Requested mem_per_tres=gres:gpu:" + std::to_string(*spec.mem_per_gpu_mb) +
                               " but did not request any GPU.");
  }
  return std::nullopt;
}

// --uid and --gid are root's, as the reference refused them from a user (exit 255) however
// they were given (command line, directive, variable).
std::optional<CliError> checkRunAs(Tool tool, const JobSpec& spec) {
  if (::getuid() == 0) return std::nullopt;
  const char* option = spec.run_as_user ? "--uid" : spec.run_as_group ? "--gid" : nullptr;
  if (option == nullptr) return std::nullopt;
  return CliError{std::string(toolName(tool)) + ": error: " + option + " only permitted by root user",
                  kExitBadOption};
}

// Replays the command line last so that it wins over everything applied before it.
std::optional<CliError> replayCommandLine(ParsedCommand& pc, const ParsedCommand& command_line,
                                          std::int64_t now) {
  return applyArguments(pc, command_line.args, OptionSource::CommandLine, now, nullptr);
}

CliResult<StepRequest> buildInteractive(Tool tool, const std::vector<std::string>& args,
                                        const EnvMap& env, std::int64_t now) {
  auto cl = parseCommandLine(tool, args, now);
  if (!cl) return cl.error();
  ParsedCommand pc;
  pc.tool = tool;
  if (auto err = applyInputEnvironment(pc, env, now)) return *err;
  if (auto err = replayCommandLine(pc, *cl, now)) return *err;
  if (auto err = applyPlaneSize(pc, env)) return *err;
  // --mpi=list needs no command (srun prints the list and runs nothing).
  const bool mpi_list = pc.spec.mpi && *pc.spec.mpi == "list";
  if (tool == Tool::Srun && cl->positional.empty() && !cl->help && !cl->usage && !cl->version &&
      !mpi_list) {
    return CliError{"srun: fatal: No command given to execute.", kExitError};
  }
  if (auto err = applyTasksPerGpu(tool, pc.spec)) return *err;
  // srun inside an allocation takes its task count from the job; only a new job is checked.
  if (tool == Tool::Salloc) {
    if (auto err = checkRunAs(tool, pc.spec)) return *err;
    if (auto err = checkGpuRequests(tool, pc.spec)) return *err;
  }
  return StepRequest{std::move(pc.spec), cl->positional};
}

}  // namespace

CliResult<BatchRequest> buildBatchRequest(const ParsedCommand& command_line, const EnvMap& env,
                                          std::optional<std::string_view> script_text,
                                          std::int64_t now) {
  BatchRequest req;
  ParsedCommand pc;
  pc.tool = Tool::Sbatch;
  std::vector<std::string> positional = command_line.positional;
  if (command_line.spec.wrap) {
    if (!positional.empty()) {
      return CliError{"sbatch: error: Script arguments not permitted with --wrap option", kExitError};
    }
    req.script = wrapScript(*command_line.spec.wrap);
  } else {
    if (!positional.empty()) {
      req.script_path = positional.front();
      req.script_args.assign(positional.begin() + 1, positional.end());
    }
    std::string_view text = script_text.value_or("");
    if (auto err = checkBatchScript(text)) return *err;
    req.script = std::string(text);
    for (const auto& d : extractDirectives(text)) {
      std::vector<std::string> ignored;  // words after a non-option end the line, as in Slurm
      if (auto err = applyArguments(pc, d.tokens, OptionSource::Directive, now, &ignored)) {
        return *err;
      }
    }
  }
  if (auto err = applyInputEnvironment(pc, env, now)) return *err;
  if (auto err = replayCommandLine(pc, command_line, now)) return *err;
  if (auto err = applyTasksPerGpu(Tool::Sbatch, pc.spec)) return *err;
  if (auto err = checkRunAs(Tool::Sbatch, pc.spec)) return *err;
  if (auto err = checkGpuRequests(Tool::Sbatch, pc.spec)) return *err;
  req.spec = std::move(pc.spec);
  return req;
}

CliResult<BatchRequest> buildBatchRequest(const std::vector<std::string>& args,
                                          const EnvMap& env,
                                          std::optional<std::string_view> script_text,
                                          std::int64_t now) {
  auto cl = parseCommandLine(Tool::Sbatch, args, now);
  if (!cl) return cl.error();
  return buildBatchRequest(*cl, env, script_text, now);
}

CliResult<StepRequest> buildStepRequest(const std::vector<std::string>& args, const EnvMap& env,
                                        std::int64_t now) {
  return buildInteractive(Tool::Srun, args, env, now);
}

CliResult<StepRequest> buildAllocRequest(const std::vector<std::string>& args, const EnvMap& env,
                                         std::int64_t now) {
  return buildInteractive(Tool::Salloc, args, env, now);
}

namespace {

// -w's hosts, each once, in their order; nullopt for a file of hosts (a `/`) or a list the
// option's own check refuses.
std::optional<std::vector<std::string>> distinctListedHosts(const JobSpec& spec) {
  if (!spec.nodelist || spec.nodelist->find('/') != std::string::npos) return std::nullopt;
  auto hosts = hostlist::expand(*spec.nodelist);
  if (!hosts) return std::nullopt;
  std::vector<std::string> distinct;
  std::unordered_set<std::string> seen;
  for (auto& h : *hosts)
    if (seen.insert(h).second) distinct.push_back(std::move(h));
  return distinct;
}

}  // namespace

std::optional<std::string> stepGpuBind(const JobSpec& spec) {
  if (spec.gpu_bind || !spec.ntasks_per_gpu) return spec.gpu_bind;
  return "single:" + std::to_string(*spec.ntasks_per_gpu);
}

std::optional<std::string> fitNodesToTasks(Tool tool, JobSpec& spec) {
  if (!spec.ntasks || *spec.ntasks == 0) return std::nullopt;
  std::uint32_t nodes = spec.nodes ? spec.nodes->min : 0;
  std::optional<std::vector<std::string>> listed;
  if (!spec.nodes && (listed = distinctListedHosts(spec)))
    nodes = static_cast<std::uint32_t>(listed->size());
  if (*spec.ntasks >= nodes) return std::nullopt;
  std::string warning = std::string(toolName(tool)) + ": Warning: can't run " +
                        std::to_string(*spec.ntasks) + " processes on " + std::to_string(nodes) +
                        " nodes, setting nnodes to " + std::to_string(*spec.ntasks) + "\n";
  if (listed) {
    listed->resize(*spec.ntasks);
    spec.nodelist = hostlist::compress(*listed);
    spec.nodes = NodeRange{*spec.ntasks, *spec.ntasks};
    return warning;
  }
  spec.nodes->min = *spec.ntasks;
  if (spec.nodes->max > spec.nodes->min) spec.nodes->max = spec.nodes->min;
  return warning;
}

NodelistFit fitNodesToNodelist(Tool tool, JobSpec& spec) {
  // Without -N the controller counts the listed hosts as the job's node count
  // (src/jobs/request.cpp), as Slurm's showed it from the submission on.
  if (!spec.nodes) return {};
  auto hosts = distinctListedHosts(spec);
  if (!hosts) return {};
  std::vector<std::string>& distinct = *hosts;
  const auto count = static_cast<std::uint32_t>(distinct.size());
  NodeRange& range = *spec.nodes;
  const std::uint32_t most = range.max != 0 ? range.max : range.min;
  if (most != 0 && most < count) {
    if (tool != Tool::Srun) {
      return {true, "invalid number of nodes (-N " + std::to_string(count) + "-" +
                        std::to_string(most) + ")"};
    }
    distinct.resize(most);
    spec.nodelist = hostlist::compress(distinct);
    return {false, "Required nodelist includes more nodes than permitted by max-node count (" +
                       std::to_string(count) + " > " + std::to_string(most) +
                       "). Eliminating nodes from the nodelist."};
  }
  range.min = std::max(range.min, count);  // -N 1-3 with two nodes listed: 2-3
  return {};
}

}  // namespace drover::jobspec
