#pragma once
// Which running jobs to preempt so that blocked jobs can start: Slurm's
// PreemptType=preempt/partition_prio. A pending job may preempt running jobs of partitions
// whose priority tier is lower than that of every partition it may run in, when those
// partitions allow preemption (Partition::preemptable). Pure, like schedule(): a snapshot and
// `now` in, a list out; the driver ends the chosen jobs (cancel or requeue) and the next pass,
// once their resources are free, starts the preemptor (its tier ranks it first there).
#include <cstdint>
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
  // Running jobs already being ended for an earlier preemptor: not chosen again, and counted
  // as running (their resources belong to that preemptor).
  std::unordered_set<JobId> ending;
  // Preemptors whose victims are still ending: they wait for those, nobody else is preempted
  // for them.
  std::unordered_set<JobId> waiting;
  // At most this many trial placements in one call (each a one-job schedule()).
  int maxTrials = 64;
};

// For each blocked job in turn that could start now if some preemptable lower-tier jobs were
// gone, the fewest of those it needs: its trial start is found with all of them gone, then each
// is put back in turn (the longest-running, by lowest id, first) and kept when the job still
// starts without it; the jobs left that share a node with the final placement are its victims.
// Later preemptors see earlier ones as running where their trial put them.
std::vector<Preemption> planPreemptions(const Snapshot& snapshot, const PreemptionQuery& query,
                                        const SchedulerParams& params, int64_t now);

}  // namespace drover::sched
