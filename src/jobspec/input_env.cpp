#include "jobspec/input_env.h"

#include "common/ascii_case.h"
#include "jobspec/command_line.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

constexpr unsigned B = static_cast<unsigned>(Tool::Sbatch);
constexpr unsigned R = static_cast<unsigned>(Tool::Srun);
constexpr unsigned A = static_cast<unsigned>(Tool::Salloc);

const EnvOption kEnv[] = {
    // sbatch
    {"SBATCH_ACCOUNT", "account", B},
    {"SBATCH_ACCTG_FREQ", "acctg-freq", B},
    {"SBATCH_ARRAY_INX", "array", B},
    {"SBATCH_BATCH", "batch", B},
    {"SLURM_CLUSTERS", "clusters", B | A},
    {"SBATCH_CLUSTERS", "clusters", B},
    {"SBATCH_CONSTRAINT", "constraint", B},
    {"SBATCH_CONTAINER", "container", B},
    {"SBATCH_CORE_SPEC", "core-spec", B},
    {"SBATCH_CPUS_PER_GPU", "cpus-per-gpu", B},
    {"SBATCH_DEBUG", "verbose", B},
    {"SBATCH_DELAY_BOOT", "delay-boot", B},
    {"SBATCH_DISTRIBUTION", "distribution", B},
    {"SBATCH_ERROR", "error", B},
    {"SBATCH_EXCLUSIVE", "exclusive", B},
    {"SBATCH_EXPORT", "export", B},
    {"SBATCH_GET_USER_ENV", "get-user-env", B},
    {"SBATCH_GPU_BIND", "gpu-bind", B},
    {"SBATCH_GPU_FREQ", "gpu-freq", B},
    {"SBATCH_GPUS", "gpus", B},
    {"SBATCH_GPUS_PER_NODE", "gpus-per-node", B},
    {"SBATCH_GPUS_PER_TASK", "gpus-per-task", B},
    {"SBATCH_GRES", "gres", B},
    {"SBATCH_GRES_FLAGS", "gres-flags", B},
    {"SLURM_HINT", "hint", B | A},
    {"SBATCH_HINT", "hint", B},
    {"SBATCH_IGNORE_PBS", "ignore-pbs", B},
    {"SBATCH_INPUT", "input", B},
    {"SBATCH_JOB_NAME", "job-name", B},
    {"SBATCH_MEM_BIND", "mem-bind", B},
    {"SBATCH_MEM_PER_CPU", "mem-per-cpu", B},
    {"SBATCH_MEM_PER_GPU", "mem-per-gpu", B},
    {"SBATCH_MEM_PER_NODE", "mem", B},
    {"SBATCH_NETWORK", "network", B},
    {"SBATCH_NO_KILL", "no-kill", B},
    {"SBATCH_NO_REQUEUE", "no-requeue", B},
    {"SBATCH_OPEN_MODE", "open-mode", B},
    {"SBATCH_OUTPUT", "output", B},
    {"SBATCH_OVERCOMMIT", "overcommit", B},
    {"SBATCH_PARTITION", "partition", B},
    {"SBATCH_POWER", "power", B},
    {"SBATCH_PROFILE", "profile", B},
    {"SBATCH_QOS", "qos", B},
    {"SBATCH_REQUEUE", "requeue", B},
    {"SBATCH_RESERVATION", "reservation", B},
    {"SBATCH_SIGNAL", "signal", B},
    {"SBATCH_SPREAD_JOB", "spread-job", B},
    {"SBATCH_THREAD_SPEC", "thread-spec", B},
    {"SBATCH_THREADS_PER_CORE", "threads-per-core", B},
    {"SBATCH_TIMELIMIT", "time", B},
    {"SBATCH_USE_MIN_NODES", "use-min-nodes", B},
    {"SBATCH_WAIT", "wait", B},
    {"SBATCH_WAIT_ALL_NODES", "wait-all-nodes", B},
    {"SBATCH_WCKEY", "wckey", B},
    // salloc
    {"SALLOC_ACCOUNT", "account", A},
    {"SALLOC_ACCTG_FREQ", "acctg-freq", A},
    {"SALLOC_BELL", "bell", A},
    {"SALLOC_BURST_BUFFER", "bb", A},
    {"SALLOC_CLUSTERS", "clusters", A},
    {"SALLOC_CONSTRAINT", "constraint", A},
    {"SALLOC_CONTAINER", "container", A},
    {"SALLOC_CORE_SPEC", "core-spec", A},
    {"SALLOC_CPUS_PER_GPU", "cpus-per-gpu", A},
    {"SALLOC_DEBUG", "verbose", A},
    {"SALLOC_DELAY_BOOT", "delay-boot", A},
    {"SALLOC_EXCLUSIVE", "exclusive", A},
    {"SALLOC_GPU_BIND", "gpu-bind", A},
    {"SALLOC_GPU_FREQ", "gpu-freq", A},
    {"SALLOC_GPUS", "gpus", A},
    {"SALLOC_GPUS_PER_NODE", "gpus-per-node", A},
    {"SALLOC_GPUS_PER_TASK", "gpus-per-task", A},
    {"SALLOC_GRES", "gres", A},
    {"SALLOC_GRES_FLAGS", "gres-flags", A},
    {"SALLOC_HINT", "hint", A},
    {"SALLOC_IMMEDIATE", "immediate", A},
    {"SALLOC_KILL_CMD", "kill-command", A},
    {"SALLOC_MEM_BIND", "mem-bind", A},
    {"SALLOC_MEM_PER_CPU", "mem-per-cpu", A},
    {"SALLOC_MEM_PER_GPU", "mem-per-gpu", A},
    {"SALLOC_MEM_PER_NODE", "mem", A},
    {"SALLOC_NETWORK", "network", A},
    {"SALLOC_NO_BELL", "no-bell", A},
    {"SALLOC_NO_KILL", "no-kill", A},
    {"SALLOC_OVERCOMMIT", "overcommit", A},
    {"SALLOC_PARTITION", "partition", A},
    {"SALLOC_POWER", "power", A},
    {"SALLOC_PROFILE", "profile", A},
    {"SALLOC_QOS", "qos", A},
    {"SALLOC_RESERVATION", "reservation", A},
    {"SALLOC_SIGNAL", "signal", A},
    {"SALLOC_SPREAD_JOB", "spread-job", A},
    {"SALLOC_THREAD_SPEC", "thread-spec", A},
    {"SALLOC_THREADS_PER_CORE", "threads-per-core", A},
    {"SALLOC_TIMELIMIT", "time", A},
    {"SALLOC_USE_MIN_NODES", "use-min-nodes", A},
    {"SALLOC_WAIT_ALL_NODES", "wait-all-nodes", A},
    {"SALLOC_WCKEY", "wckey", A},
    // srun (inside an allocation these carry the job's shape into its steps)
    {"SLURM_ACCOUNT", "account", R},
    {"SLURM_ACCTG_FREQ", "acctg-freq", R},
    {"SLURM_BCAST", "bcast", R},
    {"SLURM_BCAST_EXCLUDE", "bcast-exclude", R},
    {"SLURM_BURST_BUFFER", "bb", R},
    {"SLURM_CLUSTERS", "clusters", R},
    {"SLURM_COMPRESS", "compress", R},
    {"SLURM_CONSTRAINT", "constraint", R},
    {"SLURM_CORE_SPEC", "core-spec", R},
    {"SLURM_CPU_BIND", "cpu-bind", R},
    {"SLURM_CPU_FREQ_REQ", "cpu-freq", R},
    {"SLURM_CPUS_PER_GPU", "cpus-per-gpu", R},
    {"SRUN_CPUS_PER_TASK", "cpus-per-task", R},
    {"SLURM_DEBUG", "verbose", R},
    {"SLURM_DELAY_BOOT", "delay-boot", R},
    {"SLURM_DEPENDENCY", "dependency", R},
    {"SLURM_DISABLE_STATUS", "disable-status", R},
    {"SLURM_DISTRIBUTION", "distribution", R},
    {"SLURM_EPILOG", "epilog", R},
    {"SLURM_EXACT", "exact", R},
    {"SLURM_EXCLUSIVE", "exclusive", R},
    {"SLURM_EXPORT_ENV", "export", R},
    {"SLURM_GPU_BIND", "gpu-bind", R},
    {"SLURM_GPU_FREQ", "gpu-freq", R},
    {"SLURM_GPUS", "gpus", R},
    {"SLURM_GPUS_PER_NODE", "gpus-per-node", R},
    {"SLURM_GPUS_PER_TASK", "gpus-per-task", R},
    {"SLURM_GRES", "gres", R},
    {"SLURM_GRES_FLAGS", "gres-flags", R},
    {"SLURM_HINT", "hint", R},
    {"SLURM_IMMEDIATE", "immediate", R},
    {"SLURM_JOB_ID", "jobid", R},
    {"SLURM_JOB_NAME", "job-name", R},
    {"SLURM_JOB_NUM_NODES", "nodes", R},
    {"SLURM_KILL_BAD_EXIT", "kill-on-bad-exit", R},
    {"SLURM_LABELIO", "label", R},
    {"SLURM_MEM_BIND", "mem-bind", R},
    {"SLURM_MEM_PER_CPU", "mem-per-cpu", R},
    {"SLURM_MEM_PER_GPU", "mem-per-gpu", R},
    {"SLURM_MEM_PER_NODE", "mem", R},
    {"SLURM_MPI_TYPE", "mpi", R},
    {"SLURM_NETWORK", "network", R},
    {"SLURM_NNODES", "nodes", R},
    {"SLURM_NO_KILL", "no-kill", R},
    {"SLURM_NPROCS", "ntasks", R},
    {"SLURM_NTASKS", "ntasks", R},
    {"SLURM_NTASKS_PER_CORE", "ntasks-per-core", R},
    {"SLURM_NTASKS_PER_GPU", "ntasks-per-gpu", R},
    {"SLURM_NTASKS_PER_NODE", "ntasks-per-node", R},
    {"SLURM_NTASKS_PER_SOCKET", "ntasks-per-socket", R},
    {"SLURM_OPEN_MODE", "open-mode", R},
    {"SLURM_OVERCOMMIT", "overcommit", R},
    {"SLURM_OVERLAP", "overlap", R},
    {"SLURM_PARTITION", "partition", R},
    {"SLURM_POWER", "power", R},
    {"SLURM_PROFILE", "profile", R},
    {"SLURM_PROLOG", "prolog", R},
    {"SLURM_QOS", "qos", R},
    {"SLURM_REMOTE_CWD", "chdir", R},
    {"SLURM_RESERVATION", "reservation", R},
    {"SLURM_RESV_PORTS", "resv-ports", R},
    {"SLURM_SEND_LIBS", "send-libs", R},
    {"SLURM_SIGNAL", "signal", R},
    {"SLURM_SPREAD_JOB", "spread-job", R},
    {"SLURM_STDERRMODE", "error", R},
    {"SLURM_STDINMODE", "input", R},
    {"SLURM_STDOUTMODE", "output", R},
    {"SLURM_STEP_GRES", "gres", R},
    {"SLURM_TASK_EPILOG", "task-epilog", R},
    {"SLURM_TASK_PROLOG", "task-prolog", R},
    {"SLURM_THREAD_SPEC", "thread-spec", R},
    {"SLURM_THREADS", "threads", R},
    {"SLURM_THREADS_PER_CORE", "threads-per-core", R},
    {"SLURM_TIMELIMIT", "time", R},
    {"SLURM_UNBUFFEREDIO", "unbuffered", R},
    {"SLURM_USE_MIN_NODES", "use-min-nodes", R},
    {"SLURM_WAIT", "wait", R},
    {"SLURM_WCKEY", "wckey", R},
    {"SLURM_WORKING_DIR", "chdir", R},
    {"SLURMD_DEBUG", "slurmd-debug", R},
    {"SRUN_CONTAINER", "container", R},
    {"SRUN_EXPORT_ENV", "export", R},
};

