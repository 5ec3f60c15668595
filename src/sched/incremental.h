#pragma once
// A scheduler that lives between passes, for drivers that feed it events (the simulator, and the
// controller when it moves off the one-shot schedule()). It owns the cluster state as a Snapshot,
// keeps the ClusterIndex across passes (rebuilt only when a node or partition changes), and
// remembers what its last full pass learnt (pass_memo.h): after a submission that cannot change
// anyone else's outcome, a pass costs one placement check for the new job and an insertion into
// the last plan, not a walk of the whole queue. After running jobs end, the pass replays the last
// one from what changed: only jobs that could now start on the freed nodes, the reservations and
// the start estimates are looked at again, and old answers are reused where the changed nodes
// cannot alter them (under conservative the replay gives up for a full pass once the changes
// spread). When the driver then starts exactly what the last plan said (onJobsStarted with its
// allocations and ends), the memo stays: under FCFS and EASY that plan minus its starts is the
// next full pass's plan once the reservations ranked ahead of a start are searched again and
// come out the same (one search per partition), so the next submission or completion still
// takes its shortcut. Submissions that start at once are judged the same way under FCFS and EASY
// (judgeStartingSubmissions in pass_memo.h): the last plan plus their starts, when the holders'
// reservations and the start estimates are shown to stand around their claims; their report
// then keeps the memo as above. Under conservative backfill, submissions that rank behind every job of the
// last plan (the usual case) are appended to it: their own start-now checks and reservation
// searches on the profile the last walk left, which the memo keeps (appendLastRanked in
// pass_memo.h). Anything else (another start, a cancel, a node change, time crossing a
// boundary the last plan depends on) runs a full pass. Either way the
// plan equals schedule(snapshot(), params, now); tests/unit/sched/incremental_test.cpp checks
// that on random event sequences.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sched/cluster_index.h"
#include "sched/pass_memo.h"
#include "sched/types.h"

namespace drover::sched {

class Scheduler {
 public:
  Scheduler(std::vector<Node> nodes, std::vector<Partition> partitions, SchedulerParams params);

  void onJobSubmitted(Job job);
  // A pending job left the queue (cancelled) or a running job ended: either way it is gone.
  void onJobEnded(JobId id);
  // Many at once (a scancel of 1,000 ids): the same as onJobEnded for each, in one walk of the
  // queue instead of one walk and one shift of its tail per job.
  void onJobsEnded(const std::vector<JobId>& ids);
  // The driver started a job (normally one of the last plan's starts).
  void onJobStarted(RunningJob job);
  // Many at once (a plan's starts): one walk of the queue instead of one per job.
  void onJobsStarted(std::vector<RunningJob> jobs);
  // Replaces the node of the same name (state, features, partitions); unknown names are added.
  void onNodeChanged(Node node);
  void setPartitions(std::vector<Partition> partitions);
  void setReservations(std::vector<AdvanceReservation> reservations);
  // Any other change to a pending job (priority, hold, dependency): replace it by id.
  void onJobUpdated(Job job);
  // A running job takes a new id (the controller gives a started array task its own job id).
  // Its place and end stay as they are, so the memo stays valid; only while the last plan still
  // waits for that job's start to be reported is the memo dropped. Returns false when no running
  // job has id `from` (nothing changes then).
  bool renameRunning(JobId from, JobId to);

  // One pass at `now`. Starts in the returned plan are not applied: the driver reports them back
  // with onJobStarted (or onJobEnded when a launch fails).
  const Plan& pass(int64_t now);

  const Snapshot& snapshot() const { return snap_; }
  struct Counters {
    int fullPasses = 0;
    int incrementalPasses = 0;  // passes that took a shortcut (either kind)
    int completionReplays = 0;  // of those, passes after completions (replayAfterCompletion)
    int startsKept = 0;  // plans whose starts were applied as planned and kept the memo
    // Of the shortcut passes, conservative ones whose submissions all ranked behind the whole
    // last plan (appendLastRanked).
    int lastRankedAppends = 0;
    // Submissions that started at once without a full pass (startSubmissions).
    int startsJudged = 0;
  };
  const Counters& counters() const { return counters_; }
  const SchedulerParams& params() const { return params_; }
  // Bytes of the conservative pass's profile kept in the memo for appendLastRanked (0: none).
  size_t keptProfileBytes() const { return memo_.tail ? memo_.tail->bytes() : 0; }

 private:
  void invalidate() {
    memoValid_ = false;
    memo_.tail.reset();
    awaitingStarts_ = false;
    freed_.clear();
  }
  const ClusterIndex& index();

  Snapshot snap_;
  SchedulerParams params_;
  std::unique_ptr<ClusterIndex> index_;
  PassMemo memo_;
  bool memoValid_ = false;
  Plan plan_;
  std::vector<RankKey> planRanks_;  // rank of each plan_.pending entry, for insertions
  std::vector<int> planJobs_;       // and its index into snap_.pending
  std::vector<size_t> submittedSince_;  // pending positions added since the memo's pass
  // Nodes of running jobs that ended since the memo's pass: the next pass replays it
  // (replayAfterCompletion) instead of running a full one, where that applies.
  std::vector<int> freed_;
  // Removes a running job; returns false when `id` is not running.
  bool endRunning(JobId id);
  void applyDelta(PlanDelta delta, int64_t now);
  // The submissions at `positions` (of snap_.pending), which would not wait, when the memo
  // shows that a full pass would start them all and do nothing else (judgeStartingSubmissions):
  // the plan is the last one plus those starts, whose report then keeps the memo as for a full
  // pass's starts (keepStarts). False: run a full pass.
  bool startSubmissions(int64_t now, const std::vector<size_t>& positions);
  // Conservative submissions all ranked behind the last plan: 1 when appended (appendLastRanked),
  // 0 when that does not apply (memo untouched), -1 when it failed part-way (memo spent).
  int appendLastRanked(int64_t now);
  // The replayed pass's walk (depth, estimates, next boundary) as the memo's, at `now`.
  void adoptReplayedMemo(PlanDelta& delta, int64_t now);
  // When the replayed pass's plan stops holding as time passes (with the memo's begin times).
  int64_t nextBoundaryAfterReplay(int64_t plannedBoundary, int64_t now) const;

  // A plan with starts (a full pass's or a replay's) keeps its memo until the driver reports
  // those starts: planRanks_/planJobs_ still list the started jobs, at startPos_.
  bool awaitingStarts_ = false;
  std::vector<size_t> startPos_;    // ascending positions in planRanks_
  std::vector<char> startApplied_;  // per plan_.starts
  size_t startsLeft_ = 0;
  // Whether a plan's starts can keep the memo under these parameters (FCFS, EASY).
  bool startsKeepable() const;
  void awaitStarts(std::vector<size_t> positions);
  // The last plan's starts all applied as planned: make the memo the next pass's, or drop it.
  void keepStarts();
  Counters counters_;
};

}  // namespace drover::sched
