#include "sched/demand.h"

#include <algorithm>

namespace drover::sched {

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }
}  // namespace

Demand computeDemand(const JobRequest& r, int largestNodeCpus) {
  Demand d;
  int ntasks = std::max(1, r.ntasks);
  int cpt = std::max(1, r.cpusPerTask);
  int64_t totalCpus = int64_t{ntasks} * cpt;
  int nodes = r.minNodes;
  if (nodes <= 0) {
    if (r.ntasksPerNode > 0) {
      nodes = static_cast<int>(ceilDiv(ntasks, r.ntasksPerNode));
    } else {
      nodes = static_cast<int>(std::max<int64_t>(1, ceilDiv(totalCpus, std::max(1, largestNodeCpus))));
    }
    if (r.maxNodes > 0) nodes = std::min(nodes, std::max(r.maxNodes, 1));
  } else if (r.maxNodes > nodes && r.ntasksPerNode <= 0) {
    // -N min-max: at least the nodes of the largest size the tasks need, within the range
    // (the reference Slurm ran -N 1-4 -n 6 -c 4, 24 CPUs, on 16-CPU nodes).
    const int tasks_per_node = std::max(1, largestNodeCpus / cpt);
    nodes = std::max(nodes, static_cast<int>(std::min<int64_t>(r.maxNodes, ceilDiv(ntasks, tasks_per_node))));
  }
  d.nodes = std::max(1, nodes);
  int tasksPerNode = r.ntasksPerNode > 0 ? r.ntasksPerNode
                                         : static_cast<int>(ceilDiv(ntasks, d.nodes));
  d.perNode = shareForTasks(r, tasksPerNode, d.nodes);
  d.wholeNode = r.exclusive;
  d.allMemory = r.allMemory;
  d.gpuType = r.gpuType;
  return d;
}

Capacity shareForTasks(const JobRequest& r, int tasks, int nodes) {
  Capacity c;
  c.cpus = tasks * std::max(1, r.cpusPerTask);
  if (r.gpusPerNode > 0) {
    c.gpus = r.gpusPerNode;
  } else if (r.gpusPerTask > 0) {
    c.gpus = r.gpusPerTask * tasks;
  } else if (r.gpusPerJob > 0) {
    c.gpus = static_cast<int>(ceilDiv(r.gpusPerJob, std::max(1, nodes)));
  }
  if (r.cpusPerGpu > 0) c.cpus = std::max(c.cpus, r.cpusPerGpu * c.gpus);
  if (r.memPerNodeMb > 0) {
    c.memoryMb = r.memPerNodeMb;
  } else if (r.memPerCpuMb > 0) {
    c.memoryMb = r.memPerCpuMb * c.cpus;
  } else if (r.memPerGpuMb > 0) {
    c.memoryMb = r.memPerGpuMb * c.gpus;
  }
  return c;
}

int64_t wholeNodeMemoryMb(const JobRequest& r, const Capacity& node) {
  int64_t mem = node.memoryMb;
  if (r.memPerNodeMb > 0) {
    mem = r.memPerNodeMb;
  } else if (r.memPerCpuMb > 0) {
    mem = r.memPerCpuMb * node.cpus;
  } else if (r.memPerGpuMb > 0 && node.gpus > 0) {
    mem = r.memPerGpuMb * node.gpus;
  }
  return std::min(mem, node.memoryMb);
}

}  // namespace drover::sched
