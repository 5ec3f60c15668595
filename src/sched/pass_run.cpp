// The pass over the queue in priority order, and the submission shortcuts that extend or
// judge against its memo (sched/pass.h, sched/pass_memo.h).
#include "sched/pass.h"

#include <numeric>
#include <tuple>

namespace drover::sched::detail {

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
    Reason why = Reason::None;
    // A job of several partitions tries to start in each in turn here; what follows sees it
    // in the one it waits in (startInListedPartition), already tried. Such jobs, and those with
    // preferred features, are kept apart in the memo (PassMemo::alternatives).
    const bool listed = triesListed(job.request);
    const bool alternative = triesAlternatives(job.request);
    const bool prefers = !job.request.prefer.empty();
    if (memo && alternative) memo->alternatives.push_back({rank(idx), listed, -1});
    if (listed) {
      if (startInListedPartition(job, blocked, plan, ctx, why)) continue;
    } else {
      why = staticReason(job, ctx);
    }
    // Under FCFS nothing behind a blocked job may start; its reason is Priority.
    if (why == Reason::None && params_.policy == Policy::Fcfs && blocked[ctx.partition]) {
      why = Reason::Priority;
    }
    if (why == Reason::None && !listed) why = shapeReason(job, ctx);
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
    bool mayStart = !listed && !(params_.policy == Policy::Fcfs && blocked[p]);
    const bool cacheable = ctx.required.empty() && ctx.excluded.empty();
    // A job that may start on its preferred features neither fails for its shape nor tells of it.
    const bool shaped = cacheable && !prefers;
    ShapeKey key{};
    if (mayStart && shaped) {
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
      if (memo && !cacheable && !alternative) memo->unshaped.emplace_back(rank(idx), idx);
      if (tryStartPreferring(ctx, plan)) {
        plan.starts.back().backfill = blocked[p];
        plan.stats.backfilled += blocked[p];
        continue;
      }
      if (shaped) {
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
    if (memo && alternative) memo->alternatives.back().waitPartition = p;
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
  for (int idx : jobs) {
    if (triesAlternatives(snap_.pending[idx].request)) return false;  // as judge()
  }
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
        plan.starts.back().backfill = memo.firstBlocked[p].has_value();
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
  // One that may start in any of several partitions or prefers features: where it waits is
  // the pass's choice among them (PassMemo::alternatives), so a full pass.
  if (triesAlternatives(job.request)) return std::nullopt;
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
  OwnedShape mine = owned(shapeKey(ctx));
  if (!memo.failedAhead(mine, me, ctx.duration)) return std::nullopt;
  skipped = true;
  if (shape) *shape = std::move(mine);
  if (duration) *duration = ctx.duration;
  info.reason = Reason::Priority;
  return info;
}

}  // namespace drover::sched::detail
