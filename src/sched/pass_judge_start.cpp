// The submission shortcut for a job that starts at once (judgeStartingSubmission in
// sched/pass_memo.h; sched/pass.h).
#include <algorithm>
#include <tuple>

#include "sched/pass.h"

namespace drover::sched::detail {

// A full pass over the memo's queue plus `job` walks the jobs ranked ahead of it as the memo's
// pass did (the new job changes nothing before its turn; the memo's pass started nothing), so at
// its turn the profile holds the running jobs and the reservations of the holders ranked ahead.
// If it starts there, everything behind it sees its claim besides what the memo's pass saw:
// capacity only went down, so every job that failed to start fails again, with the same reason
// (a partition's first blocked job is unchanged) and the same same-shape skips. What can move is
// a search: the reservations of the holders ranked behind it, searched again here, and the start
// estimates, which stand when the claim cannot change them: an estimate's earliest start cannot
// come sooner, so it stays where its old nodes are still free, and the nodes chosen among those
// ready then stay unless the start made one of them preferable (a one-node estimate's best fit
// reads what is free now) or took one out of a window that non-uniform weights chose.
std::optional<Start> Pass::judgeStart(const PassMemo& memo, const Job& job, const Plan& last,
                                      const std::vector<RankKey>& ranks,
                                      const std::vector<int>& jobs) {
  if (memo.hadStarts || now_ < memo.now || now_ >= memo.nextBoundary) return std::nullopt;
  // Where reservations are kept for their holders alone (FCFS, EASY: Scheduler::startsKeepable),
  // with no advance reservation and no job that chooses among partitions or features by the
  // claims it meets.
  if (params_.policy == Policy::Conservative || params_.reservationDepth > 1 ||
      !snap_.reservations.empty() || !memo.alternatives.empty()) {
    return std::nullopt;
  }
  if (triesAlternatives(job.request) || !job.request.reservation.empty()) return std::nullopt;
  if (ranks.size() != last.pending.size() || jobs.size() != ranks.size()) return std::nullopt;
  JobCtx ctx;
  ctx.job = &job;
  if (staticReason(job, ctx) != Reason::None) return std::nullopt;
  const int p = ctx.partition;
  const RankKey me = rankOf(index_, snap_, job);
  const bool blockedAhead = memo.firstBlocked[p] && *memo.firstBlocked[p] < me;
  if (params_.policy == Policy::Fcfs && blockedAhead) return std::nullopt;
  if (shapeReason(job, ctx) != Reason::None) return std::nullopt;
  if (!ctx.required.empty() || !ctx.excluded.empty()) return std::nullopt;
  // A job of its shape that failed ahead of it, no longer than it: the pass skips it.
  auto failed = memo.failures.find(owned(shapeKey(ctx)));
  if (failed != memo.failures.end()) {
    const auto& list = failed->second;
    auto after = std::lower_bound(list.begin(), list.end(), me,
                                  [](const auto& e, const RankKey& k) { return e.first < k; });
    if (after != list.begin() && std::prev(after)->second <= ctx.duration) return std::nullopt;
  }

  // The holders' contexts, in rank order (at most one per partition).
  struct Holder {
    size_t pos;
    JobCtx ctx;
  };
  std::vector<Holder> holders;
  for (const auto& h : memo.depthReached) {
    if (!h) continue;
    const size_t pos = static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), *h) -
                                           ranks.begin());
    if (pos >= ranks.size() || ranks[pos] != *h || !last.pending[pos].expectedStart) {
      return std::nullopt;
    }
    const int idx = jobs[pos];
    if (idx < 0 || idx >= static_cast<int>(snap_.pending.size())) return std::nullopt;
    Holder& holder = holders.emplace_back();
    holder.pos = pos;
    holder.ctx.job = &snap_.pending[idx];
    if (staticReason(*holder.ctx.job, holder.ctx) != Reason::None ||
        shapeReason(*holder.ctx.job, holder.ctx) != Reason::None || holder.ctx.reservation >= 0) {
      return std::nullopt;
    }
  }
  std::sort(holders.begin(), holders.end(),
            [](const Holder& a, const Holder& b) { return a.pos < b.pos; });

  prepare();
  PendingInfo unused;
  for (const Holder& h : holders) {
    if (!(ranks[h.pos] < me)) break;
    const PendingInfo& old = last.pending[h.pos];
    std::vector<int> nodes;
    for (const std::string& name : old.plannedNodes) {
      const int node = index_.node(name);
      if (node < 0) return std::nullopt;
      nodes.push_back(node);
    }
    claimAt(h.ctx, *old.expectedStart, nodes, profile_, unused);
  }
  Plan plan;
  if (!tryStartPreferring(ctx, plan)) return std::nullopt;
  Start start = std::move(plan.starts.back());
  start.backfill = blockedAhead;
  for (const Holder& h : holders) {
    if (ranks[h.pos] < me) continue;
    PendingInfo info;
    const PendingInfo& old = last.pending[h.pos];
    if (!reserve(h.ctx, info) || info.expectedStart != old.expectedStart ||
        info.plannedNodes != old.plannedNodes) {
      return std::nullopt;
    }
  }

  // The estimates, searched in rank order on the final profile, each claiming its nodes.
  const int64_t end = start.endTime;
  std::vector<int> took;
  std::vector<char> isTaken(index_.nodeCount(), 0);
  for (const NodeAllocation& a : start.allocation.nodes) {
    took.push_back(a.nodeIndex);
    isTaken[a.nodeIndex] = 1;
  }
  AvailabilityProfile scratch = profile_;
  auto key = [&](int node) {
    const Capacity f = profile_.freeNow(node);
    return std::tuple(snap_.nodes[node].weight, f.gpus, f.cpus, snap_.nodes[node].index);
  };
  for (const EstimateRecord& r : memo.estimated) {
    if (r.start == kNever) continue;  // none sooner with less capacity
    const bool touches =
        std::any_of(r.nodes.begin(), r.nodes.end(), [&](int node) { return isTaken[node]; });
    // Its nodes may no longer be free from its start.
    if (touches && r.start < end) return std::nullopt;
    const bool single = r.nodes.size() == 1;
    if (!single) {
      // Ready from its start as before, unless the start ends later (then only taken nodes,
      // never its own, dropped out: with equal weights the chosen window stays).
      if (r.start < end && !index_.uniformWeight()) return std::nullopt;
      if (!touches) continue;  // later checks read the scratch profile on taken nodes only
    }
    if (r.job < 0 || r.job >= static_cast<int>(snap_.pending.size())) return std::nullopt;
    JobCtx est;
    est.job = &snap_.pending[r.job];
    if (staticReason(*est.job, est) != Reason::None || shapeReason(*est.job, est) != Reason::None) {
      return std::nullopt;
    }
    if (single) {
      const int chosen = r.nodes.front();
      for (int node : took) {
        if (node == chosen || !eligible(est, node)) continue;
        if (!scratch.fits(node, needOn(est, node), r.start, est.duration)) continue;
        if (!(key(chosen) < key(node))) return std::nullopt;
      }
    }
    if (!touches) continue;
    const int64_t until = est.duration >= kNever - r.start ? kNever : r.start + est.duration;
    for (int node : r.nodes) scratch.claim(node, needOn(est, node), r.start, until);
  }
  return start;
}

}  // namespace drover::sched::detail
