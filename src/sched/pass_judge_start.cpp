// The submission shortcut for jobs that start at once (judgeStartingSubmissions in
// sched/pass_memo.h; sched/pass.h).
#include <algorithm>
#include <tuple>

#include "sched/pass.h"

namespace drover::sched::detail {

// A full pass over the memo's queue plus the new jobs walks the jobs ranked ahead of the first
// of them as the memo's pass did (the memo's pass started nothing), so at its turn the profile
// holds the running jobs and the reservations of the holders ranked ahead; each later new job
// meets the starts of those ahead of it and the reservations of the holders between. Behind a
// start everything sees its claim besides what the memo's pass saw: capacity only went down, so
// every job that failed to start fails again, with the same reason (a partition's first blocked
// job is unchanged) and the same same-shape skips. What can move is a search: the reservations of
// the holders ranked behind a start, searched again here, and the start estimates, which stand
// when the claims cannot change them: an estimate's earliest start cannot come sooner, so it
// stays where its old nodes are still free, and the nodes chosen among those ready then stay
// unless a start made one of them preferable (a one-node estimate's best fit reads what is free
// now) or took one out of a window that non-uniform weights chose.
std::optional<std::vector<Start>> Pass::judgeStarts(const PassMemo& memo,
                                                    const std::vector<const Job*>& starting,
                                                    const Plan& last,
                                                    const std::vector<RankKey>& ranks,
                                                    const std::vector<int>& jobs) {
  if (starting.empty() || memo.hadStarts || now_ < memo.now || now_ >= memo.nextBoundary) {
    return std::nullopt;
  }
  // Where reservations are kept for their holders alone (FCFS, EASY: Scheduler::startsKeepable),
  // with no advance reservation and no job that chooses among partitions or features by the
  // claims it meets.
  if (params_.policy == Policy::Conservative || params_.reservationDepth > 1 ||
      !snap_.reservations.empty() || !memo.alternatives.empty()) {
    return std::nullopt;
  }
  if (ranks.size() != last.pending.size() || jobs.size() != ranks.size()) return std::nullopt;
  struct NewJob {
    RankKey rank;
    JobCtx ctx;
    bool blockedAhead;
  };
  std::vector<NewJob> news;
  for (const Job* job : starting) {
    if (triesAlternatives(job->request) || !job->request.reservation.empty()) return std::nullopt;
    NewJob& n = news.emplace_back();
    n.ctx.job = job;
    if (staticReason(*job, n.ctx) != Reason::None) return std::nullopt;
    const int p = n.ctx.partition;
    n.rank = rankOf(index_, snap_, *job);
    n.blockedAhead = memo.firstBlocked[p] && *memo.firstBlocked[p] < n.rank;
    if (params_.policy == Policy::Fcfs && n.blockedAhead) return std::nullopt;
    if (shapeReason(*job, n.ctx) != Reason::None) return std::nullopt;
    if (!n.ctx.required.empty() || !n.ctx.excluded.empty()) return std::nullopt;
    // The pass skips it for its shape.
    if (memo.failedAhead(owned(shapeKey(n.ctx)), n.rank, n.ctx.duration)) return std::nullopt;
  }
  std::sort(news.begin(), news.end(),
            [](const NewJob& a, const NewJob& b) { return a.rank < b.rank; });

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
    Holder& holder = holders.emplace_back();
    holder.pos = pos;
    if (!runnableContext(jobs[pos], holder.ctx) || holder.ctx.reservation >= 0) return std::nullopt;
  }
  std::sort(holders.begin(), holders.end(),
            [](const Holder& a, const Holder& b) { return a.pos < b.pos; });

  // The walk, in rank order: a holder ahead of every start claims what it reserved; one behind a
  // start is searched again and must reserve the same.
  prepare();
  PendingInfo unused;
  Plan plan;
  size_t h = 0;
  auto holdersAhead = [&](const RankKey* of) {
    for (; h < holders.size() && (!of || ranks[holders[h].pos] < *of); ++h) {
      const Holder& holder = holders[h];
      const PendingInfo& old = last.pending[holder.pos];
      if (plan.starts.empty()) {
        std::vector<int> nodes;
        for (const std::string& name : old.plannedNodes) {
          const int node = index_.node(name);
          if (node < 0) return false;
          nodes.push_back(node);
        }
        claimAt(holder.ctx, *old.expectedStart, nodes, profile_, unused);
        continue;
      }
      PendingInfo info;
      if (!reserve(holder.ctx, info) || info.expectedStart != old.expectedStart ||
          info.plannedNodes != old.plannedNodes) {
        return false;
      }
    }
    return true;
  };
  for (const NewJob& n : news) {
    if (!holdersAhead(&n.rank)) return std::nullopt;
    if (!tryStartPreferring(n.ctx, plan)) return std::nullopt;
    plan.starts.back().backfill = n.blockedAhead;
  }
  if (!holdersAhead(nullptr)) return std::nullopt;

  // The estimates, searched in rank order on the final profile, each claiming its nodes.
  std::vector<int> took;
  std::vector<int64_t> takenUntil(index_.nodeCount(), -1);  // -1: no start took the node
  int64_t lastEnd = 0;
  for (const Start& st : plan.starts) {
    lastEnd = std::max(lastEnd, st.endTime);
    for (const NodeAllocation& a : st.allocation.nodes) {
      if (takenUntil[a.nodeIndex] < 0) took.push_back(a.nodeIndex);
      takenUntil[a.nodeIndex] = std::max(takenUntil[a.nodeIndex], st.endTime);
    }
  }
  // The estimates' claims matter only on taken nodes, and only where an estimate there or a
  // one-node choice asks: the final profile is copied the first time one does.
  std::optional<AvailabilityProfile> scratch;
  auto estimateProfile = [&]() -> AvailabilityProfile& {
    if (!scratch) scratch.emplace(profile_);
    return *scratch;
  };
  auto key = [&](int node) {
    const Capacity f = profile_.freeNow(node);
    return std::tuple(snap_.nodes[node].weight, f.gpus, f.cpus, snap_.nodes[node].index);
  };
  for (const EstimateRecord& r : memo.estimated) {
    if (r.start == kNever) continue;  // none sooner with less capacity
    bool touches = false;
    for (int node : r.nodes) {
      if (takenUntil[node] < 0) continue;
      touches = true;
      // Its node may no longer be free from its start.
      if (r.start < takenUntil[node]) return std::nullopt;
    }
    const bool single = r.nodes.size() == 1;
    if (!single) {
      // Ready from its start as before, unless a start ends later (then only taken nodes, never
      // its own, dropped out: with equal weights the chosen window stays).
      if (r.start < lastEnd && !index_.uniformWeight()) return std::nullopt;
      if (!touches) continue;  // later checks read the scratch profile on taken nodes only
    }
    JobCtx est;
    if (!runnableContext(r.job, est)) return std::nullopt;
    if (single) {
      const int chosen = r.nodes.front();
      for (int node : took) {
        if (node == chosen || !eligible(est, node)) continue;
        if (!estimateProfile().fits(node, needOn(est, node), r.start, est.duration)) continue;
        if (!(key(chosen) < key(node))) return std::nullopt;
      }
    }
    if (!touches) continue;
    const int64_t until = est.duration >= kNever - r.start ? kNever : r.start + est.duration;
    AvailabilityProfile& claims = estimateProfile();
    for (int node : r.nodes) claims.claim(node, needOn(est, node), r.start, until);
  }
  return std::move(plan.starts);
}

}  // namespace drover::sched::detail
