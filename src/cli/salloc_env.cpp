#include "cli/salloc_env.h"

#include "launch/job_env.h"
#include "launch/request_env.h"

namespace drover::cli {

std::map<std::string, std::string> sallocVariables(const v1::JobInfo& job, const SallocContext& ctx) {
  launch::JobEnvContext c;
  c.job_id = job.job_id();
  c.job_name = job.name();
  c.account = job.account();
  c.partition = job.partition();
  if (!job.qos().empty()) c.qos = job.qos();
  c.user = job.user();
  c.uid = job.uid();
  c.gid = job.gid();
  c.cluster_name = ctx.cluster_name;
  c.conf_path = ctx.conf_path;
  c.controller_host = ctx.controller_host;
  c.controller_port = ctx.controller_port;
  c.submit_dir = ctx.submit_dir;
  c.submit_host = ctx.submit_host;
  for (const auto& a : job.allocation()) {
    c.nodes.push_back(a.node());
    c.cpus_per_node.push_back(a.cpus());
    c.tasks_per_node.push_back(a.tasks() > 0 ? a.tasks() : 1);
  }
  launch::addRequestedOptions(job.spec(), c);
  c.dependency = job.dependency();
  auto env = launch::batchJobVariables(c);
  if (!job.spec().gpu_freq().empty()) env["SLURM_GPU_FREQ"] = job.spec().gpu_freq();  // salloc(1)
  for (const char* only_on_a_node :
       {"ENVIRONMENT", "HOSTNAME", "SLURM_CPUS_ON_NODE", "SLURM_TOPOLOGY_ADDR",
        "SLURM_TOPOLOGY_ADDR_PATTERN", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
        "SLURM_GPUS_ON_NODE", "SLURM_JOB_GPUS", "SLURMD_NODENAME", "SLURM_NODEID",
        "SLURM_PROCID", "SLURM_LOCALID", "SLURM_GTIDS", "SLURM_TASK_PID"}) {
    env.erase(only_on_a_node);
  }
  // A job's, which its steps get (srun sets them there), but not salloc's command: the
  // reference's salloc shell had none of them.
  for (const char* the_steps : {"SLURM_JOB_UID", "SLURM_JOB_GID", "SLURM_JOB_USER",
                                "SLURM_PRIO_PROCESS", "SLURM_WORKING_CLUSTER"}) {
    env.erase(the_steps);
  }
  if (!ctx.mem_per_cpu_given) env.erase("SLURM_MEM_PER_CPU");
  if (ctx.conf_path.empty()) {
    env.erase("SLURM_CONF");
    env.erase("DROVER_CONF");
  }
  return {env.begin(), env.end()};
}

}  // namespace drover::cli