bool flagValueEnables(std::string_view v) {
  if (v.empty() || equalsIgnoreCase(v, "yes")) return true;
  auto n = detail::parseSigned(v);
  return n && *n != 0;
}

}  // namespace

std::span<const EnvOption> inputEnvTable() { return kEnv; }

std::optional<CliError> applyInputEnvironment(ParsedCommand& pc, const EnvMap& env,
                                              std::int64_t now) {
  for (const auto& row : kEnv) {
    if ((row.tools & static_cast<unsigned>(pc.tool)) == 0) continue;
    auto it = env.find(std::string(row.variable));
    if (it == env.end()) continue;
    // Inside an allocation SLURM_JOB_NAME is the batch job's name, not a step name (man srun).
    if (row.variable == "SLURM_JOB_NAME" && env.count("SLURM_JOB_ID")) continue;
    const OptionDef* def = findOption(pc.tool, row.long_name);
    if (!def) continue;
    std::optional<std::string_view> arg;
    const std::string& value = it->second;
    if (def->arg == ArgKind::None) {
      if (!flagValueEnables(value)) continue;
    } else if (def->arg == ArgKind::Optional) {
      if (!value.empty() && !equalsIgnoreCase(value, "yes")) arg = value;
    } else {
      arg = value;
    }
    ApplyContext ctx{pc.tool, OptionSource::Environment, now, def->long_name};
    if (auto err = def->apply(pc, arg, ctx)) {
      return CliError{prefixLines(pc.tool, err->text), err->exit_code};
    }
    pc.spec.sources[std::string(def->long_name)] = OptionSource::Environment;
  }
  return std::nullopt;
}

std::optional<CliError> applyPlaneSize(ParsedCommand& pc, const EnvMap& env) {
  // "--distribution=plane" without a size takes it from SLURM_DIST_PLANESIZE (srun).
  auto& dist = pc.spec.distribution;
  auto size = env.find("SLURM_DIST_PLANESIZE");
  if (pc.tool == Tool::Srun && dist && dist->nodes == DistMode::Plane && dist->plane_size == 0 &&
      size != env.end()) {
    auto n = detail::parseUnsigned(size->second, UINT32_MAX);
    if (!n || *n == 0) {
      return CliError{"srun: error: Invalid SLURM_DIST_PLANESIZE value: " + size->second, kExitError};
    }
    dist->plane_size = static_cast<std::uint32_t>(*n);
  }
  return std::nullopt;
}

}  // namespace drover::jobspec
