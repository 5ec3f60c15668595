#pragma once
// One scheduling pass (scheduler.h's schedule and the shortcuts of pass_memo.h) as a class whose
// parts live in files of their own: how a pass sees one pending job (pass_context.cpp), starting
// jobs now (pass_start.cpp), reservations and start estimates (pass_reserve.cpp), the pass and
// the submission shortcuts (pass_run.cpp), the shortcut for submissions that start at once
// (pass_judge_start.cpp), and the replay after completions (pass_replay.cpp).
// Internal to the scheduler: nothing outside src/sched includes it.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sched/cluster_index.h"
#include "sched/constraint.h"
#include "sched/demand.h"
#include "sched/fit_index.h"
#include "sched/pass_memo.h"
#include "sched/profile.h"
#include "sched/scheduler.h"
#include "sched/task_layout.h"

namespace drover::sched::detail {

struct ReplayEdits;  // pass_replay.cpp

// The shape of a request that failed to start now: equal shapes fail again in the same pass.
struct ShapeKey {
  int partition, nodes, cpus, gpus;
  int64_t memoryMb;
  bool wholeNode, allMemory;
  const std::string* gpuType;
  const std::string* constraint;
  TaskShape task;
  bool operator==(const ShapeKey& o) const {
    return partition == o.partition && nodes == o.nodes && cpus == o.cpus && gpus == o.gpus &&
           memoryMb == o.memoryMb && wholeNode == o.wholeNode && allMemory == o.allMemory &&
           *gpuType == *o.gpuType &&
           *constraint == *o.constraint && task == o.task;
  }
};
struct ShapeHash {
  size_t operator()(const ShapeKey& k) const {
    size_t h = std::hash<std::string>()(*k.constraint) ^ std::hash<std::string>()(*k.gpuType);
    const TaskShape& t = k.task;
    for (int64_t v : {int64_t{k.partition}, int64_t{k.nodes}, int64_t{k.cpus}, int64_t{k.gpus},
                      k.memoryMb, int64_t{k.wholeNode} << 1 | int64_t{k.allMemory},
                      int64_t{t.tasks}, int64_t{t.maxNodes},
                      int64_t{t.cpusPerTask}, int64_t{t.cpusPerGpu}, int64_t{t.gpusPerTask},
                      t.memPerCpuMb, t.memPerGpuMb}) {
      h = h * 1000003u ^ std::hash<int64_t>()(v);
    }
    return h;
  }
};

// One pending job as the pass sees it.
struct JobCtx {
  const Job* job = nullptr;
  int partition = -1;
  Demand demand;
  int64_t duration = 0;
  const Constraint* constraint = nullptr;
  std::vector<int> required;
  std::vector<int> excluded;  // sorted
  int reservation = -1;       // index into Pass::resv_ when the job runs in an advance reservation
  int maxNodes = 0;           // a start now may take up to this many nodes (-N min-max)
  // Its tasks are laid out at start (task_layout.h) and no node is required: it may start on
  // any nodes holding one task each (walkNodes), up to `walkMaxNodes` of them, which is what
  // `oneTask` asks of a node. Without -N (`walkFewest`) it takes the fewest nodes that hold its
  // tasks, at least the count its CPUs need, as the reference Slurm did (`-n 20` with node01
  // holding 4: node01-02 at 4,16; with every node half busy: three nodes, 8,8,4); a job that
  // fits one node keeps the best-fit choice of one node. Reservations keep the even share of
  // `demand`.
  bool walked = false;
  bool walkFewest = false;
  int walkMaxNodes = 0;
  Capacity oneTask;
};

// An advance reservation as a pass sees it: its nodes, and a profile of its own in which the
// nodes are free only inside [start, end). The main profile holds the same nodes whole over
// [start, end), so other work is kept out and reservation jobs never meet outside work.
struct ReservationState {
  const AdvanceReservation* res = nullptr;
  std::vector<int> nodes;  // hostlist order
  std::unique_ptr<AvailabilityProfile> profile;
};

class Pass {
 public:
  Pass(const ClusterIndex& index, const Snapshot& s, const SchedulerParams& p, int64_t now)
      : index_(index), snap_(s), params_(p), now_(now), profile_(now, index.totals()) {}

