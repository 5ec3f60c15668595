#pragma once
// The per-node shape of a request: how many nodes and what each of them must give.
#include <cstdint>
#include <string>

#include "sched/profile.h"
#include "sched/types.h"

namespace drover::sched {

struct Demand {
  int nodes = 1;
  Capacity perNode;
  bool wholeNode = false;  // --exclusive or an exclusive partition: the node's full capacity
  std::string gpuType;
};

// Tasks are spread evenly (rounded up) over the nodes; a job that names no node count gets as
// few nodes as its CPUs need given the largest node.
Demand computeDemand(const JobRequest& request, int largestNodeCpus);

}  // namespace drover::sched
