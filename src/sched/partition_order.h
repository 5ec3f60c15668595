#pragma once
// The order in which a job submitted to several partitions (`-p gpu,debug`) tries them. Slurm
// queues such a job once per partition, each entry ranked by that partition's PriorityTier and
// by the job's priority there (the partition factor being the only part that differs), so the
// entry of the higher tier, then of the higher PriorityJobFactor, is tried first; the reference
// ran `-p gpu,debug -t 10` on an idle cluster in debug (PriorityJobFactor 10 against 1).
#include <string>
#include <vector>

#include "sched/types.h"

namespace drover::sched {

// Sorts request.partitions into that order (higher tier, then higher job factor, then as
// listed; names not in `partitions` last) and sets request.partition to the first. A request
// of one partition is left as it is.
void orderPartitions(JobRequest& request, const std::vector<Partition>& partitions);

}  // namespace drover::sched