  Plan run(PassMemo* memo = nullptr);
  // The submission shortcut of pass_memo.h; the pass object is used only for its checks.
  std::optional<PendingInfo> judge(const PassMemo& memo, const Job& job, bool& skipped,
                                   OwnedShape* shape, int64_t* duration);
  // The submission shortcut for jobs that start at once (judgeStartingSubmissions in
  // pass_memo.h; pass_judge_start.cpp).
  std::optional<std::vector<Start>> judgeStarts(const PassMemo& memo,
                                                const std::vector<const Job*>& starting,
                                                const Plan& last, const std::vector<RankKey>& ranks,
                                                const std::vector<int>& jobs);
  // The pass after completions, from the memo's pass (replayAfterCompletion in pass_memo.h).
  std::optional<PlanDelta> replay(const PassMemo& memo, const std::vector<int>& freed,
                                  const Plan& last, const std::vector<RankKey>& ranks,
                                  const std::vector<int>& jobs);
  // Whether each of `holders` (pending index and its plan entry, in rank order) gets the same
  // reservation as in that entry when searched in turn on the running jobs alone
  // (reservationsStand in pass_memo.h).
  bool reservationsStand(const std::vector<std::pair<int, const PendingInfo*>>& holders,
                         const std::vector<std::vector<int>>& nodesBehind);
  // The conservative submission shortcut (appendLastRanked in pass_memo.h).
  bool appendLast(PassMemo& memo, const std::vector<int>& jobs, Plan& plan);

 private:
  // replay's start estimates, after its walk (`walkedBlocked`: the blocked jobs it visited;
  // `oldHolder`: per partition, the memo's reservation holder); false: no replay.
  bool replayEstimates(const PassMemo& memo, ReplayEdits& ed, const std::vector<int>& jobs,
                       const std::vector<size_t>& walkedBlocked,
                       const std::vector<size_t>& oldHolder, int estDepth, PlanDelta& out);
  bool holdersUnmoved(const std::vector<std::pair<int, const PendingInfo*>>& holders,
                      const std::vector<std::vector<int>>& nodesBehind);
  OwnedShape owned(const ShapeKey& k) const {
    return OwnedShape{k.partition, k.nodes,     k.cpus,     k.gpus,        k.memoryMb,
                      k.wholeNode, k.allMemory, *k.gpuType, *k.constraint, k.task};
  }

