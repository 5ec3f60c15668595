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
// "verbose,single:1"; the type's name in any case. Errors name what was wrong.
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

}  // namespace drover::jobspec
