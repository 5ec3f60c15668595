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
  bool allMemory = false;  // --mem=0: perNode's memory is each node's whole memory
  std::string gpuType;
};

// Tasks are spread evenly (rounded up) over the nodes; a job that names no node count gets as
// few nodes as its CPUs need given the largest node, and a -N min-max range at least as many as
// its tasks need on the largest node (within max). --cpus-per-gpu raises a node's CPUs to its
// GPUs times that count where the tasks alone need fewer.
Demand computeDemand(const JobRequest& request, int largestNodeCpus);

// What one node gives a job of `nodes` nodes that runs `tasks` of its tasks there: CPUs for the
// tasks (raised by --cpus-per-gpu), GPUs per node, per task or the job's GPUs over its nodes,
// and memory by the request's form. computeDemand's perNode is this for its even share.
Capacity shareForTasks(const JobRequest& request, int tasks, int nodes);

// What a node of capacity `node` gives a share: the share itself, with the node's whole memory
// for a job that asked for all of it (--mem=0, Demand::allMemory). The reference Slurm's
// `--mem=0` job held the node's 64G (scontrol TRES, sacct AllocTRES) and kept a `--mem=1G` job
// off that node.
inline Capacity onNode(Capacity share, bool allMemory, const Capacity& node) {
  if (allMemory) share.memoryMb = node.memoryMb;
  return share;
}

// What the demand holds of a node of capacity `node`: all of it for a whole-node job, else its
// per-node share (onNode). The pass and its FitIndexes ask the same.
inline Capacity needOnNode(const Demand& demand, const Capacity& node) {
  return demand.wholeNode ? node : onNode(demand.perNode, demand.allMemory, node);
}

// The memory a whole-node (--exclusive) allocation holds on a node of capacity `node`: every CPU
// of the node times --mem-per-cpu (which DefMemPerCPU fills in), every GPU times --mem-per-gpu,
// --mem itself, or the node's whole memory when none is given; never more than the node has.
// Slurm records 16 CPUs x 4000M = 64000M on a 65536M node (goldens 086, 090, 093); the node is
// still the job's alone, as its CPUs are.
int64_t wholeNodeMemoryMb(const JobRequest& request, const Capacity& node);

}  // namespace drover::sched
