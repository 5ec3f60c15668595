#include "sched/scheduler.h"

#include <algorithm>
#include <bit>
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

namespace drover::sched {

namespace {

// The shape of a request that failed to start now: equal shapes fail again in the same pass.
struct ShapeKey {
  int partition, nodes, cpus, gpus;
  int64_t memoryMb;
  bool wholeNode;
  const std::string* gpuType;
  const std::string* constraint;
  bool operator==(const ShapeKey& o) const {
    return partition == o.partition && nodes == o.nodes && cpus == o.cpus && gpus == o.gpus &&
           memoryMb == o.memoryMb && wholeNode == o.wholeNode && *gpuType == *o.gpuType &&
           *constraint == *o.constraint;
  }
};
struct ShapeHash {
  size_t operator()(const ShapeKey& k) const {
    size_t h = std::hash<std::string>()(*k.constraint) ^ std::hash<std::string>()(*k.gpuType);
    for (int64_t v : {int64_t{k.partition}, int64_t{k.nodes}, int64_t{k.cpus}, int64_t{k.gpus},
                      k.memoryMb, int64_t{k.wholeNode}}) {
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
  std::optional<PendingInfo> judge(const PassMemo& memo, const Job& job, bool& skipped);

 private:
  OwnedShape owned(const ShapeKey& k) const {
    return OwnedShape{k.partition, k.nodes, k.cpus, k.gpus, k.memoryMb, k.wholeNode,
                      *k.gpuType, *k.constraint};
  }

  void prepare();
  void bucketUpdate(int node);
  // Reasons from the job's own state and its partition's state; sets ctx.partition.
  Reason staticReason(const Job& job, JobCtx& ctx);
  // Reasons from the request's shape against partition limits; fills the rest of ctx.
  Reason shapeReason(const Job& job, JobCtx& ctx);
  Capacity needOn(const JobCtx& ctx, int node) const;
  bool eligible(const JobCtx& ctx, int node) const;
  bool fitsNow(const JobCtx& ctx, int node) const;
  std::vector<int> chooseNodes(const JobCtx& ctx, std::vector<int> candidates) const;
  bool tryStartNow(const JobCtx& ctx, Plan& plan);
  bool reserve(const JobCtx& ctx, PendingInfo& info);
  bool reserveOn(const JobCtx& ctx, PendingInfo& info, const std::vector<int>& nodes,
                 AvailabilityProfile& profile);
  void commitNow(const JobCtx& ctx, std::vector<int> chosen, AvailabilityProfile& profile,
                 Plan& plan);
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
  void estimateStarts(std::vector<std::pair<JobCtx, size_t>>& jobs, Plan& plan);
  // The shape without its node count: what a FitIndex depends on.
  ShapeKey fitKey(const JobCtx& ctx) const {
    ShapeKey k = shapeKey(ctx);
    k.nodes = 0;
    return k;
  }
  // Claims the earliest start found through `fi` on `profile`; returns it, or kNever.
  int64_t reserveIndexed(const JobCtx& ctx, PendingInfo& info, FitIndex& fi,
                         AvailabilityProfile& profile);

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

bool Pass::eligible(const JobCtx& ctx, int node) const {
  if (!snap_.nodes[node].usable) return false;
  if (!index_.inPartition(node, ctx.partition)) return false;
  if (!ctx.excluded.empty() && std::binary_search(ctx.excluded.begin(), ctx.excluded.end(), node))
    return false;
  if (ctx.constraint && !ctx.constraint->matches(index_.features(node))) return false;
  if (!ctx.demand.gpuType.empty() && ctx.demand.perNode.gpus > 0 &&
      std::popcount(index_.gpuMask(node, ctx.demand.gpuType)) < ctx.demand.perNode.gpus)
    return false;
  return true;
}

bool Pass::fitsNow(const JobCtx& ctx, int node) const {
  if (!profile_.fits(node, needOn(ctx, node), now_, ctx.duration)) return false;
  if (!ctx.demand.gpuType.empty() && ctx.demand.perNode.gpus > 0) {
    uint64_t free = freeGpuMask_[node] & index_.gpuMask(node, ctx.demand.gpuType);
    if (std::popcount(free) < ctx.demand.perNode.gpus) return false;
  }
  return true;
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

bool Pass::tryStartNow(const JobCtx& ctx, Plan& plan) {
  std::vector<int> cands;
  for (int r : ctx.required) {
    if (!eligible(ctx, r) || !fitsNow(ctx, r)) return false;
    cands.push_back(r);
  }
  if (static_cast<int>(ctx.required.size()) < ctx.demand.nodes) {
    int lowest = ctx.demand.wholeNode ? 0 : ctx.demand.perNode.gpus;
    bool single = ctx.demand.nodes == 1 && ctx.required.empty();
    ++scan_;
    for (int b = std::min(lowest, maxGpus_ + 1); b <= maxGpus_; ++b) {
      for (int node : buckets_[b]) {
        if (nodeBucket_[node] != b || seen_[node] == scan_) continue;
        seen_[node] = scan_;
        if (eligible(ctx, node) && fitsNow(ctx, node)) cands.push_back(node);
      }
      // Buckets rise in free GPUs, so with equal weights the first bucket that fits is the best.
      if (single && index_.uniformWeight() && !cands.empty()) break;
    }
  }
  std::vector<int> chosen = chooseNodes(ctx, std::move(cands));
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
  for (int node : chosen) {
    Capacity need = needOn(ctx, node);
    NodeAllocation a;
    a.node = snap_.nodes[node].name;
    a.nodeIndex = node;
    a.cpus = need.cpus;
    a.memoryMb = need.memoryMb;
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
                             AvailabilityProfile& profile) {
  std::vector<int> ready;
  const int64_t latest = params_.reserveHorizonS > 0 ? now_ + params_.reserveHorizonS : kNever;
  int64_t t = fi.earliestStart(profile, ctx.demand.nodes, ctx.duration, ready, latest);
  if (t == kNever) return kNever;
  std::vector<int> chosen = chooseNodes(ctx, std::move(ready));
  if (chosen.empty()) return kNever;
  int64_t end = ctx.duration >= kNever - t ? kNever : t + ctx.duration;
  for (int node : chosen) {
    profile.claim(node, needOn(ctx, node), t, end);
    if (&profile == &profile_) info.plannedNodes.push_back(snap_.nodes[node].name);
  }
  return t;
}

// Start estimates for blocked jobs without a reservation: the same search as conservative
// backfill, in priority order, on a copy of the profile, so no estimate constrains the plan.
void Pass::estimateStarts(std::vector<std::pair<JobCtx, size_t>>& jobs, Plan& plan) {
  if (jobs.empty()) return;
  AvailabilityProfile scratch = profile_;
  FitIndexes indexes;
  PendingInfo unused;
  for (auto& [ctx, pos] : jobs) {
    int64_t t = reserveIndexed(ctx, unused, fitIndex(ctx, scratch, indexes), scratch);
    if (t != kNever) plan.pending[pos].estimatedStart = t;
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
  return Reason::None;
}

ShapeKey Pass::shapeKey(const JobCtx& ctx) const {
  const Demand& d = ctx.demand;
  // Pointers into the job (which outlives the pass), never into the short-lived ctx.
  return ShapeKey{ctx.partition,  d.nodes,     d.perNode.cpus,
                  d.perNode.gpus, d.perNode.memoryMb, d.wholeNode,
                  &ctx.job->request.gpuType, &ctx.job->request.constraint};
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
    return std::tuple(-tier[a], -x.priority, x.request.submitTime, x.id) <
           std::tuple(-tier[b], -y.priority, y.request.submitTime, y.id);
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
      if (j.request.beginTime > now_) b = std::min(b, j.request.beginTime);
    }
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
    return RankKey{-tier[idx], -j.priority, j.request.submitTime, j.id};
  };

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
      auto it = failedShapes.find(key);
      if (it != failedShapes.end() && ctx.duration >= it->second) {
        mayStart = false;
        ++plan.stats.skippedSameShape;
      }
    }
    if (mayStart) {
      if (tryStartNow(ctx, plan)) continue;
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
  estimateStarts(estimates, plan);
  if (memo) {
    memo->hadStarts = !plan.starts.empty();
    memo->estimatesFull = static_cast<int>(estimates.size()) >= estimateDepth;
    for (const PendingInfo& info : plan.pending) {
      if (info.expectedStart) memo->nextBoundary = std::min(memo->nextBoundary, *info.expectedStart);
      if (info.estimatedStart) {
        memo->nextBoundary = std::min(memo->nextBoundary, *info.estimatedStart);
      }
    }
  }
  return plan;
}

std::optional<PendingInfo> Pass::judge(const PassMemo& memo, const Job& job, bool& skipped) {
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
  info.reason = Reason::Priority;
  return info;
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
                                           bool& skippedSameShape) {
  return Pass(index, snapshot, params, now).judge(memo, job, skippedSameShape);
}

RankKey rankOf(const ClusterIndex& index, const Snapshot& snapshot, const Job& job) {
  int p = index.partition(job.request.partition);
  int tier = p < 0 ? 0 : snapshot.partitions[p].priorityTier;
  return RankKey{-tier, -job.priority, job.request.submitTime, job.id};
}

}  // namespace drover::sched
