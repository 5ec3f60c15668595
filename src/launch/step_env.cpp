#include "launch/step_env.h"

#include "drover/hostlist.h"

namespace drover::launch {

std::uint16_t masterPort(std::uint64_t job_id, std::int64_t step_id) {
  const std::uint64_t step = step_id < 0 ? 0 : static_cast<std::uint64_t>(step_id);
  return static_cast<std::uint16_t>(20000 + (job_id * 8 + step) % 10000);
}

Environment stepVariables(const StepEnvContext& s) {
  Environment env;
  const std::string nodelist = hostlist::compress(s.nodes);
  const std::string nnodes = std::to_string(s.nodes.size());
  const std::string ntasks = std::to_string(s.ntasks);
  const std::string tasks_per_node = compressCounts(s.tasks_per_node);
  const std::string step = std::to_string(s.step_id);
  env["SLURM_STEP_ID"] = step;
  env["SLURM_STEPID"] = step;
  if (!s.gpu_freq.empty()) env["SLURMD_TRES_FREQ"] = "gpu:" + s.gpu_freq;
  env["SLURM_STEP_NODELIST"] = nodelist;
  env["SLURM_STEP_NUM_NODES"] = nnodes;
  env["SLURM_STEP_NUM_TASKS"] = ntasks;
  env["SLURM_STEP_TASKS_PER_NODE"] = tasks_per_node;
  env["SLURM_TASKS_PER_NODE"] = tasks_per_node;
  env["SLURM_NODELIST"] = nodelist;
  env["SLURM_NNODES"] = nnodes;
  env["SLURM_NTASKS"] = ntasks;
  env["SLURM_NPROCS"] = ntasks;
  if (s.cpus_per_task) env["SLURM_CPUS_PER_TASK"] = std::to_string(*s.cpus_per_task);
  if (!s.distribution.empty()) env["SLURM_DISTRIBUTION"] = s.distribution;
  if (s.distribution == "plane" && s.plane_size > 0) {
    env["SLURM_DIST_PLANESIZE"] = std::to_string(s.plane_size);
  }
  if (!s.launch_host.empty()) {
    env["SLURM_LAUNCH_NODE_IPADDR"] = s.launch_host;
    env["SLURM_SRUN_COMM_HOST"] = s.launch_host;
  }
  if (!s.srun_port.empty()) {
    env["SLURM_SRUN_COMM_PORT"] = s.srun_port;
    env["SLURM_STEP_LAUNCHER_PORT"] = s.srun_port;
  }
  if (!s.gpu_indices.empty()) {
    const std::string gpus = joinIndices(s.gpu_indices);
    for (const char* var : kStepGpuListVariables) env[var] = gpus;
    env["SLURM_GPUS_ON_NODE"] = std::to_string(s.gpu_indices.size());
  }
  if (s.pytorch) {
    env["MASTER_ADDR"] = s.master_addr.empty() && !s.nodes.empty() ? s.nodes.front() : s.master_addr;
    env["MASTER_PORT"] = std::to_string(masterPort(s.job_id, s.step_id));
    env["WORLD_SIZE"] = ntasks;
    env["LOCAL_WORLD_SIZE"] =
        std::to_string(s.node_index < s.tasks_per_node.size() ? s.tasks_per_node[s.node_index] : 0);
  }
  return env;
}

Environment stepEnvironment(const Environment& user, const JobEnvContext& job,
                            const StepEnvContext& step) {
  Environment env = user;
  Environment job_vars = batchJobVariables(job);
  // The batch shell's own, and the job's option variables that sbatch and salloc export: a
  // step inside their jobs has them from its surroundings (`user`), and the reference's
  // steps of an allocation srun made had none of them (only SLURM_CPUS_PER_TASK,
  // SLURM_NTASKS_PER_NODE and SLURM_NTASKS_PER_TRES, srun's own).
  for (const char* not_the_steps :
       {"ENVIRONMENT", "HOSTNAME", "SLURM_NODE_ALIASES", "SLURM_MEM_PER_CPU", "SLURM_MEM_PER_NODE",
        "SLURM_MEM_PER_GPU", "SLURM_CPUS_PER_GPU", "SLURM_GPUS", "SLURM_GPUS_PER_NODE",
        "SLURM_GPUS_PER_TASK", "SLURM_GPU_BIND", "SLURM_NTASKS_PER_GPU"}) {
    job_vars.erase(not_the_steps);
  }
  if (!step.batch_job) job_vars.erase("SLURM_JOB_GPUS");
  for (auto& [k, v] : job_vars) env[k] = std::move(v);
  // The batch shell's (or a surrounding step's) GPU lists are not this step's.
  hideStepGpus(env);
  env.erase("SLURM_GPUS_ON_NODE");
  env.erase("SLURMD_TRES_BIND");
  env.erase("SLURMD_TRES_FREQ");
  // Per-task values from a surrounding step (srun inside srun) must not leak into these tasks;
  // the supervisor sets them again per task.
  for (const char* task_var :
       {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_GTIDS", "SLURM_TASK_PID"}) {
    env.erase(task_var);
  }
  if (step.pytorch) {
    for (const char* task_var : {"RANK", "LOCAL_RANK", "GROUP_RANK"}) env.erase(task_var);
  }
  for (auto& [k, v] : stepVariables(step)) env[k] = std::move(v);
  return env;
}

}  // namespace drover::launch
