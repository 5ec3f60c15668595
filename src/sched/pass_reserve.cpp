// Reservations for blocked jobs (backfill), start estimates, and advance reservations
// (sched/pass.h).
#include "sched/pass.h"

#include <numeric>

namespace drover::sched::detail {

// Finds the earliest time the job fits and claims it in the profile, so lower-priority work
// cannot take it.
bool Pass::reserve(const JobCtx& ctx, PendingInfo& info) {
  if (ctx.reservation >= 0) {
    return reserveOn(ctx, info, reservationNodes(ctx), *resv_[ctx.reservation].profile);
  }
  std::vector<int> chosen;
  const int64_t t = earliestStart(ctx, chosen);
  if (t == kNever) return false;
  claimAt(ctx, t, chosen, profile_, info);
  info.expectedStart = t;
  return true;
}

void Pass::claimAt(const JobCtx& ctx, int64_t t, const std::vector<int>& nodes,
                   AvailabilityProfile& profile, PendingInfo& info) const {
  const int64_t end = ctx.duration >= kNever - t ? kNever : t + ctx.duration;
  for (int node : nodes) {
    profile.claim(node, needOn(ctx, node), t, end);
    info.plannedNodes.push_back(snap_.nodes[node].name);
  }
}

// Each node reports its own earliest fit; the k-th smallest is a lower bound on the start, and
// nodes that cannot hold the job at that bound move on until k of them can.
int64_t Pass::earliestStart(const JobCtx& ctx, std::vector<int>& chosen) {
  if (!ctx.required.empty() && ctx.demand.nodes <= static_cast<int>(ctx.required.size())) {
    return earliestOn(ctx, ctx.required, profile_, chosen);
  }
  // An index costs about one search over every node to build, so the first search of a shape
  // in a pass (often the only one, under EASY) asks every node; later ones use the index.
  const bool indexable = params_.indexedReserveSearch && ctx.required.empty() &&
                         ctx.excluded.empty() && exhaustiveSearches_[fitKey(ctx)]++ > 0;
  if (!indexable) return earliestOn(ctx, eligibleNodes(ctx), profile_, chosen);
  return earliestIndexed(ctx, fitIndex(ctx, profile_, fitIndexes_), profile_, chosen);
}

int64_t Pass::earliestIndexed(const JobCtx& ctx, FitIndex& fi, const AvailabilityProfile& profile,
                              std::vector<int>& chosen) const {
  std::vector<int> ready;
  const int64_t latest = params_.reserveHorizonS > 0 ? now_ + params_.reserveHorizonS : kNever;
  const int64_t t = fi.earliestStart(profile, ctx.demand.nodes, ctx.duration, ready, latest);
  if (t == kNever) return kNever;
  chosen = chooseNodes(ctx, std::move(ready));
  return chosen.empty() ? kNever : t;
}

std::vector<int> Pass::eligibleNodes(const JobCtx& ctx) const {
  std::vector<int> nodes;
  for (int node : index_.partitionNodes(ctx.partition)) {
    if (eligible(ctx, node)) nodes.push_back(node);
  }
  return nodes;
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
  perProbe.emplace_back(
      probe, std::make_unique<FitIndex>(profile, eligibleNodes(ctx), ctx.demand, probe));
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
  std::vector<int> chosen;
  const int64_t t = earliestIndexed(ctx, fi, profile, chosen);
  if (t == kNever) return kNever;
  claimAt(ctx, t, chosen, profile, info);
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
  std::vector<int> chosen;
  const int64_t t = earliestOn(ctx, nodes, profile, chosen);
  if (t == kNever) return false;
  claimAt(ctx, t, chosen, profile, info);
  info.expectedStart = t;
  return true;
}

int64_t Pass::earliestOn(const JobCtx& ctx, const std::vector<int>& nodes,
                         const AvailabilityProfile& profile, std::vector<int>& chosen) const {
  const int k = ctx.demand.nodes;
  if (static_cast<int>(nodes.size()) < k) return kNever;
  std::vector<int64_t> fit(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    fit[i] = profile.earliestFit(nodes[i], needOn(ctx, nodes[i]), now_, ctx.duration);
  }
  std::vector<int64_t> scratch;
  while (true) {
    scratch = fit;
    std::nth_element(scratch.begin(), scratch.begin() + (k - 1), scratch.end());
    int64_t t = scratch[k - 1];
    if (t == kNever) return kNever;
    if (params_.reserveHorizonS > 0 && t > now_ + params_.reserveHorizonS) return kNever;
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
    chosen = chooseNodes(ctx, ready);
    return chosen.empty() ? kNever : t;
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

}  // namespace drover::sched::detail
