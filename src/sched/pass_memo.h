#pragma once
// What a full pass leaves behind so that a later submission can be judged without walking the
// queue again (used by sched::Scheduler, src/sched/incremental.h). A new job that cannot change
// anyone else's outcome, because it ranks behind its partition's first blocked job and behind the
// last reservation its policy allows, and a job of its shape (no shorter) already failed to start
// ahead of it, gets the same answer it would get in a full pass, and nobody else's changes.
// Internal to src/sched.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sched/types.h"

namespace drover::sched {

class ClusterIndex;

// A job's place in the pass order: tier first, then priority, submit time, id.
using RankKey = std::tuple<int, double, int64_t, JobId>;

struct OwnedShape {
  int partition = 0, nodes = 0, cpus = 0, gpus = 0;
  int64_t memoryMb = 0;
  bool wholeNode = false;
  std::string gpuType, constraint;
  auto operator<=>(const OwnedShape&) const = default;
};

struct PassMemo {
  int64_t now = 0;
  bool hadStarts = false;
  // The earliest time at which the passage of time alone could change the plan (a running job's
  // expected end, a begin time, a reservation's promised start, an advance reservation's edge).
  int64_t nextBoundary = kNever;
  std::vector<std::optional<RankKey>> firstBlocked;  // per partition
  std::vector<std::optional<RankKey>> depthReached;  // the job that used the last reservation
  // Start estimates (SchedulerParams::estimateDepth): whether all were handed out, and the
  // last job that got one.
  bool estimatesFull = false;
  std::optional<RankKey> lastEstimated;
  // Per shape, failures to start now in rank order, kept only when shorter than every earlier
  // one: the shortest failed duration ahead of any rank is the last entry before it.
  std::map<OwnedShape, std::vector<std::pair<RankKey, int64_t>>> failures;
};

// One full pass that also fills `memo`.
Plan scheduleWithMemo(const ClusterIndex& index, const Snapshot& snapshot,
                      const SchedulerParams& params, int64_t now, PassMemo& memo);

// The pending entry `job` would get in a full pass over `snapshot` + `job` at `now`, when that
// pass would leave every other entry as `memo`'s pass did; nullopt when that cannot be shown
// (then run a full pass). `snapshot` is the one the memo's pass ran on.
std::optional<PendingInfo> judgeSubmission(const ClusterIndex& index, const Snapshot& snapshot,
                                           const SchedulerParams& params, int64_t now,
                                           const PassMemo& memo, const Job& job,
                                           bool& skippedSameShape);

RankKey rankOf(const ClusterIndex& index, const Snapshot& snapshot, const Job& job);

}  // namespace drover::sched
