#include "launch/request_env.h"

#include <string>

namespace drover::launch {

namespace {

// `--gpus-per-node=h100:2` is echoed as Slurm keeps it: "h100:2"; untyped: "2".
std::string gpuRequest(const v1::GresRequest& g) {
  if (g.count() == 0) return "";
  std::string count = std::to_string(g.count());
  return g.type().empty() ? count : g.type() + ":" + count;
}

}  // namespace

void addRequestedOptions(const v1::JobSpec& s, JobEnvContext& ctx) {
  if (s.ntasks() > 0) ctx.ntasks = s.ntasks();
  if (s.cpus_per_task() > 0) ctx.cpus_per_task = s.cpus_per_task();
  if (s.ntasks_per_node() > 0) ctx.ntasks_per_node = s.ntasks_per_node();
  // --mem=0 (all of each node's memory) sets no variable: the reference's job and its steps had
  // no SLURM_MEM_PER_NODE.
  if (s.mem_set()) {
    if (s.mem_per_node_mb() > 0) ctx.mem_per_node_mb = s.mem_per_node_mb();
  } else if (s.mem_per_cpu_mb() > 0) {
    ctx.mem_per_cpu_mb = s.mem_per_cpu_mb();
  }
  if (s.mem_per_gpu_mb() > 0) ctx.mem_per_gpu_mb = s.mem_per_gpu_mb();
  if (s.cpus_per_gpu() > 0) ctx.cpus_per_gpu = s.cpus_per_gpu();
  if (!s.gpus_implied()) ctx.gpus = gpuRequest(s.gpus());
  ctx.gpus_per_node = gpuRequest(s.gpus_per_node());
  ctx.gpus_per_task = gpuRequest(s.gpus_per_task());
  ctx.gpu_bind = s.gpu_bind();
  if (s.ntasks_per_gpu() > 0) ctx.ntasks_per_gpu = s.ntasks_per_gpu();
}

}  // namespace drover::launch
