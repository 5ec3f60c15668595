#pragma once
// What a full pass leaves behind so that a later submission can be judged without walking the
// queue again (used by sched::Scheduler, src/sched/incremental.h). A new job that cannot change
// anyone else's outcome, because it ranks behind its partition's first blocked job and behind the
// last reservation its policy allows, and a job of its shape (no shorter) already failed to start
// ahead of it, gets the same answer it would get in a full pass, and nobody else's changes; so
// do new jobs that start at once where their claims move no reservation or start estimate
// (judgeStartingSubmissions). Internal to src/sched.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sched/profile.h"
#include "sched/types.h"

namespace drover::sched {

class ClusterIndex;

// A job's place in the pass order: tier first, then priority, submit time, rank id
// (JobRequest::rankId, else the id), id. The id is last: keepStarts reads it back.
using RankKey = std::tuple<int, double, int64_t, JobId, JobId>;
inline JobId rankIdOf(const Job& job) { return job.request.rankId ? job.request.rankId : job.id; }

// What decides, beside the per-node share, whether a laid-out job (walkNodes in
// sched/task_layout.h) starts now: its task count, its node range and how each task's share
// grows. All zero for every other job, whose per-node share alone decides.
struct TaskShape {
  int tasks = 0, maxNodes = 0, cpusPerTask = 0, cpusPerGpu = 0, gpusPerTask = 0;
  int64_t memPerCpuMb = 0, memPerGpuMb = 0;
  auto operator<=>(const TaskShape&) const = default;
};

struct OwnedShape {
  int partition = 0, nodes = 0, cpus = 0, gpus = 0;
  int64_t memoryMb = 0;
  bool wholeNode = false, allMemory = false;
  std::string gpuType, constraint;
  TaskShape task;
  auto operator<=>(const OwnedShape&) const = default;
};

// The jobs of one shape that reached the start attempt of the memo's pass (all failed there), in
// rank order with their durations, plus (apart, so that a submission costs no shift of a long
// vector) jobs of that shape submitted since and judged to fail. After a completion only the
// first job of a shape whose duration fits a changed node can start.
struct ShapeGroup {
  OwnedShape shape;
  struct Entry {
    RankKey rank;
    int64_t duration;
    int job;  // index into Snapshot::pending
  };
  std::vector<Entry> entries;
  std::vector<Entry> submitted;  // rank order
  // Smallest duration per block of kBlock entries: the search for the next entry short enough
  // to fit skips whole blocks.
  static constexpr size_t kBlock = 64;
  std::vector<int64_t> blockMin;

  void buildBlockMin() {
    blockMin.assign((entries.size() + kBlock - 1) / kBlock, kNever);
    for (size_t i = 0; i < entries.size(); ++i) {
      blockMin[i / kBlock] = std::min(blockMin[i / kBlock], entries[i].duration);
    }
  }
  // The first job at or after rank `from` no longer than `reach`, from either list.
  const Entry* nextWithin(const RankKey& from, int64_t reach) const {
    auto byRank = [](const Entry& e, const RankKey& r) { return e.rank < r; };
    size_t i = static_cast<size_t>(
        std::lower_bound(entries.begin(), entries.end(), from, byRank) - entries.begin());
    const Entry* best = nullptr;
    while (i < entries.size()) {
      if (i % kBlock == 0 && blockMin[i / kBlock] > reach) {
        i += kBlock;
        continue;
      }
      if (entries[i].duration <= reach) {
        best = &entries[i];
        break;
      }
      ++i;
    }
    for (auto it = std::lower_bound(submitted.begin(), submitted.end(), from, byRank);
         it != submitted.end() && (!best || it->rank < best->rank); ++it) {
      if (it->duration <= reach) return &*it;
    }
    return best;
  }
};

// A start estimate of the memo's pass: the job, the estimate (kNever: none) and the nodes it
// claimed in the estimate profile.
struct EstimateRecord {
  RankKey rank;
  int job;
  int64_t start;
  std::vector<int> nodes;
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
  // A job of `shape` ranked ahead of `rank` failed to start with a duration no longer than
  // `duration`: a pass skips a job of that shape, rank and duration.
  bool failedAhead(const OwnedShape& shape, const RankKey& rank, int64_t duration) const {
    auto it = failures.find(shape);
    if (it == failures.end()) return false;
    const auto& list = it->second;
    auto after = std::lower_bound(list.begin(), list.end(), rank,
                                  [](const auto& e, const RankKey& r) { return e.first < r; });
    return after != list.begin() && std::prev(after)->second <= duration;
  }