  void prepare();
  void bucketUpdate(int node);
  // Reasons from the job's own state alone (holds, dependencies, begin time): the same in
  // every partition it may run in.
  Reason waitReason(const JobRequest& r) const;
  // A job that, once it may run, is tried in other partitions or on other features than its
  // entry's (PassMemo::alternatives).
  bool triesAlternatives(const JobRequest& r) const {
    return (r.partitions.size() > 1 || !r.prefer.empty()) && waitReason(r) == Reason::None;
  }
  // One of those whose turn tries each of its partitions (startInListedPartition).
  bool triesListed(const JobRequest& r) const {
    return r.partitions.size() > 1 && r.reservation.empty() && waitReason(r) == Reason::None;
  }
  // Those, then reasons from the state of `partition` (the job's, or one of the several it
  // lists); sets ctx.partition.
  Reason staticReason(const Job& job, JobCtx& ctx, const std::string& partition);
  Reason staticReason(const Job& job, JobCtx& ctx) {
    return staticReason(job, ctx, job.request.partition);
  }
  // Reasons from the request's shape against partition limits; fills the rest of ctx.
  Reason shapeReason(const Job& job, JobCtx& ctx);
  // The context of the pending job at `idx` (Snapshot::pending) when neither of those reasons
  // keeps it waiting; false when one does, or no job is there.
  bool runnableContext(int idx, JobCtx& ctx) {
    if (idx < 0 || idx >= static_cast<int>(snap_.pending.size())) return false;
    const Job& job = snap_.pending[idx];
    ctx.job = &job;
    return staticReason(job, ctx) == Reason::None && shapeReason(job, ctx) == Reason::None;
  }
  Capacity needOn(const JobCtx& ctx, int node) const;
  // What `tasks` of a laid-out job's tasks hold of `node` among `nodes` (shareForTasks, onNode).
  Capacity tasksOn(const JobCtx& ctx, int tasks, int nodes, int node) const {
    return onNode(shareForTasks(ctx.job->request, tasks, nodes), ctx.demand.allMemory,
                  profile_.total(node));
  }
  // What the job needs of a node to start on it now: needOn, or one task of a walked job.
  Capacity startNeed(const JobCtx& ctx, int node) const;
  // The GPUs of the job's type a node must have free to start it: its share's, never the whole
  // node an --exclusive job holds.
  static int startGpus(const JobCtx& ctx) {
    return ctx.walked ? ctx.oneTask.gpus : ctx.demand.perNode.gpus;
  }
  // The node's partition, state, features and excluded list allow the job, and it has at least
  // `gpus` GPUs of the job's type.
  bool eligibleWith(const JobCtx& ctx, int node, int gpus) const;
  bool eligible(const JobCtx& ctx, int node) const {
    return eligibleWith(ctx, node, ctx.demand.perNode.gpus);
  }
  // The nodes of the job's partition it is eligible for, in hostlist order: what a
  // reservation search looks at.
  std::vector<int> eligibleNodes(const JobCtx& ctx) const;
  // The job may start now with `node` among its nodes: eligible, and startNeed fits there for
  // the job's whole run.
  bool startsOn(const JobCtx& ctx, int node) const;
  // How many of a walked job's tasks `node` holds from now until `end` (0: not one).
  int taskRoom(const JobCtx& ctx, int node, const AvailabilityProfile& profile, int64_t end) const;
  std::vector<int> chooseNodes(const JobCtx& ctx, std::vector<int> candidates) const;
  // Eligible nodes on which startsOn holds, found through the free-GPU buckets.
  std::vector<int> startCandidates(const JobCtx& ctx);
  bool tryStartNow(const JobCtx& ctx, Plan& plan);
  // tryStartNow, for a job with preferred features (JobRequest::prefer) first on nodes that
  // have them, in place of its constraint (sbatch(1) --prefer); such a start is
  // Start::preferred. For any other job, tryStartNow.
  bool tryStartPreferring(const JobCtx& ctx, Plan& plan);
  // The parsed form of a feature expression, kept for the pass; nullptr when it does not parse.
  const Constraint* constraintFor(const std::string& text);
  // A job of several partitions (JobRequest::partitions) in its turn, past waitReason: starts it
  // in the first of them, in their order, that can start it now (true). Else leaves in `ctx` the
  // context of the one that allows it with the earliest start (the first on a tie), or, when
  // none allows it, the first one's reason in `why`.
  // Under FCFS a partition that already has a blocked job is closed to it, as to any job.
  bool startInListedPartition(const Job& job, const std::vector<char>& blocked, Plan& plan,
                              JobCtx& ctx, Reason& why);
  bool tryStartWalked(const JobCtx& ctx, Plan& plan);
  bool reserve(const JobCtx& ctx, PendingInfo& info);
  // The start reserve() would claim for a job outside advance reservations, and the nodes it
  // would take (in `chosen`), without claiming them; kNever when there is none.
  int64_t earliestStart(const JobCtx& ctx, std::vector<int>& chosen);
  // The same search through `fi` on `profile` (a FitIndex of the job's shape built on it).
  int64_t earliestIndexed(const JobCtx& ctx, FitIndex& fi, const AvailabilityProfile& profile,
                          std::vector<int>& chosen) const;
  // Claims `nodes` for the job from `t` in `profile` and names them in info.plannedNodes.
  void claimAt(const JobCtx& ctx, int64_t t, const std::vector<int>& nodes,
               AvailabilityProfile& profile, PendingInfo& info) const;
  bool reserveOn(const JobCtx& ctx, PendingInfo& info, const std::vector<int>& nodes,
                 AvailabilityProfile& profile);
  // The earliest start reserveOn would claim on `nodes`, and the nodes it would choose in
  // `chosen`; kNever when there is none (within the reservation horizon).
  int64_t earliestOn(const JobCtx& ctx, const std::vector<int>& nodes,
                     const AvailabilityProfile& profile, std::vector<int>& chosen) const;
  void commitNow(const JobCtx& ctx, std::vector<int> chosen, AvailabilityProfile& profile,
                 Plan& plan);
  // Tasks per chosen node (in node order) when the job's tasks are laid out at start
  // (sched/task_layout.h); empty when each node takes the even share.
  std::vector<int> layTasks(const JobCtx& ctx, const std::vector<int>& chosen,
                            const AvailabilityProfile& profile, int64_t end) const;
  void prepareReservations();
  bool tryStartInReservation(const JobCtx& ctx, Plan& plan);
  std::vector<int> reservationNodes(const JobCtx& ctx) const;
  ShapeKey shapeKey(const JobCtx& ctx) const;
  using FitIndexes =
      std::unordered_map<ShapeKey, std::vector<std::pair<int64_t, std::unique_ptr<FitIndex>>>,
                         ShapeHash>;
  // The probe duration for a job's FitIndex (see probes_).
  int64_t probeFor(int partition, int64_t duration) const;
  void prepareProbes();
  FitIndex& fitIndex(const JobCtx& ctx, const AvailabilityProfile& profile, FitIndexes& map);
  void estimateStarts(std::vector<std::pair<JobCtx, size_t>>& jobs, Plan& plan,
                      std::vector<EstimateRecord>* records = nullptr);
  // The shape without its node count and task shape: what a FitIndex depends on.
  ShapeKey fitKey(const JobCtx& ctx) const {
    ShapeKey k = shapeKey(ctx);
    k.nodes = 0;
    k.task = {};
    return k;
  }
  bool reuseSearch(const JobCtx& ctx, int64_t oldStart, const std::vector<int>& oldNodes,
                   const AvailabilityProfile& profile, const std::vector<int>& dirty,
                   const std::vector<char>& isDirty, int64_t& t, std::vector<int>& nodes) const;
  // The longest duration startNeed fits on the node from now (-1: it does not fit now).
  int64_t freeReach(const JobCtx& ctx, int node) const;
  // Claims the earliest start found through `fi` on `profile`; returns it, or kNever.
  int64_t reserveIndexed(const JobCtx& ctx, PendingInfo& info, FitIndex& fi,
                         AvailabilityProfile& profile, std::vector<int>* chosenOut = nullptr);

