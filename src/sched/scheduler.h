#pragma once
// The entry points of the pure core. schedule() runs one pass: a main pass in priority order
// that starts what fits now, and backfill over the whole queue against an availability profile,
// holding reservations for blocked jobs (FCFS and EASY: the top blocked job per partition;
// conservative: every blocked job). Nothing here reads a clock or does I/O.
#include <cstdint>
#include <string>
#include <vector>

#include "sched/types.h"

namespace drover::sched {

Plan schedule(const Snapshot& snapshot, const SchedulerParams& params, int64_t now);

class ClusterIndex;
// Same, reusing lookups built from snapshot.nodes and snapshot.partitions (which must be the
// ones the index was built from); drivers keep one until nodes or partitions change.
Plan schedule(const ClusterIndex& index, const Snapshot& snapshot, const SchedulerParams& params,
              int64_t now);

// Why a submission is refused outright (Slurm's error), checked against the configured cluster
// regardless of node state. Limits a job can wait out (partition time/node limits, nodes down)
// are not rejections; schedule() reports them as pending reasons.
enum class RejectCode {
  None,
  InvalidPartition,
  InvalidAccount,
  InvalidFeature,
  InvalidNodeName,
  InvalidGres,
  InvalidNodeCount,
  NodeConfigUnavailable,
};

struct Validation {
  RejectCode code = RejectCode::None;
  std::string message;  // Slurm's wording for the code, then what was wrong
  bool ok() const { return code == RejectCode::None; }
};

Validation validateRequest(const JobRequest& request, const std::vector<Node>& nodes,
                           const std::vector<Partition>& partitions);

}  // namespace drover::sched
