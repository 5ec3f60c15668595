#pragma once
// The environment Slurm gives a batch job: every SLURM_* variable, the GPU variables, and the
// per-task ones the step supervisor fills in. Pure code: the controller, the step supervisor and
// srun build environments through these functions, so there is one definition of each variable.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace drover::launch {

using Environment = std::map<std::string, std::string>;

// The variables that list a step's GPUs on a node to its tasks (SLURM_STEP_GPUS only for
// numbered steps); the reference Slurm set all five to the same list (ZE_AFFINITY_MASK is
// Intel's Level Zero, ROCR_VISIBLE_DEVICES AMD's).
inline constexpr const char* kStepGpuListVariables[] = {
    "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
    "SLURM_STEP_GPUS"};

struct ArrayContext {
  std::uint64_t array_job_id = 0;
  std::uint32_t task_id = 0;
  std::uint32_t task_count = 0;
  std::uint32_t task_min = 0;
  std::uint32_t task_max = 0;
  std::uint32_t task_step = 1;
};

// What a job looks like from one of its nodes.
struct JobEnvContext {
  std::uint64_t job_id = 0;
  std::string job_name;
  std::string account;
  std::string partition;
  std::string qos = "normal";
  std::string reservation;
  std::string user;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string cluster_name;
  std::string conf_path;              // DROVER_CONF, exported as SLURM_CONF too
  std::string controller_host;
  std::uint16_t controller_port = 0;
  std::string submit_dir;
  std::string submit_host;
  std::vector<std::string> nodes;     // allocated nodes, in order
  std::vector<std::uint32_t> cpus_per_node;
  std::vector<std::uint32_t> tasks_per_node;
  std::size_t node_index = 0;         // which of `nodes` this environment is for
  std::vector<std::uint32_t> gpu_indices;   // GPUs of this job on this node
  std::optional<std::uint32_t> ntasks;            // only when the user asked (-n)
  std::optional<std::uint32_t> cpus_per_task;     // only when the user asked (-c)
  std::optional<std::uint32_t> ntasks_per_node;
  std::optional<std::uint64_t> mem_per_node_mb;
  std::optional<std::uint64_t> mem_per_cpu_mb;
  std::optional<std::uint64_t> mem_per_gpu_mb;    // --mem-per-gpu
  std::optional<std::uint32_t> cpus_per_gpu;      // --cpus-per-gpu
  // --gpus, --gpus-per-node, --gpus-per-task as given ("2", "h100:2"); "" = not given.
  std::string gpus;
  std::string gpus_per_node;
  std::string gpus_per_task;
  std::string gpu_bind;                           // --gpu-bind as given; "" = not given
  std::optional<std::uint32_t> ntasks_per_gpu;    // only when asked (--ntasks-per-gpu)
  std::optional<ArrayContext> array;
  std::uint32_t restart_count = 0;
  std::string dependency;
};

// Slurm's repeated-count compression: {2,2,2,1} -> "2(x3),1".
std::string compressCounts(const std::vector<std::uint32_t>& counts);

// Comma list of indices: {2,3} -> "2,3".
std::string joinIndices(const std::vector<std::uint32_t>& indices);

// Variables of the batch job as seen on node `node_index` (the batch host is index 0), without
// the per-task ones (see taskVariables).
Environment batchJobVariables(const JobEnvContext& ctx);

// Per-task variables that only the launching process knows.
struct TaskContext {
  std::uint32_t global_rank = 0;      // SLURM_PROCID
  std::uint32_t local_rank = 0;       // SLURM_LOCALID
  std::uint32_t node_id = 0;          // SLURM_NODEID
  std::string node_name;              // SLURMD_NODENAME
  std::vector<std::uint32_t> node_global_ranks;   // SLURM_GTIDS
  int pid = 0;                        // SLURM_TASK_PID
  // Numbered steps that export PyTorch's variables: RANK (= global rank), LOCAL_RANK
  // (= local rank) and GROUP_RANK (= node id).
  bool pytorch = false;
  // The task's own GPUs when the step binds GPUs per task (--gpu-bind, --gpus-per-task): they
  // replace the node's list in kStepGpuListVariables, as the reference Slurm's tasks showed.
  // Empty = no per-task binding.
  std::vector<std::uint32_t> bound_gpus;
  std::string tres_bind;  // SLURMD_TRES_BIND ("gpu:single:1"); "" = not set
};
Environment taskVariables(const TaskContext& task);
// --gpu-bind=none: the step's GPU list variables removed from a task's environment, as the
// reference Slurm's tasks had none of them (SLURM_GPUS_ON_NODE and SLURM_JOB_GPUS stay).
void hideStepGpus(Environment& env);

// Overlay `vars` onto `base` (later wins) and render as KEY=VALUE strings for execve;
// TMPDIR=/tmp is added when neither has one, as Slurm does.
std::vector<std::string> renderEnvironment(const Environment& base, const Environment& vars);

}  // namespace drover::launch
