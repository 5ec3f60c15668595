#pragma once
// Which running jobs to preempt so that blocked jobs can start: Slurm's
// PreemptType=preempt/partition_prio, where a pending job may preempt running jobs of
// partitions whose priority tier is lower than that of every partition it may run in, when
// those partitions allow preemption (Partition::preemptable); or preempt/qos, where it may
// preempt running jobs of the QOSes its own QOS lists. Pure, like schedule(): a snapshot and
// `now` in, a list out; the driver ends the chosen jobs (cancel or requeue) and the next pass,
// once their resources are free, starts the preemptor (its tier, or its rank, puts it first
// there).
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sched/types.h"

namespace drover::sched {

struct Preemption {
  JobId victim = 0;
  JobId preemptor = 0;
};

struct PreemptionQuery {
  // The pending jobs the last pass could not start, highest ranked first (Plan::pending order).
  std::vector<JobId> blocked;
  // Running jobs never chosen, and counted as running: those already being ended (their nodes
  // go to whoever they end for), those within PreemptExemptTime, and under preempt/qos those
  // whose PreemptMode is OFF.
  std::unordered_set<JobId> spared;
  // Preemptors whose victims are still ending: they wait for those, nobody else is preempted
  // for them.
  std::unordered_set<JobId> waiting;
  // At most this many trial placements in one call (each a one-job schedule(), about 3 ms of
  // CPU with 8,000 running jobs: bench/sched/preempt_bench); blocked jobs not reached wait for
  // the next pass.
  int maxTrials = 32;
  // preempt/qos: for each QOS whose jobs may preempt, the QOSes whose running jobs they may
  // (Slurm's QOS Preempt= list). Unset: preempt/partition_prio, the partitions' tiers decide.
  std::optional<std::unordered_map<std::string, std::unordered_set<std::string>>> qosPreempts;
};

// For each blocked job in turn that could start now if some jobs it may preempt were gone, the
// ones it needs: ordered youngest (highest id) first, the shortest prefix
// whose removal lets it start (a binary search of one-job trial passes, so a cluster of 10,000
// such jobs costs about 15 trials); of that prefix the jobs on other nodes than its trial
// placement stay, and those on its nodes are put back one at a time (the longest-running
// first), each kept when the job still starts without it. The jobs left that share a node with
// its final placement are its victims; later preemptors see that placement as running.
std::vector<Preemption> planPreemptions(const Snapshot& snapshot, const PreemptionQuery& query,
                                        const SchedulerParams& params, int64_t now);

}  // namespace drover::sched
