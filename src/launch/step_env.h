#pragma once
// The environment of a numbered step (srun) on one of its nodes: the user's environment as
// srun exported it, the job's variables for that node, then the step's own variables (Slurm's
// SLURM_STEP_*, the step's view of SLURM_NNODES/SLURM_NTASKS/..., its GPUs) and the variables
// PyTorch's env:// initialisation reads. The per-task ones (SLURM_PROCID, RANK, ...) are added
// by the supervisor through taskVariables.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launch/job_env.h"

namespace drover::launch {

// PyTorch's rendezvous port for a step: 20000 + (job_id * 8 + step_id) % 10000, i.e. in
// [20000, 29999]: above Slurm's (6817-6819) and Drover's (7817-78xx) daemon ports and below
// Linux's ephemeral range (32768-60999), so outgoing connections do not take it; the step id
// term gives up to 8 concurrent steps of one job different ports.
std::uint16_t masterPort(std::uint64_t job_id, std::int64_t step_id);

struct StepEnvContext {
  std::uint64_t job_id = 0;
  std::int64_t step_id = 0;
  std::vector<std::string> nodes;              // the step's nodes, in step order
  std::vector<std::uint32_t> tasks_per_node;   // per step node
  std::size_t node_index = 0;                  // which step node this environment is for
  std::uint32_t ntasks = 0;
  std::optional<std::uint32_t> cpus_per_task;  // only when asked (-c) or the job had it
  std::vector<std::uint32_t> gpu_indices;      // the step's GPUs on this node
  std::string distribution;                    // "block", "cyclic", "plane"; "" = not asked (-m)
  std::uint32_t plane_size = 0;                // plane=N
  std::string launch_host;                     // srun's address (SLURM_LAUNCH_NODE_IPADDR)
  std::string srun_port;                       // srun's I/O port, "" when unknown
  bool pytorch = true;
  std::string master_addr;                     // the first step node's address
  // The job is a batch job. An srun/salloc allocation's steps get no SLURM_JOB_GPUS (golden
  // 051: Slurm sets only the step's CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, SLURM_STEP_GPUS).
  bool batch_job = true;
  std::string gpu_freq;  // srun --gpu-freq as given: SLURMD_TRES_FREQ=gpu:<it>, as the reference's
};

// The step's own variables on node `node_index`.
Environment stepVariables(const StepEnvContext& step);

// The whole environment of a step's tasks on one node: `user` (srun's exported environment),
// then the job's variables for that node (batchJobVariables of `job`, without ENVIRONMENT and
// HOSTNAME, which belong to the batch shell), then stepVariables. The job's GPU variables give
// way to the step's: a step without GPUs has no CUDA_VISIBLE_DEVICES of the job's.
Environment stepEnvironment(const Environment& user, const JobEnvContext& job,
                            const StepEnvContext& step);

}  // namespace drover::launch