  // For the pass after a completion (Scheduler::pass): the whole pending queue in rank order
  // (indices into Snapshot::pending, and their ranks), every job that reached the start attempt
  // grouped by shape, those that cannot be grouped (required or excluded nodes), the estimates
  // with the nodes they claimed, and the earliest future begin time of a pending job.
  std::vector<int> order;
  std::vector<RankKey> ranks;
  std::vector<ShapeGroup> groups;
  std::map<OwnedShape, int> groupOf;
  std::vector<std::pair<RankKey, int>> unshaped;
  std::vector<EstimateRecord> estimated;
  int64_t beginBoundary = kNever;
  // The pass's FitIndex probe durations (a speed-only choice), reused by the replay.
  std::unordered_map<int64_t, int64_t> probes;
  bool probesReady = false;
  // Under conservative backfill (unbounded depth, no advance reservations) when the pass started
  // nothing: its profile as the walk left it, every reservation claimed, for submissions ranked
  // behind the whole plan (appendLastRanked). Empty otherwise.
  std::optional<AvailabilityProfile> tail;
  // Jobs were appended through the tail since the pass: the replay's lists lack them.
  bool tailAppended = false;
  // The jobs that try other partitions or features than their entry's (several partitions,
  // preferred features: Pass::triesAlternatives) and had their turn, in rank order. None is in
  // `groups`, `failures` or `unshaped`: a completion's replay visits each of them as the pass
  // did. `waitPartition` is where a job of several partitions waits (-1: it had a reason of its
  // own); a replay or kept starts that would move it there run a full pass instead.
  struct Alternative {
    RankKey rank;
    bool listed;  // of several partitions (else: preferred features only)
    int waitPartition;
  };
  std::vector<Alternative> alternatives;
  const Alternative* alternativeAt(const RankKey& rank) const {
    auto it = std::lower_bound(
        alternatives.begin(), alternatives.end(), rank,
        [](const Alternative& a, const RankKey& r) { return a.rank < r; });
    return it != alternatives.end() && it->rank == rank ? &*it : nullptr;
  }
};

// What a pass after completions changes in the last plan (see replayAfterCompletion).
struct PlanDelta {
  std::vector<Start> starts;
  std::vector<std::pair<size_t, PendingInfo>> changed;  // position in the last plan -> entry
  std::vector<size_t> removed;                          // positions of started jobs, ascending
  PlanStats stats;
  // The memo's fields as the replayed pass leaves them (used when it started nothing).
  std::vector<std::optional<RankKey>> depthReached;
  bool estimatesFull = false;
  std::optional<RankKey> lastEstimated;
  std::vector<EstimateRecord> estimated;
  int64_t plannedBoundary = kNever;  // earliest expected or estimated start in the new plan
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
                                           bool& skippedSameShape, OwnedShape* shape = nullptr,
                                           int64_t* duration = nullptr);

// The starts `starting` (submitted since the memo's pass) would get in a full pass over
// `snapshot` (which holds them) at `now`, in rank order, when that pass would start every one of
// them and leave every other outcome as `memo`'s pass did: under FCFS and EASY, the holders'
// reservations searched again and the start estimates shown to stand. `last`, `ranks` and `jobs`
// are the memo's plan as for replayAfterCompletion, without them. nullopt when one would not
// start or that cannot be shown (then run a full pass).
std::optional<std::vector<Start>> judgeStartingSubmissions(
    const ClusterIndex& index, const Snapshot& snapshot, const SchedulerParams& params,
    int64_t now, const PassMemo& memo, const std::vector<const Job*>& starting, const Plan& last,
    const std::vector<RankKey>& ranks, const std::vector<int>& jobs);

// The pass after running jobs ended on `freed` nodes (node indices), given the memo's pass and
// its plan `last` (which may hold judged submissions since: `ranks` and `jobs` give each plan
// entry's rank and Snapshot::pending index). `snapshot` is the state now. nullopt when the
// replay does not apply (advance reservations, an FCFS/EASY partition whose reservation was never
// placed, conservative changes spreading over many nodes); then run a full pass. The result,
// applied to `last`, equals a full pass.
std::optional<PlanDelta> replayAfterCompletion(const ClusterIndex& index, const Snapshot& snapshot,
                                               const SchedulerParams& params, int64_t now,
                                               const PassMemo& memo, const std::vector<int>& freed,
                                               const Plan& last, const std::vector<RankKey>& ranks,
                                               const std::vector<int>& jobs);

// After the driver applied a plan's starts exactly as planned: whether the pass on `snapshot`
// (the state with those starts running) gives each of `holders` (the FCFS/EASY reservation
// holders that rank ahead of a start: pending index and plan entry, in rank order) the
// reservation it had. Every other outcome of that pass is the plan's own (see
// Scheduler::onJobsStarted); these are the only searches a start ranked behind them can move,
// through the best-fit choice among nodes ready at the same time. `nodesBehind[h]` lists the
// nodes (indices) of the starts ranked behind holder h; where they provably cannot win that
// choice no search runs.
bool reservationsStand(const ClusterIndex& index, const Snapshot& snapshot,
                       const SchedulerParams& params, int64_t now,
                       const std::vector<std::pair<int, const PendingInfo*>>& holders,
                       const std::vector<std::vector<int>>& nodesBehind);

// Under conservative backfill: the pass over the memo's queue plus `jobs` (Snapshot::pending
// indices in rank order, each ranked behind every entry of the last plan) at `now`. Conservative
// reserves in rank order, so nobody ahead of them moves: the plan is the last plan plus, per job,
// what the walk does at the end of the queue (reasons, same-shape skip, start-now check,
// reservation search) on the profile that holds every other reservation (memo.tail). Appends
// to `plan` and updates `memo` (the tail stays only while nothing started). False when that
// cannot be shown (no tail, time crossed a step, a job would take a start estimate or move
// one): then run a full pass, the memo being spent.
bool appendLastRanked(const ClusterIndex& index, const Snapshot& snapshot,
                      const SchedulerParams& params, int64_t now, PassMemo& memo,
                      const std::vector<int>& jobs, Plan& plan);

RankKey rankOf(const ClusterIndex& index, const Snapshot& snapshot, const Job& job);

}  // namespace drover::sched