  const ClusterIndex& index_;
  const Snapshot& snap_;
  const SchedulerParams& params_;
  int64_t now_;
  AvailabilityProfile profile_;
  std::vector<uint64_t> freeGpuMask_;  // GPU indices free now, per node
  // Nodes with free CPUs now, by free GPU count. Entries go stale when a node moves; a node's
  // live bucket is nodeBucket_[node] and scans skip the rest, so a move costs O(1).
  std::vector<std::vector<int>> buckets_;
  std::vector<int> nodeBucket_;
  std::vector<int> seen_;  // scan stamp per node, so duplicate bucket entries count once
  int scan_ = 0;
  std::vector<ReservationState> resv_;
  std::string lastPartName_;
  int lastPart_ = -1;
  int maxGpus_ = 0;
  std::unordered_map<std::string, Constraint> constraints_;
  // Reservation search indexes per request shape, one per probe duration class.
  FitIndexes fitIndexes_;
  std::unordered_map<ShapeKey, int, ShapeHash> exhaustiveSearches_;
  // Per partition and power-of-two duration class, the shortest duration of any queued job in
  // it: the probe of the class's FitIndexes. It is no longer than any job using the index, so
  // bounds stay lower bounds, and as close to their durations as the queue allows: the closer,
  // the fewer nodes a search visits whose early holes are too short (equal when the class holds
  // one duration, as with hourly limits). Keys are (partition, class).
  std::unordered_map<int64_t, int64_t> probes_;
  bool probesReady_ = false;
};

// Asked for every node a pass looks at: defined here so that every part of the pass inlines them.
inline Capacity Pass::needOn(const JobCtx& ctx, int node) const {
  return needOnNode(ctx.demand, profile_.total(node));
}

inline Capacity Pass::startNeed(const JobCtx& ctx, int node) const {
  // ctx.oneTask is tasksOn(ctx, 1, ...) without the node's memory, computed once per job.
  return ctx.walked ? onNode(ctx.oneTask, ctx.demand.allMemory, profile_.total(node))
                    : needOn(ctx, node);
}

inline bool Pass::eligibleWith(const JobCtx& ctx, int node, int gpus) const {
  if (!snap_.nodes[node].usable) return false;
  if (!index_.inPartition(node, ctx.partition)) return false;
  if (!ctx.excluded.empty() && std::binary_search(ctx.excluded.begin(), ctx.excluded.end(), node))
    return false;
  if (ctx.constraint && !ctx.constraint->matches(index_.features(node))) return false;
  if (!ctx.demand.gpuType.empty() && gpus > 0 &&
      std::popcount(index_.gpuMask(node, ctx.demand.gpuType)) < gpus)
    return false;
  return true;
}

inline bool Pass::startsOn(const JobCtx& ctx, int node) const {
  const int gpus = startGpus(ctx);
  if (!eligibleWith(ctx, node, gpus)) return false;
  if (!profile_.fits(node, startNeed(ctx, node), now_, ctx.duration)) return false;
  if (!ctx.demand.gpuType.empty() && gpus > 0) {
    uint64_t free = freeGpuMask_[node] & index_.gpuMask(node, ctx.demand.gpuType);
    if (std::popcount(free) < gpus) return false;
  }
  return true;
}

}  // namespace drover::sched::detail
