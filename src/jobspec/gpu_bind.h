#pragma once
// --gpu-bind=[verbose,]TYPE (srun(1), also sbatch's and salloc's for the steps of the job):
// which of a node's step GPUs each task sees (CUDA_VISIBLE_DEVICES). Parsed where the user
// writes it (srun checks it before anything starts) and again, from the same text, by the
// supervisor that starts the tasks.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::jobspec {

struct GpuBind {
  enum class Kind { None, Closest, Single, PerTask, Map, Mask };
  Kind kind = Kind::None;
  bool verbose = false;
  std::uint32_t count = 0;             // single: tasks per GPU; per_task: GPUs per task
  std::vector<std::uint64_t> entries;  // map_gpu: GPU ids; mask_gpu: masks; "X*N" expanded
  bool operator==(const GpuBind&) const = default;
};

// The longest map_gpu/mask_gpu list after "X*N" repetitions are expanded; longer is refused
// (a list is per node, and no node has this many tasks).
inline constexpr std::size_t kMaxGpuBindEntries = 65536;

// "closest", "none", "single:2", "per_task:1", "map_gpu:0,1*3", "mask_gpu:0x3,c",
// "verbose,single:1"; the type's name in any case. After none, closest, single:N and
// per_task:N, a comma and anything (",verbose") is ignored, as Slurm's srun. Errors name what
// was wrong.
Result<GpuBind> parseGpuBind(std::string_view text);

// The GPUs (global indices on the node) that local task `local_task` sees, given the step's
// GPUs on its node in order; empty = no binding, every step GPU. As srun(1): none and closest
// bind nothing (Drover knows no GPU-to-socket affinity, so every GPU is as close); single:N
// gives tasks N at a time each one GPU in order, per_task:G each task the next G; map_gpu and
// mask_gpu name global GPU indices, by local task (the list reused from its start when the
// node has more tasks). single and per_task wrap around the step's GPUs when the tasks need
// more than there are. A step of one task is never bound (srun(1)); that is the caller's
// test.
std::vector<std::uint32_t> gpusOfTask(const GpuBind& bind, const std::vector<std::uint32_t>& step_gpus,
                                      std::uint32_t local_task);

// What one task sees of its node's step GPUs, as the reference Slurm's tasks did.
struct TaskGpuView {
  // --gpu-bind=none: the task gets no GPU list at all (the reference unset
  // CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK and
  // SLURM_STEP_GPUS).
  bool hidden = false;
  // The task's own GPUs (global indices), which replace the node's step GPUs in those five
  // variables; empty (and not hidden) = every step GPU.
  std::vector<std::uint32_t> gpus;
  // SLURMD_TRES_BIND: "gpu:" and the --gpu-bind text as given ("gpu:per_task:G" for
  // --gpus-per-task=G alone); "" = not set.
  std::string tres_bind;
  // --gpu-bind=verbose,TYPE: the task is told what it was bound to (gpuBindNotice).
  bool verbose = false;
  // A map_gpu/mask_gpu entry named none of the step's GPUs, so the task got the first one.
  bool fell_back = false;
  bool operator==(const TaskGpuView&) const = default;
};

// Local task `local_task` of the `node_tasks` tasks of a step on a node whose step GPUs are
// `step_gpus`: bound by `gpu_bind_text` (srun's --gpu-bind, already checked; a text that does
// not parse binds nothing) or else by --gpus-per-task=`gpus_per_task` (per_task:G). As the
// reference: a node running one task of the step is never bound (nor told SLURMD_TRES_BIND);
// map_gpu/mask_gpu keep only GPUs of the step, and a task whose list names none of them gets
// the step's first GPU (Slurm's "does not specify any devices within the allocation ...
// Binding to the first device in the allocation instead").
TaskGpuView taskGpuView(std::string_view gpu_bind_text, std::uint32_t gpus_per_task,
                        const std::vector<std::uint32_t>& step_gpus, std::uint32_t node_tasks,
                        std::uint32_t local_task);

// What the step daemon writes on the stderr of local task `local_task` (on node `node_name`)
// before the task runs, as the reference's slurmstepd did: for a map/mask that fell back,
// "drover-stepd-NODE: error: Bind request gpu:TEXT does not specify any devices within the
// allocation for task N. Binding to the first device in the allocation instead." (Slurm's line,
// its daemon's name swapped); then, with verbose, "gpu-bind: usable_gres=0x..; bit_alloc=0x..;
// local_inx=0; global_list=..; local_list=.." (the task's and the step's GPUs on the node as
// hexadecimal bit masks of node indices, then the task's as a list). "" = nothing to say.
std::string gpuBindNotice(const TaskGpuView& view, const std::vector<std::uint32_t>& step_gpus,
                          std::uint32_t local_task, std::string_view node_name);

// A set of GPU indices as Slurm's hexadecimal bit mask: "0x" and upper-case digits, no
// leading zeros ({0,1} -> "0x3", {3,4,5,6} -> "0x78"); the empty set is "0x0".
std::string gpuHexMask(const std::vector<std::uint32_t>& gpus);

}  // namespace drover::jobspec
