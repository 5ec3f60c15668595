#include "sched/scheduler.h"

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "sched/cluster_index.h"
#include "sched/constraint.h"
#include "sched/demand.h"
#include "sched/fit_index.h"
#include "sched/pass_memo.h"
#include "sched/profile.h"
#include "sched/task_layout.h"

namespace drover::sched {

namespace {

// The shape of a request that failed to start now: equal shapes fail again in the same pass.
struct ShapeKey {
  int partition, nodes, cpus, gpus;
  int64_t memoryMb;
  bool wholeNode;
  const std::string* gpuType;
  const std::string* constraint;
  TaskShape task;
  bool operator==(const ShapeKey& o) const {
    return partition == o.partition && nodes == o.nodes && cpus == o.cpus && gpus == o.gpus &&
           memoryMb == o.memoryMb && wholeNode == o.wholeNode && *gpuType == *o.gpuType &&
           *constraint == *o.constraint && task == o.task;
  }
};
struct ShapeHash {
  size_t operator()(const ShapeKey& k) const {
    size_t h = std::hash<std::string>()(*k.constraint) ^ std::hash<std::string>()(*k.gpuType);
    const TaskShape& t = k.task;
    for (int64_t v : {int64_t{k.partition}, int64_t{k.nodes}, int64_t{k.cpus}, int64_t{k.gpus},
                      k.memoryMb, int64_t{k.wholeNode}, int64_t{t.tasks}, int64_t{t.maxNodes},
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

// Prefer the smallest run of adjacent free GPUs that holds the request, so pairs and quads
// stay together and large runs stay whole; otherwise the lowest free indices.
std::vector<int> pickGpus(uint64_t free, int count) {
  std::vector<int> out;
  if (count <= 0) return out;
  int bestStart = -1, bestLen = 65;
  for (int i = 0; i < 64;) {
    if (!(free >> i & 1)) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 64 && (free >> j & 1)) ++j;
    int len = j - i;
    if (len >= count && len < bestLen) {
      bestLen = len;
      bestStart = i;
    }
    i = j;
  }
  if (bestStart >= 0) {
    for (int k = 0; k < count; ++k) out.push_back(bestStart + k);
    return out;
  }
  for (int i = 0; i < 64 && static_cast<int>(out.size()) < count; ++i) {
    if (free >> i & 1) out.push_back(i);
  }
  return out;
}

class Pass {
 public:
  Pass(const ClusterIndex& index, const Snapshot& s, const SchedulerParams& p, int64_t now)
      : index_(index), snap_(s), params_(p), now_(now), profile_(now, index.totals()) {}

  Plan run(PassMemo* memo = nullptr);
  // The submission shortcut of pass_memo.h; the pass object is used only for its checks.
  std::optional<PendingInfo> judge(const PassMemo& memo, const Job& job, bool& skipped,
                                   OwnedShape* shape, int64_t* duration);
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
  bool holdersUnmoved(const std::vector<std::pair<int, const PendingInfo*>>& holders,
                      const std::vector<std::vector<int>>& nodesBehind);
  OwnedShape owned(const ShapeKey& k) const {
    return OwnedShape{k.partition, k.nodes,   k.cpus,        k.gpus, k.memoryMb,
                      k.wholeNode, *k.gpuType, *k.constraint, k.task};
  }

  void prepare();
  void bucketUpdate(int node);
  // Reasons from the job's own state and its partition's state; sets ctx.partition.
  Reason staticReason(const Job& job, JobCtx& ctx);
  // Reasons from the request's shape against partition limits; fills the rest of ctx.
  Reason shapeReason(const Job& job, JobCtx& ctx);
  Capacity needOn(const JobCtx& ctx, int node) const;
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
  // The job may start now with `node` among its nodes: eligible, and startNeed fits there for
  // the job's whole run.
  bool startsOn(const JobCtx& ctx, int node) const;
  // How many of a walked job's tasks `node` holds from now until `end` (0: not one).
  int taskRoom(const JobCtx& ctx, int node, const AvailabilityProfile& profile, int64_t end) const;
  std::vector<int> chooseNodes(const JobCtx& ctx, std::vector<int> candidates) const;
  // Eligible nodes on which startsOn holds, found through the free-GPU buckets.
  std::vector<int> startCandidates(const JobCtx& ctx);
  bool tryStartNow(const JobCtx& ctx, Plan& plan);
  bool tryStartWalked(const JobCtx& ctx, Plan& plan);
  bool reserve(const JobCtx& ctx, PendingInfo& info);
  bool reserveOn(const JobCtx& ctx, PendingInfo& info, const std::vector<int>& nodes,
                 AvailabilityProfile& profile);
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

void Pass::prepare() {
  const int n = index_.nodeCount();
  maxGpus_ = index_.maxGpus();
  freeGpuMask_.resize(n);
  for (int i = 0; i < n; ++i) freeGpuMask_[i] = index_.gpuMask(i, "");
  for (const RunningJob& r : snap_.running) {
    for (const NodeAllocation& a : r.allocation.nodes) {
      int node = a.nodeIndex;
      if (node < 0 || node >= n || snap_.nodes[node].name != a.node) node = index_.node(a.node);
      if (node < 0) continue;
      profile_.addRunning(node, Capacity{a.cpus, a.memoryMb, static_cast<int>(a.gpus.size())},
                          r.expectedEnd);
      for (int g : a.gpus) {
        if (g >= 0 && g < 64) freeGpuMask_[node] &= ~(uint64_t{1} << g);
      }
    }
  }
  prepareReservations();
  buckets_.assign(maxGpus_ + 1, {});
  nodeBucket_.assign(n, -1);
  seen_.assign(n, 0);
  for (int i = 0; i < n; ++i) bucketUpdate(i);
}

void Pass::bucketUpdate(int node) {
  const Capacity& f = profile_.freeNow(node);
  int b = (!snap_.nodes[node].usable || f.cpus <= 0) ? -1 : std::clamp(f.gpus, 0, maxGpus_);
  if (b == nodeBucket_[node]) return;
  nodeBucket_[node] = b;
  if (b >= 0) buckets_[b].push_back(node);
}

Capacity Pass::needOn(const JobCtx& ctx, int node) const {
  return ctx.demand.wholeNode ? profile_.total(node) : ctx.demand.perNode;
}

Capacity Pass::startNeed(const JobCtx& ctx, int node) const {
  return ctx.walked ? ctx.oneTask : needOn(ctx, node);
}

bool Pass::eligibleWith(const JobCtx& ctx, int node, int gpus) const {
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

bool Pass::startsOn(const JobCtx& ctx, int node) const {
  const int gpus = startGpus(ctx);
  if (!eligibleWith(ctx, node, gpus)) return false;
  if (!profile_.fits(node, startNeed(ctx, node), now_, ctx.duration)) return false;
  if (!ctx.demand.gpuType.empty() && gpus > 0) {
    uint64_t free = freeGpuMask_[node] & index_.gpuMask(node, ctx.demand.gpuType);
    if (std::popcount(free) < gpus) return false;
  }
  return true;
}

int Pass::taskRoom(const JobCtx& ctx, int node, const AvailabilityProfile& profile,
                   int64_t end) const {
  const JobRequest& r = ctx.job->request;
  const Capacity free = profile.minFree(node, now_, end);
  const int typed = ctx.demand.gpuType.empty()
                        ? -1
                        : std::popcount(freeGpuMask_[node] & index_.gpuMask(node, ctx.demand.gpuType));
  auto holds = [&](int tasks) {
    const Capacity need = shareForTasks(r, tasks, ctx.demand.nodes);
    return free.covers(need) && (typed < 0 || typed >= need.gpus);
  };
  if (!holds(1)) return 0;
  int lo = 1, hi = std::max(1, r.ntasks);
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// Picks ctx.demand.nodes of the candidates: required nodes first, then for one node the best fit
// (lowest weight, fewest free GPUs, fewest free CPUs), for several the window in hostlist order
// with the lowest total weight and the smallest span.
std::vector<int> Pass::chooseNodes(const JobCtx& ctx, std::vector<int> cands) const {
  std::vector<int> chosen;
  for (int r : ctx.required) {
    if (std::find(cands.begin(), cands.end(), r) == cands.end()) return {};
    chosen.push_back(r);
  }
  int want = ctx.demand.nodes - static_cast<int>(chosen.size());
  if (want <= 0) return chosen;
  std::erase_if(cands, [&](int c) {
    return std::find(chosen.begin(), chosen.end(), c) != chosen.end();
  });
  if (static_cast<int>(cands.size()) < want) return {};
  if (want == 1) {
    auto key = [&](int i) {
      const Capacity& f = profile_.freeNow(i);
      return std::tuple(snap_.nodes[i].weight, f.gpus, f.cpus, snap_.nodes[i].index);
    };
    chosen.push_back(*std::min_element(cands.begin(), cands.end(),
                                       [&](int a, int b) { return key(a) < key(b); }));
    return chosen;
  }
  std::sort(cands.begin(), cands.end(),
            [&](int a, int b) { return snap_.nodes[a].index < snap_.nodes[b].index; });
  std::vector<int64_t> prefix(cands.size() + 1, 0);
  for (size_t i = 0; i < cands.size(); ++i) prefix[i + 1] = prefix[i] + snap_.nodes[cands[i]].weight;
  size_t best = 0;
  std::pair<int64_t, int> bestKey{INT64_MAX, INT32_MAX};
  for (size_t i = 0; i + want <= cands.size(); ++i) {
    std::pair<int64_t, int> k{prefix[i + want] - prefix[i],
                              snap_.nodes[cands[i + want - 1]].index - snap_.nodes[cands[i]].index};
    if (k < bestKey) {
      bestKey = k;
      best = i;
    }
  }
  chosen.insert(chosen.end(), cands.begin() + best, cands.begin() + best + want);
  return chosen;
}

std::vector<int> Pass::startCandidates(const JobCtx& ctx) {
  std::vector<int> cands;
  const int lowest = ctx.demand.wholeNode ? 0 : startGpus(ctx);
  const bool single = ctx.maxNodes <= 1 && ctx.required.empty();
  ++scan_;
  for (int b = std::min(lowest, maxGpus_ + 1); b <= maxGpus_; ++b) {
    for (int node : buckets_[b]) {
      if (nodeBucket_[node] != b || seen_[node] == scan_) continue;
      seen_[node] = scan_;
      if (startsOn(ctx, node)) cands.push_back(node);
    }
    // Buckets rise in free GPUs, so with equal weights the first bucket that fits is the best.
    if (single && index_.uniformWeight() && !cands.empty()) break;
  }
  return cands;
}

bool Pass::tryStartNow(const JobCtx& ctx, Plan& plan) {
  if (ctx.walked && ctx.walkFewest && ctx.demand.nodes == 1) {
    JobCtx one = ctx;
    one.walked = false;
    return tryStartNow(one, plan) || tryStartWalked(ctx, plan);
  }
  if (ctx.walked) return tryStartWalked(ctx, plan);
  std::vector<int> cands;
  for (int r : ctx.required) {
    if (!startsOn(ctx, r)) return false;
    cands.push_back(r);
  }
  if (static_cast<int>(ctx.required.size()) < ctx.demand.nodes) {
    std::vector<int> more = startCandidates(ctx);
    cands.insert(cands.end(), more.begin(), more.end());
  }
  std::vector<int> chosen;
  if (ctx.maxNodes > ctx.demand.nodes && static_cast<int>(cands.size()) > ctx.demand.nodes) {
    // Every candidate fits for the job's whole run (startsOn asks the profile, reservations
    // included), so taking more of them delays nobody.
    JobCtx wide = ctx;
    wide.demand.nodes = std::min(ctx.maxNodes, static_cast<int>(cands.size()));
    chosen = chooseNodes(wide, std::move(cands));
  } else {
    chosen = chooseNodes(ctx, std::move(cands));
  }
  if (chosen.empty()) return false;
  commitNow(ctx, std::move(chosen), profile_, plan);
  return true;
}

// Through walkNodes, the lightest nodes first (as Slurm fills the lowest weight first), then in
// hostlist order. Any nodes that hold the tasks between them can be laid out in hostlist order
// (blockLayout), so commitNow lays them out afresh.
bool Pass::tryStartWalked(const JobCtx& ctx, Plan& plan) {
  std::vector<int> cands = startCandidates(ctx);
  if (static_cast<int>(cands.size()) < ctx.demand.nodes) return false;
  std::sort(cands.begin(), cands.end(), [&](int a, int b) {
    return std::pair(snap_.nodes[a].weight, snap_.nodes[a].index) <
           std::pair(snap_.nodes[b].weight, snap_.nodes[b].index);
  });
  const int64_t end = ctx.duration >= kNever - now_ ? kNever : now_ + ctx.duration;
  std::vector<int> rooms(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) rooms[i] = taskRoom(ctx, cands[i], profile_, end);
  const JobRequest& r = ctx.job->request;
  std::vector<int> chosen;
  // A -N range takes as many nodes as it can; without -N, the fewest that hold the tasks.
  const int most = ctx.walkFewest
                       ? fewestNodesHolding(r.ntasks, ctx.demand.nodes, ctx.walkMaxNodes, rooms)
                       : ctx.walkMaxNodes;
  if (most == 0) return false;
  for (int at : walkNodes(r.ntasks, std::max(1, r.minNodes), ctx.demand.nodes, most, rooms,
                          !ctx.walkFewest)) {
    chosen.push_back(cands[static_cast<size_t>(at)]);
  }
  if (chosen.empty()) return false;
  commitNow(ctx, std::move(chosen), profile_, plan);
  return true;
}

void Pass::commitNow(const JobCtx& ctx, std::vector<int> chosen, AvailabilityProfile& profile,
                     Plan& plan) {
  Start start;
  start.id = ctx.job->id;
  start.endTime = ctx.duration >= kNever - now_ ? kNever : now_ + ctx.duration;
  std::sort(chosen.begin(), chosen.end(),
            [&](int a, int b) { return snap_.nodes[a].index < snap_.nodes[b].index; });
  const std::vector<int> tasks = layTasks(ctx, chosen, profile, start.endTime);
  for (size_t k = 0; k < chosen.size(); ++k) {
    const int node = chosen[k];
    Capacity need = tasks.empty() ? needOn(ctx, node)
                                  : shareForTasks(ctx.job->request, tasks[k],
                                                  static_cast<int>(chosen.size()));
    NodeAllocation a;
    a.node = snap_.nodes[node].name;
    a.nodeIndex = node;
    a.cpus = need.cpus;
    if (!tasks.empty()) a.tasks = tasks[k];
    // The profile holds the whole node; the allocation records what Slurm would (demand.h).
    a.memoryMb = ctx.demand.wholeNode ? wholeNodeMemoryMb(ctx.job->request, need) : need.memoryMb;
    uint64_t free = freeGpuMask_[node];
    if (!ctx.demand.wholeNode) free &= index_.gpuMask(node, ctx.demand.gpuType);
    a.gpus = pickGpus(free, need.gpus);
    for (int g : a.gpus) freeGpuMask_[node] &= ~(uint64_t{1} << g);
    profile.claim(node, need, now_, start.endTime);
    bucketUpdate(node);
    start.allocation.nodes.push_back(std::move(a));
  }
  plan.starts.push_back(std::move(start));
}

std::vector<int> Pass::layTasks(const JobCtx& ctx, const std::vector<int>& chosen,
                                const AvailabilityProfile& profile, int64_t end) const {
  const JobRequest& r = ctx.job->request;
  const int nodes = static_cast<int>(chosen.size());
  if (!laysOutTasks(r, nodes, ctx.demand.wholeNode)) return {};
  // What stays free on each node until the job's end: claims made for reservations of jobs
  // ahead (and advance reservations) bound a node's share as much as what runs there now.
  std::vector<int> room(chosen.size());
  for (size_t k = 0; k < chosen.size(); ++k) room[k] = taskRoom(ctx, chosen[k], profile, end);
  // Slurm keeps a task for each later node up to the -N minimum the user gave (1 without).
  return blockLayout(r.ntasks, nodes, std::max(1, r.minNodes),
                     [&](int k, int t) { return t <= room[static_cast<size_t>(k)]; });
}

// Finds the earliest time the job fits and claims it in the profile, so lower-priority work
// cannot take it. Each node reports its own earliest fit; the k-th smallest is a lower bound on
// the start, and nodes that cannot hold the job at that bound move on until k of them can.
bool Pass::reserve(const JobCtx& ctx, PendingInfo& info) {
  if (ctx.reservation >= 0) {
    return reserveOn(ctx, info, reservationNodes(ctx), *resv_[ctx.reservation].profile);
  }
  std::vector<int> nodes;
  if (!ctx.required.empty() && ctx.demand.nodes <= static_cast<int>(ctx.required.size())) {
    nodes = ctx.required;
    return reserveOn(ctx, info, nodes, profile_);
  }
  // An index costs about one search over every node to build, so the first search of a shape
  // in a pass (often the only one, under EASY) asks every node; later ones use the index.
  const bool indexable = params_.indexedReserveSearch && ctx.required.empty() &&
                         ctx.excluded.empty() && exhaustiveSearches_[fitKey(ctx)]++ > 0;
  if (indexable) {
    int64_t t = reserveIndexed(ctx, info, fitIndex(ctx, profile_, fitIndexes_), profile_);
    if (t == kNever) return false;
    info.expectedStart = t;
    return true;
  }
  for (int node : index_.partitionNodes(ctx.partition)) {
    if (eligible(ctx, node)) nodes.push_back(node);
  }
  return reserveOn(ctx, info, nodes, profile_);
}

FitIndex& Pass::fitIndex(const JobCtx& ctx, const AvailabilityProfile& profile, FitIndexes& map) {
  // Built on the first index: FCFS and EASY passes (one search per partition) never need it.
  if (!probesReady_) {
    prepareProbes();
    probesReady_ = true;
  }
  auto& perProbe = map[fitKey(ctx)];
  const int64_t probe = probeFor(ctx.partition, ctx.duration);
  for (auto& [p, fi] : perProbe) {
    if (p == probe) return *fi;
  }
  std::vector<int> nodes;
  for (int node : index_.partitionNodes(ctx.partition)) {
    if (eligible(ctx, node)) nodes.push_back(node);
  }
  perProbe.emplace_back(probe, std::make_unique<FitIndex>(profile, nodes, ctx.demand.perNode,
                                                          ctx.demand.wholeNode, probe));
  return *perProbe.back().second;
}

int64_t Pass::probeFor(int partition, int64_t duration) const {
  const int64_t cls = FitIndex::durationClass(duration);
  auto it = probes_.find(int64_t{partition} << 7 | std::countr_zero(static_cast<uint64_t>(cls)));
  return it == probes_.end() || it->second > duration ? cls : it->second;
}

void Pass::prepareProbes() {
  for (const Job& job : snap_.pending) {
    const int p = index_.partition(job.request.partition);
    if (p < 0) continue;
    const Partition& part = snap_.partitions[p];
    // The duration shapeReason gives the job.
    const int64_t d = job.request.timeLimitS > 0 ? job.request.timeLimitS
                      : part.defaultTimeS > 0    ? part.defaultTimeS
                      : part.maxTimeS > 0        ? part.maxTimeS
                                                 : params_.defaultTimeLimitS;
    const int64_t cls = FitIndex::durationClass(d);
    const int64_t key = int64_t{p} << 7 | std::countr_zero(static_cast<uint64_t>(cls));
    auto [it, fresh] = probes_.emplace(key, d);
    if (!fresh) it->second = std::min(it->second, d);
  }
}

int64_t Pass::reserveIndexed(const JobCtx& ctx, PendingInfo& info, FitIndex& fi,
                             AvailabilityProfile& profile, std::vector<int>* chosenOut) {
  std::vector<int> ready;
  const int64_t latest = params_.reserveHorizonS > 0 ? now_ + params_.reserveHorizonS : kNever;
  int64_t t = fi.earliestStart(profile, ctx.demand.nodes, ctx.duration, ready, latest);
  if (t == kNever) return kNever;
  std::vector<int> chosen = chooseNodes(ctx, std::move(ready));
  if (chosen.empty()) return kNever;
  int64_t end = ctx.duration >= kNever - t ? kNever : t + ctx.duration;
  for (int node : chosen) {
    profile.claim(node, needOn(ctx, node), t, end);
    info.plannedNodes.push_back(snap_.nodes[node].name);
  }
  if (chosenOut) *chosenOut = std::move(chosen);
  return t;
}

// Start estimates for blocked jobs without a reservation: the same search as conservative
// backfill, in priority order, on a copy of the profile, so no estimate constrains the plan.
void Pass::estimateStarts(std::vector<std::pair<JobCtx, size_t>>& jobs, Plan& plan,
                          std::vector<EstimateRecord>* records) {
  if (jobs.empty()) return;
  AvailabilityProfile scratch = profile_;
  FitIndexes indexes;
  PendingInfo unused;
  std::vector<int> chosen;
  for (auto& [ctx, pos] : jobs) {
    chosen.clear();
    unused.plannedNodes.clear();
    int64_t t = reserveIndexed(ctx, unused, fitIndex(ctx, scratch, indexes), scratch, &chosen);
    if (t != kNever) {
      plan.pending[pos].estimatedStart = t;
      plan.pending[pos].plannedNodes = std::move(unused.plannedNodes);  // SchedNodeList
    }
    if (records) {
      records->push_back(EstimateRecord{rankOf(index_, snap_, *ctx.job),
                                        static_cast<int>(ctx.job - snap_.pending.data()), t,
                                        t == kNever ? std::vector<int>{} : chosen});
    }
  }
}

bool Pass::reserveOn(const JobCtx& ctx, PendingInfo& info, const std::vector<int>& nodes,
                     AvailabilityProfile& profile) {
  const int k = ctx.demand.nodes;
  if (static_cast<int>(nodes.size()) < k) return false;
  std::vector<int64_t> fit(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    fit[i] = profile.earliestFit(nodes[i], needOn(ctx, nodes[i]), now_, ctx.duration);
  }
  std::vector<int64_t> scratch;
  while (true) {
    scratch = fit;
    std::nth_element(scratch.begin(), scratch.begin() + (k - 1), scratch.end());
    int64_t t = scratch[k - 1];
    if (t == kNever) return false;
    if (params_.reserveHorizonS > 0 && t > now_ + params_.reserveHorizonS) return false;
    std::vector<int> ready;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (fit[i] > t) continue;
      if (fit[i] == t || profile.fits(nodes[i], needOn(ctx, nodes[i]), t, ctx.duration)) {
        ready.push_back(nodes[i]);
      } else {
        fit[i] = profile.earliestFit(nodes[i], needOn(ctx, nodes[i]), t, ctx.duration);
      }
    }
    if (static_cast<int>(ready.size()) < k) continue;
    std::vector<int> chosen = chooseNodes(ctx, ready);
    if (chosen.empty()) return false;
    int64_t end = ctx.duration >= kNever - t ? kNever : t + ctx.duration;
    for (int node : chosen) {
      profile.claim(node, needOn(ctx, node), t, end);
      info.plannedNodes.push_back(snap_.nodes[node].name);
    }
    info.expectedStart = t;
    return true;
  }
}

void Pass::prepareReservations() {
  const int n = index_.nodeCount();
  std::vector<char> taken(n, 0);
  for (const AdvanceReservation& res : snap_.reservations) {
    if (res.end <= now_ || res.end <= res.start) continue;
    ReservationState rs;
    rs.res = &res;
    if (!res.nodes.empty()) {
      for (const std::string& name : res.nodes) {
        int node = index_.node(name);
        if (node >= 0 && !taken[node]) rs.nodes.push_back(node);
      }
    } else {
      // A node-count reservation takes the first free-standing nodes in hostlist order; the
      // controller pins names at creation so this stays stable between passes.
      std::vector<int> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return snap_.nodes[a].index < snap_.nodes[b].index; });
      for (int node : order) {
        if (static_cast<int>(rs.nodes.size()) >= res.nodeCount) break;
        if (snap_.nodes[node].usable && !taken[node]) rs.nodes.push_back(node);
      }
    }
    std::vector<char> mine(n, 0);
    for (int node : rs.nodes) mine[node] = taken[node] = 1;
    rs.profile = std::make_unique<AvailabilityProfile>(now_, index_.totals());
    for (const RunningJob& r : snap_.running) {
      for (const NodeAllocation& a : r.allocation.nodes) {
        int node = a.nodeIndex;
        if (node < 0 || node >= n || snap_.nodes[node].name != a.node) node = index_.node(a.node);
        if (node < 0 || !mine[node]) continue;
        rs.profile->addRunning(node, Capacity{a.cpus, a.memoryMb, static_cast<int>(a.gpus.size())},
                               r.expectedEnd);
      }
    }
    for (int node : rs.nodes) {
      const Capacity& whole = index_.totals()[node];
      profile_.claim(node, whole, std::max(res.start, now_), res.end);
      if (res.start > now_) rs.profile->claim(node, whole, now_, res.start);
      rs.profile->claim(node, whole, res.end, kNever);
    }
    resv_.push_back(std::move(rs));
  }
}

std::vector<int> Pass::reservationNodes(const JobCtx& ctx) const {
  std::vector<int> out;
  for (int node : resv_[ctx.reservation].nodes) {
    if (eligible(ctx, node)) out.push_back(node);
  }
  return out;
}

bool Pass::tryStartInReservation(const JobCtx& ctx, Plan& plan) {
  AvailabilityProfile& profile = *resv_[ctx.reservation].profile;
  std::vector<int> cands;
  for (int node : reservationNodes(ctx)) {
    if (!profile.fits(node, needOn(ctx, node), now_, ctx.duration)) continue;
    uint64_t free = freeGpuMask_[node];
    if (!ctx.demand.wholeNode) free &= index_.gpuMask(node, ctx.demand.gpuType);
    if (std::popcount(free) < needOn(ctx, node).gpus) continue;
    cands.push_back(node);
  }
  std::vector<int> chosen = chooseNodes(ctx, std::move(cands));
  if (chosen.empty()) return false;
  commitNow(ctx, std::move(chosen), profile, plan);
  return true;
}

Reason Pass::staticReason(const Job& job, JobCtx& ctx) {
  const JobRequest& r = job.request;
  if (r.hold == Hold::Admin) return Reason::JobHeldAdmin;
  if (r.hold == Hold::User) return Reason::JobHeldUser;
  if (r.dependency == DependencyState::NeverSatisfied) return Reason::DependencyNeverSatisfied;
  if (r.dependency == DependencyState::Pending) return Reason::Dependency;
  if (r.beginTime > now_) return Reason::BeginTime;
  // Queues are mostly one or two partitions: remember the last lookup.
  if (r.partition != lastPartName_) {
    lastPartName_ = r.partition;
    lastPart_ = index_.partition(r.partition);
  }
  int pidx = lastPart_;
  if (pidx < 0) return Reason::PartitionInactive;
  const Partition& part = snap_.partitions[pidx];
  if (part.state == PartitionState::Down) return Reason::PartitionDown;
  if (part.state == PartitionState::Inactive) return Reason::PartitionInactive;
  ctx.partition = pidx;
  return Reason::None;
}

Reason Pass::shapeReason(const Job& job, JobCtx& ctx) {
  const JobRequest& r = job.request;
  const Partition& part = snap_.partitions[ctx.partition];
  if (!r.reservation.empty()) {
    auto it = std::find_if(resv_.begin(), resv_.end(),
                           [&](const ReservationState& rs) { return rs.res->name == r.reservation; });
    if (it == resv_.end()) return Reason::Reservation;  // unknown or already over
    const AdvanceReservation& res = *it->res;
    auto listed = [](const std::vector<std::string>& list, const std::string& v) {
      return std::find(list.begin(), list.end(), v) != list.end();
    };
    bool open = res.users.empty() && res.accounts.empty();
    if (!open && !listed(res.users, r.user) && !listed(res.accounts, r.account)) {
      return Reason::Reservation;
    }
    ctx.reservation = static_cast<int>(it - resv_.begin());
  }
  ctx.duration = r.timeLimitS > 0      ? r.timeLimitS
                 : part.defaultTimeS > 0 ? part.defaultTimeS
                 : part.maxTimeS > 0     ? part.maxTimeS
                                         : params_.defaultTimeLimitS;
  if (part.maxTimeS > 0 && ctx.duration > part.maxTimeS) return Reason::PartitionTimeLimit;
  ctx.demand = computeDemand(r, index_.largestCpus());
  if (part.exclusive) ctx.demand.wholeNode = true;
  if (part.maxNodes > 0 && ctx.demand.nodes > part.maxNodes) return Reason::PartitionNodeLimit;
  // -N min-max: sbatch(1) allocates "as many nodes as possible within the range specified and
  // without delaying the initiation of the job". With -n, at most one node per task, and the
  // tasks are laid out over the nodes taken (task_layout.h), as Slurm does (-N1-3 -n 2 on an
  // idle cluster: 2 nodes, one task each). Not with --ntasks-per-node and -n together, nor a
  // per-job GPU count, whose per-node share depends on the node count (Slurm also ran
  // -N 1-3 --gpus=2 on one node); reservations plan for the minimum.
  ctx.maxNodes = ctx.demand.nodes;
  if (r.maxNodes > ctx.demand.nodes && r.gpusPerJob == 0 &&
      !(r.ntasksGiven && r.ntasksPerNode > 0)) {
    ctx.maxNodes = part.maxNodes > 0 ? std::min(r.maxNodes, part.maxNodes) : r.maxNodes;
    if (r.ntasksGiven) ctx.maxNodes = std::max(ctx.demand.nodes, std::min(ctx.maxNodes, r.ntasks));
  }
  if (!r.constraint.empty()) {
    auto it = constraints_.find(r.constraint);
    if (it == constraints_.end()) {
      auto parsed = Constraint::parse(r.constraint);
      if (!parsed) return Reason::ReqNodeNotAvail;
      it = constraints_.emplace(r.constraint, std::move(*parsed)).first;
    }
    ctx.constraint = &it->second;
  }
  for (const std::string& name : r.requiredNodes) {
    int node = index_.node(name);
    if (node < 0 || !snap_.nodes[node].usable) return Reason::ReqNodeNotAvail;
    ctx.required.push_back(node);
  }
  for (const std::string& name : r.excludedNodes) {
    int node = index_.node(name);
    if (node >= 0) ctx.excluded.push_back(node);
  }
  std::sort(ctx.excluded.begin(), ctx.excluded.end());
  if (r.minNodes > 0) {
    ctx.walkMaxNodes = ctx.maxNodes;
  } else if (r.gpusPerJob == 0) {  // a per-job GPU share depends on the node count: kept fixed
    ctx.walkMaxNodes = part.maxNodes > 0 ? std::min(r.ntasks, part.maxNodes) : r.ntasks;
    ctx.walkFewest = true;
  } else {
    ctx.walkMaxNodes = ctx.demand.nodes;
  }
  ctx.walked = ctx.required.empty() && laysOutTasks(r, ctx.walkMaxNodes, ctx.demand.wholeNode);
  if (ctx.walked) {
    ctx.oneTask = shareForTasks(r, 1, ctx.demand.nodes);
  } else {
    ctx.walkFewest = false;
  }
  return Reason::None;
}

ShapeKey Pass::shapeKey(const JobCtx& ctx) const {
  const Demand& d = ctx.demand;
  const JobRequest& r = ctx.job->request;
  TaskShape task;
  if (ctx.walked) {
    task = TaskShape{r.ntasks,      ctx.walkMaxNodes, r.cpusPerTask, r.cpusPerGpu,
                     r.gpusPerTask, r.memPerCpuMb, r.memPerGpuMb};
  }
  // Pointers into the job (which outlives the pass), never into the short-lived ctx.
  return ShapeKey{ctx.partition,  d.nodes,     d.perNode.cpus, d.perNode.gpus, d.perNode.memoryMb,
                  d.wholeNode,    &r.gpuType,  &r.constraint,  task};
}

Plan Pass::run(PassMemo* memo) {
  prepare();
  Plan plan;
  const auto& pending = snap_.pending;
  std::vector<int> order(pending.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<int> tier(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    int p = index_.partition(pending[i].request.partition);
    tier[i] = p < 0 ? 0 : snap_.partitions[p].priorityTier;
  }
  auto before = [&](int a, int b) {
    const Job& x = pending[a];
    const Job& y = pending[b];
    return std::tuple(-tier[a], -x.priority, x.request.submitTime, rankIdOf(x), x.id) <
           std::tuple(-tier[b], -y.priority, y.request.submitTime, rankIdOf(y), y.id);
  };
  // Drivers usually keep the queue in order already; checking is O(n), sorting O(n log n).
  if (!std::is_sorted(order.begin(), order.end(), before)) {
    std::sort(order.begin(), order.end(), before);
  }

  const int depth = params_.reservationDepth >= 0 ? params_.reservationDepth
                    : params_.policy == Policy::Conservative ? INT32_MAX
                                                             : 1;
  std::vector<int> reservationsMade(snap_.partitions.size(), 0);
  std::vector<char> blocked(snap_.partitions.size(), 0);
  // Shapes that could not start now in this pass, with the shortest duration that failed:
  // free capacity only shrinks during a pass, so an equal or longer job fails too.
  std::unordered_map<ShapeKey, int64_t, ShapeHash> failedShapes;
  if (memo) {
    *memo = PassMemo{};
    memo->now = now_;
    memo->firstBlocked.assign(snap_.partitions.size(), std::nullopt);
    memo->depthReached.assign(snap_.partitions.size(), std::nullopt);
    int64_t& b = memo->nextBoundary;
    for (const RunningJob& r : snap_.running) b = std::min(b, r.expectedEnd);
    for (const Job& j : pending) {
      if (j.request.beginTime > now_) memo->beginBoundary = std::min(memo->beginBoundary, j.request.beginTime);
    }
    b = std::min(b, memo->beginBoundary);
    // A reservation horizon moves with the clock: a start just past it comes within it.
    if (params_.reserveHorizonS > 0) b = std::min(b, now_ + 1);
    for (const AdvanceReservation& res : snap_.reservations) {
      if (res.start > now_) b = std::min(b, res.start);
      if (res.end > now_) b = std::min(b, res.end);
    }
  }
  // Blocked jobs to estimate a start for afterwards, with their place in plan.pending.
  std::vector<std::pair<JobCtx, size_t>> estimates;
  const int estimateDepth =
      params_.indexedReserveSearch ? std::max(0, params_.estimateDepth) : 0;
  auto rank = [&](int idx) {
    const Job& j = pending[idx];
    return RankKey{-tier[idx], -j.priority, j.request.submitTime, rankIdOf(j), j.id};
  };
  // Shape groups of the jobs that reach a start attempt (for the replay after a completion).
  std::unordered_map<ShapeKey, int, ShapeHash> groupIds;
  if (memo) {
    memo->order = order;
    memo->ranks.reserve(order.size());
    for (int idx : order) memo->ranks.push_back(rank(idx));
  }

  for (int idx : order) {
    const Job& job = pending[idx];
    ++plan.stats.jobsConsidered;
    PendingInfo info;
    info.id = job.id;
    JobCtx ctx;
    ctx.job = &job;
    Reason why = staticReason(job, ctx);
    // Under FCFS nothing behind a blocked job may start; its reason is Priority.
    if (why == Reason::None && params_.policy == Policy::Fcfs && blocked[ctx.partition]) {
      why = Reason::Priority;
    }
    if (why == Reason::None) why = shapeReason(job, ctx);
    if (why != Reason::None) {
      info.reason = why;
      plan.pending.push_back(std::move(info));
      continue;
    }
    const int p = ctx.partition;
    if (ctx.reservation >= 0) {
      // Inside its reservation a job competes only with the reservation's other jobs.
      if (tryStartInReservation(ctx, plan)) continue;
      const AdvanceReservation& res = *resv_[ctx.reservation].res;
      info.reason = now_ < res.start ? Reason::Reservation : Reason::Resources;
      reserve(ctx, info);
      plan.pending.push_back(std::move(info));
      continue;
    }
    bool mayStart = !(params_.policy == Policy::Fcfs && blocked[p]);
    bool cacheable = ctx.required.empty() && ctx.excluded.empty();
    ShapeKey key{};
    if (mayStart && cacheable) {
      key = shapeKey(ctx);
      if (memo) {
        auto [g, fresh] = groupIds.try_emplace(key, static_cast<int>(memo->groups.size()));
        if (fresh) {
          memo->groups.emplace_back().shape = owned(key);
          memo->groupOf.emplace(memo->groups.back().shape, g->second);
        }
        memo->groups[g->second].entries.push_back({rank(idx), ctx.duration, idx});
      }
      auto it = failedShapes.find(key);
      if (it != failedShapes.end() && ctx.duration >= it->second) {
        mayStart = false;
        ++plan.stats.skippedSameShape;
      }
    }
    if (mayStart) {
      if (memo && !cacheable) memo->unshaped.emplace_back(rank(idx), idx);
      if (tryStartNow(ctx, plan)) {
        plan.stats.backfilled += blocked[p];
        continue;
      }
      if (cacheable) {
        auto [it, fresh] = failedShapes.emplace(key, ctx.duration);
        if (!fresh) it->second = std::min(it->second, ctx.duration);
        if (memo) {
          auto& list = memo->failures[owned(key)];
          if (list.empty() || ctx.duration < list.back().second) {
            list.emplace_back(rank(idx), ctx.duration);
          }
        }
      }
    }
    info.reason = blocked[p] ? Reason::Priority : Reason::Resources;
    if (reservationsMade[p] < depth && reserve(ctx, info)) {
      ++reservationsMade[p];
      ++plan.stats.reservationsMade;
      if (memo && reservationsMade[p] >= depth) memo->depthReached[p] = rank(idx);
    }
    if (memo && !blocked[p]) memo->firstBlocked[p] = rank(idx);
    blocked[p] = 1;
    if (!info.expectedStart && cacheable && static_cast<int>(estimates.size()) < estimateDepth) {
      if (memo) memo->lastEstimated = rank(idx);
      estimates.emplace_back(std::move(ctx), plan.pending.size());
    }
    plan.pending.push_back(std::move(info));
  }
  estimateStarts(estimates, plan, memo ? &memo->estimated : nullptr);
  if (memo) {
    memo->hadStarts = !plan.starts.empty();
    memo->probes = probes_;
    memo->probesReady = probesReady_;
    for (ShapeGroup& g : memo->groups) {
      g.entries.shrink_to_fit();
      g.buildBlockMin();
    }
    memo->estimatesFull = static_cast<int>(estimates.size()) >= estimateDepth;
    for (const PendingInfo& info : plan.pending) {
      if (info.expectedStart) memo->nextBoundary = std::min(memo->nextBoundary, *info.expectedStart);
      if (info.estimatedStart) {
        memo->nextBoundary = std::min(memo->nextBoundary, *info.estimatedStart);
      }
    }
    // The walk is done with the profile: a conservative pass hands it on (appendLast).
    if (params_.policy == Policy::Conservative && depth == INT32_MAX &&
        snap_.reservations.empty() && plan.starts.empty()) {
      memo->tail.emplace(std::move(profile_));
    }
  }
  for (const PendingInfo& info : plan.pending) tallyReason(plan.stats, info.reason, +1);
  return plan;
}

// A conservative walk over the memo's queue plus `jobs`, all ranked behind it, is the memo's walk
// followed by theirs: reservations are made in rank order and never revisited, so every earlier
// outcome stands, and each new job meets the profile the memo's walk left (every reservation
// claimed) plus the claims of the new jobs ahead of it. The state a job's turn reads is rebuilt
// here: the profile (kept, moved to `now`: nothing in it changes before the memo's next
// boundary), the GPU masks and the free-GPU buckets (both from the running jobs alone: the
// memo's walk started nothing, and only a start moves a node's bucket), whether its partition
// already has a blocked job (firstBlocked), and the shortest failed duration of its shape
// (failures). Estimates are searched on a copy of the final profile after the walk, so a new
// claim would move one unless none was found: estimates found by the memo's pass, or a new job
// that would take one, send the caller to a full pass.
bool Pass::appendLast(PassMemo& memo, const std::vector<int>& jobs, Plan& plan) {
  if (!memo.tail || memo.hadStarts || now_ < memo.now || now_ >= memo.nextBoundary) return false;
  for (const EstimateRecord& r : memo.estimated) {
    if (r.start != kNever) return false;
  }
  if (!memo.tail->rebase(now_)) return false;
  profile_ = std::move(*memo.tail);
  memo.tail.reset();
  memo.tailAppended = true;

  const int n = index_.nodeCount();
  maxGpus_ = index_.maxGpus();
  freeGpuMask_.resize(n);
  for (int i = 0; i < n; ++i) freeGpuMask_[i] = index_.gpuMask(i, "");
  std::vector<Capacity> held(n);
  for (const RunningJob& r : snap_.running) {
    for (const NodeAllocation& a : r.allocation.nodes) {
      int node = a.nodeIndex;
      if (node < 0 || node >= n || snap_.nodes[node].name != a.node) node = index_.node(a.node);
      if (node < 0) continue;
      held[node] += Capacity{a.cpus, a.memoryMb, static_cast<int>(a.gpus.size())};
      for (int g : a.gpus) {
        if (g >= 0 && g < 64) freeGpuMask_[node] &= ~(uint64_t{1} << g);
      }
    }
  }
  // As prepare() leaves them, from the free capacity with the running jobs alone.
  buckets_.assign(maxGpus_ + 1, {});
  nodeBucket_.assign(n, -1);
  seen_.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    const Capacity& total = profile_.total(i);
    const int b = (!snap_.nodes[i].usable || total.cpus - held[i].cpus <= 0)
                      ? -1
                      : std::clamp(total.gpus - held[i].gpus, 0, maxGpus_);
    nodeBucket_[i] = b;
    if (b >= 0) buckets_[b].push_back(i);
  }

  for (int idx : jobs) {
    const Job& job = snap_.pending[idx];
    const RankKey me = rankOf(index_, snap_, job);
    ++plan.stats.jobsConsidered;
    if (job.request.beginTime > now_) {
      memo.nextBoundary = std::min(memo.nextBoundary, job.request.beginTime);
      memo.beginBoundary = std::min(memo.beginBoundary, job.request.beginTime);
    }
    PendingInfo info;
    info.id = job.id;
    JobCtx ctx;
    ctx.job = &job;
    Reason why = staticReason(job, ctx);
    if (why == Reason::None) why = shapeReason(job, ctx);
    if (why != Reason::None) {
      info.reason = why;
      plan.pending.push_back(std::move(info));
      continue;
    }
    if (ctx.reservation >= 0) return false;  // the tail is kept only without advance reservations
    const int p = ctx.partition;
    const bool cacheable = ctx.required.empty() && ctx.excluded.empty();
    bool mayStart = true;
    ShapeKey key{};
    if (cacheable) {
      key = shapeKey(ctx);
      auto it = memo.failures.find(owned(key));
      // Its last entry is the shortest failure of the shape in the walk so far.
      if (it != memo.failures.end() && !it->second.empty() &&
          ctx.duration >= it->second.back().second) {
        mayStart = false;
        ++plan.stats.skippedSameShape;
      }
    }
    if (mayStart) {
      if (tryStartNow(ctx, plan)) {
        plan.stats.backfilled += memo.firstBlocked[p].has_value();
        continue;
      }
      if (cacheable) {
        auto& list = memo.failures[owned(key)];
        if (list.empty() || ctx.duration < list.back().second) list.emplace_back(me, ctx.duration);
      }
    }
    const bool blocked = memo.firstBlocked[p].has_value();
    info.reason = blocked ? Reason::Priority : Reason::Resources;
    if (reserve(ctx, info)) {
      ++plan.stats.reservationsMade;
      memo.nextBoundary = std::min(memo.nextBoundary, *info.expectedStart);
    } else if (cacheable && !memo.estimatesFull) {
      return false;  // it would get a start estimate
    }
    if (!blocked) memo.firstBlocked[p] = me;
    plan.pending.push_back(std::move(info));
  }
  if (plan.starts.empty()) memo.tail.emplace(std::move(profile_));
  return true;
}

std::optional<PendingInfo> Pass::judge(const PassMemo& memo, const Job& job, bool& skipped,
                                       OwnedShape* shape, int64_t* duration) {
  skipped = false;
  if (memo.hadStarts || now_ < memo.now || now_ >= memo.nextBoundary) return std::nullopt;
  PendingInfo info;
  info.id = job.id;
  JobCtx ctx;
  ctx.job = &job;
  Reason why = staticReason(job, ctx);
  if (why != Reason::None) {
    info.reason = why;
    return info;
  }
  const int p = ctx.partition;
  const RankKey me = rankOf(index_, snap_, job);
  const bool blockedAhead = memo.firstBlocked[p] && *memo.firstBlocked[p] < me;
  if (params_.policy == Policy::Fcfs && blockedAhead) {
    info.reason = Reason::Priority;
    return info;
  }
  // shapeReason looks up advance reservations, which a fresh pass object has not prepared.
  if (!job.request.reservation.empty()) return std::nullopt;
  why = shapeReason(job, ctx);
  if (why != Reason::None) {
    info.reason = why;
    return info;
  }
  // Only a job that changes nothing for anyone else: it is not the first blocked job of its
  // partition, takes no reservation, and a job of its shape failed ahead of it.
  if (!blockedAhead || !memo.depthReached[p] || !(*memo.depthReached[p] < me)) return std::nullopt;
  if (!ctx.required.empty() || !ctx.excluded.empty()) return std::nullopt;
  // It would take or shift a start estimate unless every estimate went to jobs ahead of it.
  if (!memo.estimatesFull || (memo.lastEstimated && !(*memo.lastEstimated < me))) {
    return std::nullopt;
  }
  auto it = memo.failures.find(owned(shapeKey(ctx)));
  if (it == memo.failures.end()) return std::nullopt;
  const auto& list = it->second;
  auto after = std::lower_bound(list.begin(), list.end(), me,
                                [](const auto& e, const RankKey& k) { return e.first < k; });
  if (after == list.begin() || std::prev(after)->second > ctx.duration) return std::nullopt;
  skipped = true;
  if (shape) *shape = it->first;
  if (duration) *duration = ctx.duration;
  info.reason = Reason::Priority;
  return info;
}

// Reuses a search result of the memo's pass (`oldStart` on `oldNodes`, kNever: none found) for
// the same job when the profile differs from that pass's only on the `dirty` nodes. Every other
// node answers as it did, so the new answer follows from the dirty nodes alone: for one node,
// the earliest of the old start and the dirty nodes' earliest fits, best fit among the ties; for
// several nodes, the old answer when no dirty node fits by the old start (with equal weights the
// chosen window survives losing other candidates). False when that cannot be shown.
bool Pass::reuseSearch(const JobCtx& ctx, int64_t oldStart, const std::vector<int>& oldNodes,
                       const AvailabilityProfile& profile, const std::vector<int>& dirty,
                       const std::vector<char>& isDirty, int64_t& t,
                       std::vector<int>& nodes) const {
  constexpr size_t kDirtyLimit = 256;  // past this a real search is cheaper
  if (!ctx.required.empty() || !ctx.excluded.empty() || dirty.size() > kDirtyLimit) return false;
  for (int node : oldNodes) {
    if (isDirty[node]) return false;
  }
  const int k = ctx.demand.nodes;
  if (oldStart != kNever && static_cast<int>(oldNodes.size()) != k) return false;
  const int64_t latest = params_.reserveHorizonS > 0 ? now_ + params_.reserveHorizonS : kNever;
  int64_t best = oldStart;
  std::vector<int> tied;
  for (int d : dirty) {
    if (!eligible(ctx, d)) continue;
    if (k > 1 && !index_.uniformWeight()) return false;
    const int64_t ef = profile.earliestFit(d, needOn(ctx, d), now_, ctx.duration);
    if (ef == kNever || ef > latest) continue;
    if (k > 1) {
      if (ef <= oldStart) return false;
      continue;
    }
    if (ef < best) {
      best = ef;
      tied.assign(1, d);
    } else if (ef == best) {
      tied.push_back(d);
    }
  }
  t = best;
  if (k > 1 || tied.empty()) {
    nodes = oldNodes;
    return true;
  }
  if (best == oldStart) tied.push_back(oldNodes[0]);
  nodes = chooseNodes(ctx, std::move(tied));
  return !nodes.empty();
}

int64_t Pass::freeReach(const JobCtx& ctx, int node) const {
  const int gpus = startGpus(ctx);
  if (!eligibleWith(ctx, node, gpus)) return -1;
  if (!ctx.demand.gpuType.empty() && gpus > 0) {
    uint64_t free = freeGpuMask_[node] & index_.gpuMask(node, ctx.demand.gpuType);
    if (std::popcount(free) < gpus) return -1;
  }
  return profile_.freeFor(node, startNeed(ctx, node), now_);
}

// The pass after running jobs ended, as a replay of the memo's pass (which started nothing, so
// every job in it failed to start). A node is dirty once its state here may differ from the
// memo's pass at the same point of the walk: the freed nodes, nodes of new starts, and nodes of
// reservations and estimates that moved. A job that failed there can only start here on a dirty
// node (every other node answers as it did), so the walk visits: each partition from its first
// blocked job until its reservation is placed again (reasons, reservation), and after that only
// jobs whose shape fits a dirty node for their duration (found per shape group, by duration),
// plus the few jobs with node lists. Estimates are then redone in order, reusing each old
// answer that the dirty nodes cannot change. Same-shape skip counts are corrected per shape.
std::optional<PlanDelta> Pass::replay(const PassMemo& memo, const std::vector<int>& freed,
                                      const Plan& last, const std::vector<RankKey>& ranks,
                                      const std::vector<int>& jobs) {
  if (!snap_.reservations.empty()) return std::nullopt;
  if (memo.hadStarts || now_ < memo.now || now_ >= memo.nextBoundary) return std::nullopt;
  const int depth = params_.reservationDepth >= 0              ? params_.reservationDepth
                    : params_.policy == Policy::Conservative ? INT32_MAX
                                                             : 1;
  // One reservation per partition (FCFS, EASY) or one per blocked job (conservative).
  const bool perJob = depth == INT32_MAX;
  if (depth > 1 && !perJob) return std::nullopt;
  const size_t parts = snap_.partitions.size();
  if (memo.firstBlocked.size() != parts) return std::nullopt;
  for (size_t p = 0; p < parts; ++p) {
    // Every blocked job tried to reserve: as costly as a full pass, and not worth a replay.
    if (!perJob && memo.firstBlocked[p] && depth > 0 && !memo.depthReached[p]) return std::nullopt;
  }
  // Every job behind a blocked one was tried (or skipped for its shape) in the memo's pass.
  const bool backfill = params_.policy != Policy::Fcfs;
  const int estDepth = params_.indexedReserveSearch ? std::max(0, params_.estimateDepth) : 0;
  if (!backfill && memo.estimatesFull && estDepth > 0) return std::nullopt;
  prepare();
  if (memo.probesReady) {
    probes_ = memo.probes;
    probesReady_ = true;
  }
  const int n = index_.nodeCount();
  std::vector<char> isDirty(n, 0);
  std::vector<int> dirty;
  uint64_t changes = 0;  // bumps on every new dirty node and every claim
  auto markDirty = [&](int node) {
    if (node < 0 || node >= n || isDirty[node]) return;
    isDirty[node] = 1;
    dirty.push_back(node);
    ++changes;
  };
  for (int node : freed) markDirty(node);
  auto posOf = [&](const RankKey& r) {
    return static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin());
  };
  std::map<size_t, PendingInfo> changed;
  auto current = [&](size_t pos) -> const PendingInfo& {
    auto it = changed.find(pos);
    return it == changed.end() ? last.pending[pos] : it->second;
  };
  auto entry = [&](size_t pos) -> PendingInfo& {
    auto it = changed.find(pos);
    if (it == changed.end()) it = changed.emplace(pos, last.pending[pos]).first;
    return it->second;
  };
  auto nodeIndices = [&](const std::vector<std::string>& names) {
    std::vector<int> out;
    for (const std::string& name : names) out.push_back(index_.node(name));
    return out;
  };

  // The reservation holders of the memo's pass; their claims are undone (nodes marked dirty) as
  // soon as the walk passes them without placing the same reservation again.
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> oldHolder(parts, kNone);
  std::vector<std::vector<int>> oldHolderNodes(parts);
  std::vector<char> holderDone(parts, 1);
  for (size_t p = 0; p < parts; ++p) {
    if (!memo.depthReached[p]) continue;
    oldHolder[p] = posOf(*memo.depthReached[p]);
    if (oldHolder[p] >= ranks.size() || ranks[oldHolder[p]] != *memo.depthReached[p]) {
      return std::nullopt;
    }
    oldHolderNodes[p] = nodeIndices(last.pending[oldHolder[p]].plannedNodes);
    holderDone[p] = 0;
  }
  auto dropOldHolder = [&](size_t p) {
    if (holderDone[p]) return;
    holderDone[p] = 1;
    for (int node : oldHolderNodes[p]) markDirty(node);
  };

  enum class Mode : char { Before, Walking, Settled };
  std::vector<Mode> mode(parts, Mode::Settled);
  std::vector<size_t> firstPos(parts, kNone);
  for (size_t p = 0; p < parts; ++p) {
    if (!memo.firstBlocked[p]) continue;
    mode[p] = Mode::Before;
    firstPos[p] = posOf(*memo.firstBlocked[p]);
  }
  std::vector<char> blocked(parts, 0);
  std::vector<int> made(parts, 0);
  std::vector<size_t> newHolder(parts, kNone);
  Plan startsPlan;
  std::vector<size_t> startedPos;
  std::vector<std::pair<int, RankKey>> startedInGroup;
  std::vector<size_t> walkedBlocked;  // visited, failed to start, no node lists
  const size_t groups = memo.groups.size();
  std::vector<int64_t> failCap(groups, kNever);  // as failedShapes: this long or longer fails
  std::unordered_map<ShapeKey, int, ShapeHash> groupCache;
  auto groupOf = [&](const JobCtx& ctx) {
    const ShapeKey key = shapeKey(ctx);
    auto hit = groupCache.find(key);
    if (hit != groupCache.end()) return hit->second;
    auto it = memo.groupOf.find(owned(key));
    const int g = it == memo.groupOf.end() ? -1 : it->second;
    groupCache.emplace(key, g);
    return g;
  };
  int64_t plannedBoundary = kNever;
  auto markAll = [&](const std::vector<int>& nodes) {
    for (int node : nodes) markDirty(node);
  };

  auto dirtyFits = [&](const JobCtx& ctx) {
    for (int d : dirty) {
      if (startsOn(ctx, d)) return true;
    }
    return false;
  };

  // One job as the full pass's loop body treats it (same-shape skips aside, which change no
  // outcome). Entries are written only where they differ from the last plan.
  auto visit = [&](size_t pos) {
    const Job& job = snap_.pending[jobs[pos]];
    JobCtx ctx;
    ctx.job = &job;
    Reason why = staticReason(job, ctx);
    if (why == Reason::None && !backfill && blocked[ctx.partition]) why = Reason::Priority;
    if (why == Reason::None) why = shapeReason(job, ctx);
    const PendingInfo& was = last.pending[pos];
    if (why != Reason::None) {
      if (was.reason != why || was.expectedStart || !was.plannedNodes.empty()) {
        PendingInfo& e = entry(pos);
        e.reason = why;
        e.expectedStart.reset();
        e.plannedNodes.clear();
      }
      return;
    }
    const int p = ctx.partition;
    const bool cacheable = ctx.required.empty() && ctx.excluded.empty();
    const int g = cacheable && backfill ? groupOf(ctx) : -1;
    // Under FCFS the jobs behind the first blocked one were not tried in the memo's pass.
    const bool triedThere = backfill || pos == firstPos[p];
    if (g < 0 || ctx.duration < failCap[g]) {
      if ((!triedThere || dirtyFits(ctx)) && tryStartNow(ctx, startsPlan)) {
        startsPlan.stats.backfilled += blocked[p];
        startedPos.push_back(pos);
        for (const NodeAllocation& a : startsPlan.starts.back().allocation.nodes) {
          markDirty(a.nodeIndex);
        }
        ++changes;
        if (g >= 0) startedInGroup.emplace_back(g, ranks[pos]);
        if (oldHolder[p] == pos) dropOldHolder(p);
        if (perJob && was.expectedStart) markAll(nodeIndices(was.plannedNodes));
        return;
      }
      if (g >= 0) failCap[g] = std::min(failCap[g], ctx.duration);
    }
    PendingInfo info;
    info.id = job.id;
    info.reason = blocked[p] ? Reason::Priority : Reason::Resources;
    if (made[p] < depth) {
      bool ok = false;
      int64_t t = kNever;
      std::vector<int> nodes;
      // Its reservation in the memo's pass, to reuse when the dirty nodes cannot move it.
      const bool held = was.expectedStart && (perJob || oldHolder[p] == pos);
      const std::vector<int> oldNodes =
          !held ? std::vector<int>{} : perJob ? nodeIndices(was.plannedNodes) : oldHolderNodes[p];
      if (held &&
          reuseSearch(ctx, *was.expectedStart, oldNodes, profile_, dirty, isDirty, t, nodes)) {
        const int64_t end = ctx.duration >= kNever - t ? kNever : t + ctx.duration;
        for (int node : nodes) {
          profile_.claim(node, needOn(ctx, node), t, end);
          info.plannedNodes.push_back(snap_.nodes[node].name);
        }
        info.expectedStart = t;
        ok = true;
      } else {
        ok = reserve(ctx, info);
      }
      if (ok) {
        ++made[p];
        ++changes;
        if (made[p] >= depth) newHolder[p] = pos;
        plannedBoundary = std::min(plannedBoundary, *info.expectedStart);
        if (held && info.expectedStart == was.expectedStart &&
            info.plannedNodes == was.plannedNodes) {
          if (!perJob) holderDone[p] = 1;
        } else {
          if (perJob) markAll(oldNodes);
          dropOldHolder(p);
          markAll(nodeIndices(info.plannedNodes));
        }
      } else if (held) {
        markAll(oldNodes);
      }
    }
    if (oldHolder[p] == pos) dropOldHolder(p);
    blocked[p] = 1;
    if (cacheable) walkedBlocked.push_back(pos);
    if (mode[p] == Mode::Walking && made[p] >= depth) {
      mode[p] = Mode::Settled;
      dropOldHolder(p);
    }
    if (info.reason != was.reason || info.expectedStart != was.expectedStart ||
        info.plannedNodes != was.plannedNodes) {
      PendingInfo& e = entry(pos);
      e.reason = info.reason;
      e.expectedStart = info.expectedStart;
      e.plannedNodes = std::move(info.plannedNodes);
    }
  };

  // Per group, a job of it that fits now on some dirty node fits for at most reach[g] seconds.
  std::vector<JobCtx> groupCtx(groups);
  std::vector<char> groupOk(groups, 0);
  for (size_t g = 0; g < groups && backfill; ++g) {
    const auto& es = memo.groups[g].entries;
    if (es.empty()) continue;
    const Job& job = snap_.pending[es.front().job];
    groupCtx[g].job = &job;
    groupOk[g] = staticReason(job, groupCtx[g]) == Reason::None &&
                 shapeReason(job, groupCtx[g]) == Reason::None;
    if (!groupOk[g]) return std::nullopt;  // cannot happen: it reached the start attempt
  }
  std::vector<int64_t> reach(groups, -1);
  uint64_t reachAt = ~uint64_t{0};
  auto refreshReach = [&] {
    if (reachAt == changes) return;
    reachAt = changes;
    for (size_t g = 0; g < groups; ++g) {
      reach[g] = -1;
      if (!groupOk[g]) continue;
      for (int d : dirty) reach[g] = std::max(reach[g], freeReach(groupCtx[g], d));
      reach[g] = std::min(reach[g], failCap[g] - 1);
    }
  };
  std::vector<size_t> unshapedPos;
  for (const auto& [rank, idx] : memo.unshaped) unshapedPos.push_back(posOf(rank));
  size_t unshapedNext = 0;

  size_t next = 0;
  const size_t total = ranks.size();
  // Under conservative every later reservation can move with an earlier one; once the changes
  // spread over many nodes a replay costs more than the full pass it stands for: give up.
  constexpr size_t kSpreadLimit = 256;
  while (next < total) {
    if (perJob && dirty.size() > kSpreadLimit) return std::nullopt;
    bool walking = false;
    for (size_t p = 0; p < parts; ++p) {
      if (mode[p] == Mode::Before && firstPos[p] <= next) mode[p] = Mode::Walking;
      walking = walking || mode[p] == Mode::Walking;
    }
    if (walking) {
      visit(next++);
      continue;
    }
    // Jump to the next job that can change: a partition's first blocked job, a job with node
    // lists, or the first job of a shape that fits a dirty node for its duration.
    size_t target = kNone;
    for (size_t p = 0; p < parts; ++p) {
      if (mode[p] == Mode::Before) target = std::min(target, firstPos[p]);
    }
    if (backfill) {
      while (unshapedNext < unshapedPos.size() && unshapedPos[unshapedNext] < next) ++unshapedNext;
      if (unshapedNext < unshapedPos.size()) target = std::min(target, unshapedPos[unshapedNext]);
      refreshReach();
      for (size_t g = 0; g < groups; ++g) {
        if (reach[g] < 0) continue;
        const ShapeGroup::Entry* e = memo.groups[g].nextWithin(ranks[next], reach[g]);
        if (e) target = std::min(target, posOf(e->rank));
      }
    }
    if (target == kNone) break;
    next = target;
    bool isFirst = false;
    for (size_t p = 0; p < parts; ++p) isFirst = isFirst || (mode[p] == Mode::Before && firstPos[p] == target);
    if (isFirst) continue;  // switches that partition to walking
    visit(next++);
  }
  for (size_t p = 0; p < parts; ++p) {
    dropOldHolder(p);
    // An old holder the walk passed by (a job ahead of it took the reservation) loses it.
    const size_t h = oldHolder[p];
    if (h != kNone && newHolder[p] != h &&
        !std::binary_search(startedPos.begin(), startedPos.end(), h) && current(h).expectedStart) {
      PendingInfo& e = entry(h);
      e.expectedStart.reset();
      e.plannedNodes.clear();
    }
  }

  PlanDelta out;
  out.stats = last.stats;
  out.stats.reservationsMade = 0;
  out.stats.backfilled = startsPlan.stats.backfilled;  // the memo's pass started nothing
  for (size_t p = 0; p < parts; ++p) out.stats.reservationsMade += made[p];
  // Same-shape skips: in the memo's pass every job of a group failed, so a job was skipped when
  // one ahead of it was no longer; here the started ones no longer count as failures.
  if (backfill && !startedInGroup.empty()) {
    std::sort(startedInGroup.begin(), startedInGroup.end());
    for (size_t a = 0; a < startedInGroup.size();) {
      const int g = startedInGroup[a].first;
      size_t b = a;
      while (b < startedInGroup.size() && startedInGroup[b].first == g) ++b;
      const auto& es = memo.groups[g].entries;
      const RankKey& first = startedInGroup[a].second;
      int64_t pmOld = kNever;
      auto f = memo.failures.find(memo.groups[g].shape);
      if (f != memo.failures.end()) {
        auto after = std::lower_bound(f->second.begin(), f->second.end(), first,
                                      [](const auto& e, const RankKey& k) { return e.first < k; });
        if (after != f->second.begin()) pmOld = std::prev(after)->second;
      }
      int64_t pmNew = pmOld;
      size_t t = a;
      // Both lists of the group, merged in rank order from the first started job.
      auto byRank = [](const ShapeGroup::Entry& e, const RankKey& r) { return e.rank < r; };
      const auto& sub = memo.groups[g].submitted;
      auto x = std::lower_bound(es.begin(), es.end(), first, byRank);
      auto y = std::lower_bound(sub.begin(), sub.end(), first, byRank);
      while (x != es.end() || y != sub.end()) {
        const bool fromEntries = y == sub.end() || (x != es.end() && x->rank < y->rank);
        const ShapeGroup::Entry* i = fromEntries ? &*x++ : &*y++;
        const bool oldSkip = pmOld != kNever && i->duration >= pmOld;
        pmOld = std::min(pmOld, i->duration);
        bool newSkip = false;
        if (t < b && i->rank == startedInGroup[t].second) {
          ++t;
        } else {
          newSkip = pmNew != kNever && i->duration >= pmNew;
          pmNew = std::min(pmNew, i->duration);
        }
        out.stats.skippedSameShape += static_cast<int>(newSkip) - static_cast<int>(oldSkip);
        if (t == b && pmNew == pmOld) break;
      }
      a = b;
    }
  }

  // Estimates: the first estDepth blocked jobs without a reservation, as the full pass picks
  // them, then each search in order on a copy of the profile, reusing old answers where the
  // dirty nodes cannot change them.
  auto isStarted = [&](size_t pos) {
    return std::binary_search(startedPos.begin(), startedPos.end(), pos);
  };
  auto ctxOf = [&](size_t pos, JobCtx& ctx) {
    const Job& job = snap_.pending[jobs[pos]];
    ctx = JobCtx{};
    ctx.job = &job;
    return staticReason(job, ctx) == Reason::None && shapeReason(job, ctx) == Reason::None;
  };
  auto eligibleForEstimate = [&](size_t pos, bool known) {
    if (isStarted(pos) || current(pos).expectedStart) return false;
    if (known) return true;
    JobCtx ctx;
    return ctxOf(pos, ctx) && ctx.required.empty() && ctx.excluded.empty();
  };
  std::vector<size_t> cands;
  std::map<size_t, const EstimateRecord*> oldEst;
  for (const EstimateRecord& r : memo.estimated) {
    size_t pos = posOf(r.rank);
    if (pos >= total || ranks[pos] != r.rank) return std::nullopt;
    oldEst.emplace(pos, &r);
    if (eligibleForEstimate(pos, true)) cands.push_back(pos);
  }
  for (size_t pos : walkedBlocked) {
    if (eligibleForEstimate(pos, true)) cands.push_back(pos);
  }
  for (size_t p = 0; p < parts; ++p) {
    if (oldHolder[p] != kNone && eligibleForEstimate(oldHolder[p], false)) {
      cands.push_back(oldHolder[p]);
    }
  }
  std::sort(cands.begin(), cands.end());
  cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
  if (memo.estimatesFull && estDepth > 0 && memo.lastEstimated) {
    size_t q = posOf(*memo.lastEstimated) + 1;
    size_t count = static_cast<size_t>(std::upper_bound(cands.begin(), cands.end(), q - 1) - cands.begin());
    std::vector<size_t> added;
    for (; q < total && count < static_cast<size_t>(estDepth); ++q) {
      if (std::binary_search(cands.begin(), cands.end(), q)) {
        ++count;
      } else if (eligibleForEstimate(q, false)) {
        added.push_back(q);
        ++count;
      }
    }
    cands.insert(cands.end(), added.begin(), added.end());
    std::sort(cands.begin(), cands.end());
  }
  if (cands.size() > static_cast<size_t>(estDepth)) cands.resize(estDepth);

  std::vector<size_t> walk;
  for (const auto& [pos, r] : oldEst) walk.push_back(pos);
  walk.insert(walk.end(), cands.begin(), cands.end());
  std::sort(walk.begin(), walk.end());
  walk.erase(std::unique(walk.begin(), walk.end()), walk.end());
  AvailabilityProfile scratch = profile_;
  FitIndexes indexes;
  std::vector<char> isDirtyS = isDirty;
  std::vector<int> dirtyS = dirty;
  auto markS = [&](const std::vector<int>& nodes) {
    for (int node : nodes) {
      if (node >= 0 && node < n && !isDirtyS[node]) {
        isDirtyS[node] = 1;
        dirtyS.push_back(node);
      }
    }
  };
  for (size_t pos : walk) {
    auto o = oldEst.find(pos);
    const EstimateRecord* old = o == oldEst.end() ? nullptr : o->second;
    if (!std::binary_search(cands.begin(), cands.end(), pos)) {
      if (old && old->start != kNever) markS(old->nodes);
      if (!isStarted(pos) && current(pos).estimatedStart) {
        entry(pos).estimatedStart.reset();
        // SchedNodeList: the estimate's nodes go with it (a reservation's nodes stay).
        if (!current(pos).expectedStart) entry(pos).plannedNodes.clear();
      }
      continue;
    }
    JobCtx ctx;
    if (!ctxOf(pos, ctx)) return std::nullopt;  // cannot happen: it is blocked
    int64_t t = kNever;
    std::vector<int> nodes;
    if (old && reuseSearch(ctx, old->start, old->nodes, scratch, dirtyS, isDirtyS, t, nodes)) {
      if (t != kNever) {
        const int64_t end = ctx.duration >= kNever - t ? kNever : t + ctx.duration;
        for (int node : nodes) scratch.claim(node, needOn(ctx, node), t, end);
      }
    } else {
      PendingInfo unused;
      t = reserveIndexed(ctx, unused, fitIndex(ctx, scratch, indexes), scratch, &nodes);
    }
    if (t == kNever) nodes.clear();
    if (!old || old->start != t || old->nodes != nodes) {
      if (old) markS(old->nodes);
      markS(nodes);
    }
    std::optional<int64_t> est;
    if (t != kNever) est = t;
    if (current(pos).estimatedStart != est) entry(pos).estimatedStart = est;
    std::vector<std::string> names;
    for (int node : nodes) names.push_back(snap_.nodes[node].name);
    if (current(pos).plannedNodes != names) entry(pos).plannedNodes = std::move(names);
    out.estimated.push_back(EstimateRecord{ranks[pos], jobs[pos], t, std::move(nodes)});
  }
  out.estimatesFull = static_cast<int>(out.estimated.size()) >= estDepth;
  if (!out.estimated.empty()) out.lastEstimated = out.estimated.back().rank;

  out.depthReached.assign(parts, std::nullopt);
  for (size_t p = 0; p < parts; ++p) {
    if (newHolder[p] != kNone) out.depthReached[p] = ranks[newHolder[p]];
  }
  out.plannedBoundary = plannedBoundary;
  for (const EstimateRecord& r : out.estimated) out.plannedBoundary = std::min(out.plannedBoundary, r.start);
  out.starts = std::move(startsPlan.starts);
  out.removed = std::move(startedPos);
  for (auto& [pos, info] : changed) {
    if (!std::binary_search(out.removed.begin(), out.removed.end(), pos)) {
      out.changed.emplace_back(pos, std::move(info));
    }
  }
  return out;
}

// Without building the pass state where that can be shown: the holder's earliest start cannot
// change (later starts were placed around its claim, and capacity only went down), so only its
// best-fit choice among the nodes ready then can, and only in favour of a node a start behind
// it took. For several nodes of equal weight the chosen window survives losing candidates; for
// one node the choice holds when every such node the holder could use ranks behind the chosen
// one by the best-fit key (weight, GPUs and CPUs free now, hostlist index) with the starts in.
bool Pass::holdersUnmoved(const std::vector<std::pair<int, const PendingInfo*>>& holders,
                          const std::vector<std::vector<int>>& nodesBehind) {
  std::vector<int> single;  // holder positions whose one-node choice needs the key check
  std::vector<JobCtx> ctxs(holders.size());
  for (size_t h = 0; h < holders.size(); ++h) {
    const auto& [idx, old] = holders[h];
    if (idx < 0 || idx >= static_cast<int>(snap_.pending.size())) return false;
    const Job& job = snap_.pending[idx];
    JobCtx& ctx = ctxs[h];
    ctx.job = &job;
    if (staticReason(job, ctx) != Reason::None || shapeReason(job, ctx) != Reason::None) {
      return false;
    }
    // A claim already in effect now would change the free-now keys below.
    if (ctx.reservation >= 0 || !ctx.required.empty() || !old->expectedStart ||
        *old->expectedStart <= now_ ||
        static_cast<int>(old->plannedNodes.size()) != ctx.demand.nodes) {
      return false;
    }
    if (ctx.demand.nodes > 1) {
      if (!index_.uniformWeight()) return false;
      continue;
    }
    single.push_back(static_cast<int>(h));
  }
  if (single.empty()) return true;
  // The nodes involved as the pass would see them at each holder: the running jobs (every one
  // holds until after now) and the reservations of the holders ahead, on a profile of their own.
  std::unordered_map<std::string, int> involved;
  for (int h : single) {
    involved.emplace(holders[h].second->plannedNodes.front(), -1);
    for (int node : nodesBehind[h]) involved.emplace(snap_.nodes[node].name, node);
  }
  for (const auto& [idx, old] : holders) {
    for (const std::string& name : old->plannedNodes) involved.emplace(name, -1);
  }
  const int n = index_.nodeCount();
  std::vector<char> mine(n, 0);
  for (auto& [name, node] : involved) {
    if (node < 0) node = index_.node(name);
    if (node < 0) return false;
    mine[node] = 1;
  }
  AvailabilityProfile local(now_, index_.totals());
  for (const RunningJob& r : snap_.running) {
    for (const NodeAllocation& a : r.allocation.nodes) {
      int node = a.nodeIndex;
      if (node < 0 || node >= n || snap_.nodes[node].name != a.node) {
        auto it = involved.find(a.node);
        if (it == involved.end()) continue;
        node = it->second;
      }
      if (!mine[node]) continue;
      local.addRunning(node, Capacity{a.cpus, a.memoryMb, static_cast<int>(a.gpus.size())},
                       r.expectedEnd);
    }
  }
  auto key = [&](int node) {
    const Capacity f = local.freeNow(node);
    return std::tuple(snap_.nodes[node].weight, f.gpus, f.cpus, snap_.nodes[node].index);
  };
  auto endOf = [](const JobCtx& ctx, int64_t t) {
    return ctx.duration >= kNever - t ? kNever : t + ctx.duration;
  };
  size_t next = 0;
  for (size_t h = 0; h < holders.size(); ++h) {
    const JobCtx& ctx = ctxs[h];
    const int64_t t = *holders[h].second->expectedStart;
    if (next < single.size() && single[next] == static_cast<int>(h)) {
      ++next;
      const int chosen = involved.at(holders[h].second->plannedNodes.front());
      for (int node : nodesBehind[h]) {
        if (node == chosen || !eligible(ctx, node)) continue;
        // Not ready at the holder's start: not a candidate of its choice.
        if (!local.fits(node, needOn(ctx, node), t, ctx.duration)) continue;
        if (!(key(chosen) < key(node))) return false;
      }
    }
    for (const std::string& name : holders[h].second->plannedNodes) {
      const int node = involved.at(name);
      local.claim(node, needOn(ctx, node), t, endOf(ctx, t));
    }
  }
  return true;
}

bool Pass::reservationsStand(const std::vector<std::pair<int, const PendingInfo*>>& holders,
                             const std::vector<std::vector<int>>& nodesBehind) {
  if (!snap_.reservations.empty()) return false;
  if (holdersUnmoved(holders, nodesBehind)) return true;
  lastPartName_.clear();
  lastPart_ = -1;
  prepare();
  for (const auto& [idx, old] : holders) {
    if (idx < 0 || idx >= static_cast<int>(snap_.pending.size())) return false;
    const Job& job = snap_.pending[idx];
    JobCtx ctx;
    ctx.job = &job;
    if (staticReason(job, ctx) != Reason::None || shapeReason(job, ctx) != Reason::None) {
      return false;
    }
    if (ctx.reservation >= 0) return false;
    PendingInfo info;
    // reserve() claims what it finds, so the next holder searches around it, as in the pass.
    if (!reserve(ctx, info)) return false;
    if (info.expectedStart != old->expectedStart || info.plannedNodes != old->plannedNodes) {
      return false;
    }
  }
  return true;
}

}  // namespace

Plan schedule(const Snapshot& snapshot, const SchedulerParams& params, int64_t now) {
  ClusterIndex index(snapshot.nodes, snapshot.partitions);
  return Pass(index, snapshot, params, now).run();
}

Plan schedule(const ClusterIndex& index, const Snapshot& snapshot, const SchedulerParams& params,
              int64_t now) {
  return Pass(index, snapshot, params, now).run();
}

Plan scheduleWithMemo(const ClusterIndex& index, const Snapshot& snapshot,
                      const SchedulerParams& params, int64_t now, PassMemo& memo) {
  return Pass(index, snapshot, params, now).run(&memo);
}

std::optional<PendingInfo> judgeSubmission(const ClusterIndex& index, const Snapshot& snapshot,
                                           const SchedulerParams& params, int64_t now,
                                           const PassMemo& memo, const Job& job,
                                           bool& skippedSameShape, OwnedShape* shape,
                                           int64_t* duration) {
  return Pass(index, snapshot, params, now).judge(memo, job, skippedSameShape, shape, duration);
}

std::optional<PlanDelta> replayAfterCompletion(const ClusterIndex& index, const Snapshot& snapshot,
                                               const SchedulerParams& params, int64_t now,
                                               const PassMemo& memo, const std::vector<int>& freed,
                                               const Plan& last, const std::vector<RankKey>& ranks,
                                               const std::vector<int>& jobs) {
  return Pass(index, snapshot, params, now).replay(memo, freed, last, ranks, jobs);
}

bool reservationsStand(const ClusterIndex& index, const Snapshot& snapshot,
                       const SchedulerParams& params, int64_t now,
                       const std::vector<std::pair<int, const PendingInfo*>>& holders,
                       const std::vector<std::vector<int>>& nodesBehind) {
  return Pass(index, snapshot, params, now).reservationsStand(holders, nodesBehind);
}

bool appendLastRanked(const ClusterIndex& index, const Snapshot& snapshot,
                      const SchedulerParams& params, int64_t now, PassMemo& memo,
                      const std::vector<int>& jobs, Plan& plan) {
  return Pass(index, snapshot, params, now).appendLast(memo, jobs, plan);
}

RankKey rankOf(const ClusterIndex& index, const Snapshot& snapshot, const Job& job) {
  int p = index.partition(job.request.partition);
  int tier = p < 0 ? 0 : snapshot.partitions[p].priorityTier;
  return RankKey{-tier, -job.priority, job.request.submitTime, rankIdOf(job), job.id};
}

}  // namespace drover::sched
