#pragma once
// What the scheduler benchmarks share: the thread's CPU clock and the synthetic AI node.
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "sched/types.h"

namespace drover::sched::bench {

// CPU time of this thread: the machine is shared, so wall time would measure the neighbours.
inline double cpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Node `index` (0-based) of the synthetic cluster: gpu00001.., 128 CPUs, 2 TB, 8 H100s.
inline Node h100Node(int index, std::vector<std::string> partitions) {
  Node n;
  char name[32];
  std::snprintf(name, sizeof name, "gpu%05d", index + 1);
  n.name = name;
  n.index = index;
  n.cpus = 128;
  n.memoryMb = 2000000;
  n.gpuTypes.assign(8, "h100");
  n.partitions = std::move(partitions);
  return n;
}

}  // namespace drover::sched::bench
