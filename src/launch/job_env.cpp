#include "launch/job_env.h"

#include <algorithm>
#include <optional>
#include <string>

#include "drover/hostlist.h"

namespace drover::launch {

std::string compressCounts(const std::vector<std::uint32_t>& counts) {
  std::string out;
  for (std::size_t i = 0; i < counts.size();) {
    std::size_t run = 1;
    while (i + run < counts.size() && counts[i + run] == counts[i]) ++run;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (run > 1) out += "(x" + std::to_string(run) + ")";
    i += run;
  }
  return out;
}

std::string joinIndices(const std::vector<std::uint32_t>& indices) {
  std::string out;
  for (auto index : indices) {
    if (!out.empty()) out += ',';
    out += std::to_string(index);
  }
  return out;
}

namespace {

// SLURM_TASKS_PER_NODE as real Slurm sets it: the tasks laid out when -n or --ntasks-per-node
// was given; otherwise as many tasks as the node's CPUs hold at --cpus-per-task (16 for
// --exclusive on a 16-CPU node, 8 for --gpus=2 --cpus-per-gpu=4), although srun inside such a
// job still starts one task per node.
std::vector<std::uint32_t> shownTasksPerNode(const JobEnvContext& ctx) {
  if (ctx.ntasks || ctx.ntasks_per_node) return ctx.tasks_per_node;
  std::vector<std::uint32_t> out;
  const std::uint32_t cpt = std::max<std::uint32_t>(1, ctx.cpus_per_task.value_or(1));
  for (std::uint32_t cpus : ctx.cpus_per_node) out.push_back(std::max<std::uint32_t>(1, cpus / cpt));
  return out;
}

}  // namespace

Environment batchJobVariables(const JobEnvContext& ctx) {
  Environment env;
  const std::string id = std::to_string(ctx.job_id);
  const std::string node_list = hostlist::compress(ctx.nodes);
  const std::string this_node =
      ctx.node_index < ctx.nodes.size() ? ctx.nodes[ctx.node_index] : std::string();
  const std::uint32_t cpus_here =
      ctx.node_index < ctx.cpus_per_node.size() ? ctx.cpus_per_node[ctx.node_index] : 0;

  env["ENVIRONMENT"] = "BATCH";
  env["HOSTNAME"] = this_node;
  env["SLURM_CLUSTER_NAME"] = ctx.cluster_name;
  if (!ctx.conf_path.empty()) {
    env["SLURM_CONF"] = ctx.conf_path;
    env["DROVER_CONF"] = ctx.conf_path;
  }
  env["SLURM_CPUS_ON_NODE"] = std::to_string(cpus_here);
  env["SLURM_JOBID"] = id;
  env["SLURM_JOB_ID"] = id;
  env["SLURM_JOB_ACCOUNT"] = ctx.account;
  env["SLURM_JOB_CPUS_PER_NODE"] = compressCounts(ctx.cpus_per_node);
  env["SLURM_JOB_GID"] = std::to_string(ctx.gid);
  env["SLURM_JOB_UID"] = std::to_string(ctx.uid);
  env["SLURM_JOB_USER"] = ctx.user;
  env["SLURM_JOB_NAME"] = ctx.job_name;
  env["SLURM_JOB_NODELIST"] = node_list;
  env["SLURM_NODELIST"] = node_list;
  env["SLURM_JOB_NUM_NODES"] = std::to_string(ctx.nodes.size());
  env["SLURM_NNODES"] = std::to_string(ctx.nodes.size());
  env["SLURM_JOB_PARTITION"] = ctx.partition;
  env["SLURM_JOB_QOS"] = ctx.qos;
  env["SLURM_NODE_ALIASES"] = "(null)";
  env["SLURM_PRIO_PROCESS"] = "0";
  env["SLURM_SUBMIT_DIR"] = ctx.submit_dir;
  env["SLURM_SUBMIT_HOST"] = ctx.submit_host;
  env["SLURM_TASKS_PER_NODE"] = compressCounts(shownTasksPerNode(ctx));
  env["SLURM_TOPOLOGY_ADDR"] = this_node;
  env["SLURM_TOPOLOGY_ADDR_PATTERN"] = "node";
  // cluster:controller-host:port:protocol-version:plugin-id, as Slurm formats it.
  env["SLURM_WORKING_CLUSTER"] = ctx.cluster_name + ":" + ctx.controller_host + ":" +
                                 std::to_string(ctx.controller_port) + ":9728:109";
  if (!ctx.reservation.empty()) env["SLURM_JOB_RESERVATION"] = ctx.reservation;
  if (!ctx.dependency.empty()) env["SLURM_JOB_DEPENDENCY"] = ctx.dependency;
  // -n, or --ntasks-per-node times the nodes (real Slurm sets both then; neither otherwise).
  std::optional<std::uint64_t> ntasks = ctx.ntasks;
  if (!ntasks && ctx.ntasks_per_node) ntasks = std::uint64_t{*ctx.ntasks_per_node} * ctx.nodes.size();
  if (ntasks) {
    env["SLURM_NTASKS"] = std::to_string(*ntasks);
    env["SLURM_NPROCS"] = std::to_string(*ntasks);
  }
  if (ctx.cpus_per_task) env["SLURM_CPUS_PER_TASK"] = std::to_string(*ctx.cpus_per_task);
  if (ctx.ntasks_per_node) env["SLURM_NTASKS_PER_NODE"] = std::to_string(*ctx.ntasks_per_node);
  if (ctx.mem_per_node_mb) env["SLURM_MEM_PER_NODE"] = std::to_string(*ctx.mem_per_node_mb);
  if (ctx.mem_per_cpu_mb) env["SLURM_MEM_PER_CPU"] = std::to_string(*ctx.mem_per_cpu_mb);
  if (ctx.mem_per_gpu_mb) env["SLURM_MEM_PER_GPU"] = std::to_string(*ctx.mem_per_gpu_mb);
  if (ctx.cpus_per_gpu) env["SLURM_CPUS_PER_GPU"] = std::to_string(*ctx.cpus_per_gpu);
  if (!ctx.gpus.empty()) env["SLURM_GPUS"] = ctx.gpus;
  if (!ctx.gpus_per_node.empty()) env["SLURM_GPUS_PER_NODE"] = ctx.gpus_per_node;
  if (!ctx.gpus_per_task.empty()) env["SLURM_GPUS_PER_TASK"] = ctx.gpus_per_task;
  // sbatch(1): set only when --gpu-bind was given; srun inside the job reads it as its own.
  if (!ctx.gpu_bind.empty()) env["SLURM_GPU_BIND"] = ctx.gpu_bind;
  if (ctx.ntasks_per_gpu) env["SLURM_NTASKS_PER_GPU"] = std::to_string(*ctx.ntasks_per_gpu);
  if (ctx.restart_count > 0) env["SLURM_RESTART_COUNT"] = std::to_string(ctx.restart_count);
  if (!ctx.gpu_indices.empty()) {
    const std::string gpus = joinIndices(ctx.gpu_indices);
    env["CUDA_VISIBLE_DEVICES"] = gpus;
    env["GPU_DEVICE_ORDINAL"] = gpus;
    env["ROCR_VISIBLE_DEVICES"] = gpus;
    env["ZE_AFFINITY_MASK"] = gpus;
    env["SLURM_JOB_GPUS"] = gpus;
    env["SLURM_GPUS_ON_NODE"] = std::to_string(ctx.gpu_indices.size());
  }
  if (ctx.array) {
    const ArrayContext& a = *ctx.array;
    env["SLURM_ARRAY_JOB_ID"] = std::to_string(a.array_job_id);
    env["SLURM_ARRAY_TASK_ID"] = std::to_string(a.task_id);
    env["SLURM_ARRAY_TASK_COUNT"] = std::to_string(a.task_count);
    env["SLURM_ARRAY_TASK_MIN"] = std::to_string(a.task_min);
    env["SLURM_ARRAY_TASK_MAX"] = std::to_string(a.task_max);
    env["SLURM_ARRAY_TASK_STEP"] = std::to_string(a.task_step);
  }
  return env;
}

Environment taskVariables(const TaskContext& task) {
  Environment env;
  env["SLURM_PROCID"] = std::to_string(task.global_rank);
  env["SLURM_LOCALID"] = std::to_string(task.local_rank);
  env["SLURM_NODEID"] = std::to_string(task.node_id);
  env["SLURMD_NODENAME"] = task.node_name;
  env["SLURM_GTIDS"] = joinIndices(task.node_global_ranks);
  env["SLURM_TASK_PID"] = std::to_string(task.pid);
  if (task.pytorch) {
    env["RANK"] = std::to_string(task.global_rank);
    env["LOCAL_RANK"] = std::to_string(task.local_rank);
    env["GROUP_RANK"] = std::to_string(task.node_id);
  }
  if (!task.bound_gpus.empty()) {
    const std::string gpus = joinIndices(task.bound_gpus);
    for (const char* var : kStepGpuListVariables) env[var] = gpus;
  }
  if (!task.tres_bind.empty()) env["SLURMD_TRES_BIND"] = task.tres_bind;
  return env;
}

void hideStepGpus(Environment& env) {
  for (const char* var : kStepGpuListVariables) env.erase(var);
}

std::vector<std::string> renderEnvironment(const Environment& base, const Environment& vars) {
  Environment merged = base;
  for (const auto& [key, value] : vars) merged[key] = value;
  // Slurm's step daemon gives every task a TMPDIR (its TmpFS, /tmp) unless the job has one
  // (golden 045, 049).
  if (!merged.count("TMPDIR")) merged["TMPDIR"] = "/tmp";
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& [key, value] : merged) out.push_back(key + "=" + value);
  return out;
}

}  // namespace drover::launch
