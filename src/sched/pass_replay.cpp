// The pass after running jobs ended, replayed from the memo of the last pass, and the check
// that reservations stand (sched/pass.h, sched/pass_memo.h).
#include "sched/pass.h"

#include <map>
#include <tuple>

namespace drover::sched::detail {

namespace {

// How the same-shape skip count changes when the jobs in `startedInGroup` (shape group, rank)
// start in a replay: in the memo's pass every job of a group failed, so a job was skipped when
// one ahead of it was no longer; here the started ones no longer count as failures.
int skipCountChange(const PassMemo& memo, std::vector<std::pair<int, RankKey>> startedInGroup) {
  int change = 0;
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
      change += static_cast<int>(newSkip) - static_cast<int>(oldSkip);
      if (t == b && pmNew == pmOld) break;
    }
    a = b;
  }
  return change;
}

}  // namespace

// What a replay (Pass::replay) has changed so far: the plan entries that differ from the last
// plan, the jobs it started, and the dirty nodes, whose state may differ from the memo's pass at
// the same point of the walk.
struct ReplayEdits {
  ReplayEdits(const Plan& last, const std::vector<RankKey>& ranks, int nodes)
      : last(last), ranks(ranks), isDirty(static_cast<size_t>(nodes), 0) {}

  // A job's place in the last plan (and in `ranks`, the ranks of its pending jobs).
  size_t posOf(const RankKey& r) const {
    return static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin());
  }
  const PendingInfo& current(size_t pos) const {
    auto it = changed.find(pos);
    return it == changed.end() ? last.pending[pos] : it->second;
  }
  // The entry to write, copied from the last plan on first use.
  PendingInfo& entry(size_t pos) {
    auto it = changed.find(pos);
    if (it == changed.end()) it = changed.emplace(pos, last.pending[pos]).first;
    return it->second;
  }
  void markDirty(int node) {
    if (node < 0 || node >= static_cast<int>(isDirty.size()) || isDirty[node]) return;
    isDirty[node] = 1;
    dirty.push_back(node);
    ++changes;
  }
  bool started(size_t pos) const {
    return std::binary_search(startedPos.begin(), startedPos.end(), pos);
  }

  const Plan& last;
  const std::vector<RankKey>& ranks;
  std::map<size_t, PendingInfo> changed;
  std::vector<size_t> startedPos;  // in walk order, which is rank order
  // Per position of a job of several partitions, the partition it waits in (-1: none).
  std::unordered_map<size_t, int> waitPartition;
  std::vector<char> isDirty;
  std::vector<int> dirty;
  uint64_t changes = 0;  // bumps on every new dirty node and every claim
};

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
  ReplayEdits ed(last, ranks, index_.nodeCount());
  for (int node : freed) ed.markDirty(node);
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
    oldHolder[p] = ed.posOf(*memo.depthReached[p]);
    if (oldHolder[p] >= ranks.size() || ranks[oldHolder[p]] != *memo.depthReached[p]) {
      return std::nullopt;
    }
    oldHolderNodes[p] = nodeIndices(last.pending[oldHolder[p]].plannedNodes);
    holderDone[p] = 0;
  }
  auto dropOldHolder = [&](size_t p) {
    if (holderDone[p]) return;
    holderDone[p] = 1;
    for (int node : oldHolderNodes[p]) ed.markDirty(node);
  };

  enum class Mode : char { Before, Walking, Settled };
  std::vector<Mode> mode(parts, Mode::Settled);
  std::vector<size_t> firstPos(parts, kNone);
  for (size_t p = 0; p < parts; ++p) {
    if (!memo.firstBlocked[p]) continue;
    mode[p] = Mode::Before;
    firstPos[p] = ed.posOf(*memo.firstBlocked[p]);
  }
  std::vector<char> blocked(parts, 0);
  std::vector<int> made(parts, 0);
  std::vector<size_t> newHolder(parts, kNone);
  Plan startsPlan;
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
    for (int node : nodes) ed.markDirty(node);
  };

  auto dirtyFits = [&](const JobCtx& ctx) {
    for (int d : ed.dirty) {
      if (startsOn(ctx, d)) return true;
    }
    return false;
  };

  // Where each job of several partitions waited in the memo's pass (PassMemo::alternatives).
  for (const PassMemo::Alternative& a : memo.alternatives) {
    if (a.listed) ed.waitPartition.emplace(ed.posOf(a.rank), a.waitPartition);
  }
  bool moved = false;  // such a job would wait in another partition: no replay
  auto recordStart = [&](size_t pos, int group) {
    const PendingInfo& was = last.pending[pos];
    ed.startedPos.push_back(pos);
    for (const NodeAllocation& a : startsPlan.starts.back().allocation.nodes) {
      ed.markDirty(a.nodeIndex);
    }
    ++ed.changes;
    if (group >= 0) startedInGroup.emplace_back(group, ranks[pos]);
    for (size_t p = 0; p < parts; ++p) {
      if (oldHolder[p] == pos) dropOldHolder(p);
    }
    if (perJob && was.expectedStart) markAll(nodeIndices(was.plannedNodes));
  };

  // One job as the full pass's loop body treats it (same-shape skips aside, which change no
  // outcome). Entries are written only where they differ from the last plan.
  auto visit = [&](size_t pos) {
    const Job& job = snap_.pending[jobs[pos]];
    JobCtx ctx;
    ctx.job = &job;
    Reason why = Reason::None;
    const bool listed = triesListed(job.request);
    const bool prefers = !job.request.prefer.empty();
    if (listed) {
      if (startInListedPartition(job, blocked, startsPlan, ctx, why)) {
        recordStart(pos, -1);
        return;
      }
      if (why == Reason::None && !backfill && blocked[ctx.partition]) why = Reason::Priority;
      const auto at = ed.waitPartition.find(pos);
      const int waited = at == ed.waitPartition.end() ? -1 : at->second;
      if ((why == Reason::None ? ctx.partition : -1) != waited) {
        moved = true;
        return;
      }
    } else {
      why = staticReason(job, ctx);
      if (why == Reason::None && !backfill && blocked[ctx.partition]) why = Reason::Priority;
      if (why == Reason::None) why = shapeReason(job, ctx);
    }
    const PendingInfo& was = last.pending[pos];
    if (why != Reason::None) {
      if (was.reason != why || was.expectedStart || !was.plannedNodes.empty()) {
        PendingInfo& e = ed.entry(pos);
        e.reason = why;
        e.expectedStart.reset();
        e.plannedNodes.clear();
      }
      return;
    }
    const int p = ctx.partition;
    const bool cacheable = ctx.required.empty() && ctx.excluded.empty();
    // As in the pass: a job of several partitions was tried above, and one with preferred
    // features belongs to no shape group.
    const int g = cacheable && backfill && !prefers && !listed ? groupOf(ctx) : -1;
    // Under FCFS the jobs behind the first blocked one were not tried in the memo's pass.
    const bool triedThere = backfill || pos == firstPos[p];
    if (!listed && (g < 0 || ctx.duration < failCap[g])) {
      // dirtyFits asks of the job's constraint, not of its preferred features.
      if ((prefers || !triedThere || dirtyFits(ctx)) && tryStartPreferring(ctx, startsPlan)) {
        startsPlan.starts.back().backfill = blocked[p];
        startsPlan.stats.backfilled += blocked[p];
        recordStart(pos, g);
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
          reuseSearch(ctx, *was.expectedStart, oldNodes, profile_, ed.dirty, ed.isDirty, t,
                      nodes)) {
        claimAt(ctx, t, nodes, profile_, info);
        info.expectedStart = t;
        ok = true;
      } else {
        ok = reserve(ctx, info);
      }
      if (ok) {
        ++made[p];
        ++ed.changes;
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
      PendingInfo& e = ed.entry(pos);
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
    if (reachAt == ed.changes) return;
    reachAt = ed.changes;
    for (size_t g = 0; g < groups; ++g) {
      reach[g] = -1;
      if (!groupOk[g]) continue;
      for (int d : ed.dirty) reach[g] = std::max(reach[g], freeReach(groupCtx[g], d));
      reach[g] = std::min(reach[g], failCap[g] - 1);
    }
  };
  std::vector<size_t> unshapedPos;
  for (const auto& [rank, idx] : memo.unshaped) unshapedPos.push_back(ed.posOf(rank));
  size_t unshapedNext = 0;
  // The jobs of several partitions or with preferred features are visited in turn whatever the
  // policy: under FCFS one may start in a partition that has no blocked job.
  std::vector<size_t> alternativePos;
  for (const PassMemo::Alternative& a : memo.alternatives) alternativePos.push_back(ed.posOf(a.rank));
  size_t alternativeNext = 0;

  size_t next = 0;
  const size_t total = ranks.size();
  // Under conservative every later reservation can move with an earlier one; once the changes
  // spread over many nodes a replay costs more than the full pass it stands for: give up.
  constexpr size_t kSpreadLimit = 256;
  while (next < total) {
    if (perJob && ed.dirty.size() > kSpreadLimit) return std::nullopt;
    bool walking = false;
    for (size_t p = 0; p < parts; ++p) {
      if (mode[p] == Mode::Before && firstPos[p] <= next) mode[p] = Mode::Walking;
      walking = walking || mode[p] == Mode::Walking;
    }
    if (walking) {
      visit(next++);
      if (moved) return std::nullopt;
      continue;
    }
    // Jump to the next job that can change: a partition's first blocked job, a job with node
    // lists, or the first job of a shape that fits a dirty node for its duration.
    size_t target = kNone;
    for (size_t p = 0; p < parts; ++p) {
      if (mode[p] == Mode::Before) target = std::min(target, firstPos[p]);
    }
    while (alternativeNext < alternativePos.size() && alternativePos[alternativeNext] < next) {
      ++alternativeNext;
    }
    if (alternativeNext < alternativePos.size()) {
      target = std::min(target, alternativePos[alternativeNext]);
    }
    if (backfill) {
      while (unshapedNext < unshapedPos.size() && unshapedPos[unshapedNext] < next) ++unshapedNext;
      if (unshapedNext < unshapedPos.size()) target = std::min(target, unshapedPos[unshapedNext]);
      refreshReach();
      for (size_t g = 0; g < groups; ++g) {
        if (reach[g] < 0) continue;
        const ShapeGroup::Entry* e = memo.groups[g].nextWithin(ranks[next], reach[g]);
        if (e) target = std::min(target, ed.posOf(e->rank));
      }
    }
    if (target == kNone) break;
    next = target;
    bool isFirst = false;
    for (size_t p = 0; p < parts; ++p) {
      isFirst = isFirst || (mode[p] == Mode::Before && firstPos[p] == target);
    }
    if (isFirst) continue;  // switches that partition to walking
    visit(next++);
    if (moved) return std::nullopt;
  }
  for (size_t p = 0; p < parts; ++p) {
    dropOldHolder(p);
    // An old holder the walk passed by (a job ahead of it took the reservation) loses it.
    const size_t h = oldHolder[p];
    if (h != kNone && newHolder[p] != h &&
        !ed.started(h) && ed.current(h).expectedStart) {
      PendingInfo& e = ed.entry(h);
      e.expectedStart.reset();
      e.plannedNodes.clear();
    }
  }

  PlanDelta out;
  out.stats = last.stats;
  out.stats.reservationsMade = 0;
  out.stats.backfilled = startsPlan.stats.backfilled;  // the memo's pass started nothing
  for (size_t p = 0; p < parts; ++p) out.stats.reservationsMade += made[p];
  if (backfill) out.stats.skippedSameShape += skipCountChange(memo, std::move(startedInGroup));

  if (!replayEstimates(memo, ed, jobs, walkedBlocked, oldHolder, estDepth, out)) {
    return std::nullopt;
  }
  out.estimatesFull = static_cast<int>(out.estimated.size()) >= estDepth;
  if (!out.estimated.empty()) out.lastEstimated = out.estimated.back().rank;

  out.depthReached.assign(parts, std::nullopt);
  for (size_t p = 0; p < parts; ++p) {
    if (newHolder[p] != kNone) out.depthReached[p] = ranks[newHolder[p]];
  }
  out.plannedBoundary = plannedBoundary;
  for (const EstimateRecord& r : out.estimated) {
    out.plannedBoundary = std::min(out.plannedBoundary, r.start);
  }
  out.starts = std::move(startsPlan.starts);
  out.removed = std::move(ed.startedPos);
  for (auto& [pos, info] : ed.changed) {
    if (!std::binary_search(out.removed.begin(), out.removed.end(), pos)) {
      out.changed.emplace_back(pos, std::move(info));
    }
  }
  return out;
}

// The replay's start estimates: the first estDepth blocked jobs without a reservation, as the
// full pass picks them, then each search in order on a copy of the profile, reusing old answers
// where the dirty nodes cannot change them. False when the replay cannot stand for a full pass.
bool Pass::replayEstimates(const PassMemo& memo, ReplayEdits& ed, const std::vector<int>& jobs,
                           const std::vector<size_t>& walkedBlocked,
                           const std::vector<size_t>& oldHolder, int estDepth, PlanDelta& out) {
  auto ctxOf = [&](size_t pos, JobCtx& ctx) {
    const Job& job = snap_.pending[jobs[pos]];
    ctx = JobCtx{};
    ctx.job = &job;
    // A job of several partitions is estimated in the one it waits in.
    const auto at = ed.waitPartition.find(pos);
    const Reason why = at == ed.waitPartition.end() || at->second < 0
                           ? staticReason(job, ctx)
                           : staticReason(job, ctx, snap_.partitions[at->second].name);
    return why == Reason::None && shapeReason(job, ctx) == Reason::None;
  };
  auto eligibleForEstimate = [&](size_t pos, bool known) {
    if (ed.started(pos) || ed.current(pos).expectedStart) return false;
    if (known) return true;
    JobCtx ctx;
    return ctxOf(pos, ctx) && ctx.required.empty() && ctx.excluded.empty();
  };
  std::vector<size_t> cands;
  std::map<size_t, const EstimateRecord*> oldEst;
  for (const EstimateRecord& r : memo.estimated) {
    size_t pos = ed.posOf(r.rank);
    if (pos >= ed.ranks.size() || ed.ranks[pos] != r.rank) return false;
    oldEst.emplace(pos, &r);
    if (eligibleForEstimate(pos, true)) cands.push_back(pos);
  }
  for (size_t pos : walkedBlocked) {
    if (eligibleForEstimate(pos, true)) cands.push_back(pos);
  }
  for (size_t p = 0; p < oldHolder.size(); ++p) {
    if (oldHolder[p] != SIZE_MAX && eligibleForEstimate(oldHolder[p], false)) {
      cands.push_back(oldHolder[p]);
    }
  }
  std::sort(cands.begin(), cands.end());
  cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
  if (memo.estimatesFull && estDepth > 0 && memo.lastEstimated) {
    size_t q = ed.posOf(*memo.lastEstimated) + 1;
    size_t count =
        static_cast<size_t>(std::upper_bound(cands.begin(), cands.end(), q - 1) - cands.begin());
    std::vector<size_t> added;
    for (; q < ed.ranks.size() && count < static_cast<size_t>(estDepth); ++q) {
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
  std::vector<char> isDirtyS = ed.isDirty;
  std::vector<int> dirtyS = ed.dirty;
  auto markS = [&](const std::vector<int>& nodes) {
    for (int node : nodes) {
      if (node >= 0 && node < static_cast<int>(isDirtyS.size()) && !isDirtyS[node]) {
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
      if (!ed.started(pos) && ed.current(pos).estimatedStart) {
        ed.entry(pos).estimatedStart.reset();
        // SchedNodeList: the estimate's nodes go with it (a reservation's nodes stay).
        if (!ed.current(pos).expectedStart) ed.entry(pos).plannedNodes.clear();
      }
      continue;
    }
    JobCtx ctx;
    if (!ctxOf(pos, ctx)) return false;  // cannot happen: it is blocked
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
    if (ed.current(pos).estimatedStart != est) ed.entry(pos).estimatedStart = est;
    std::vector<std::string> names;
    for (int node : nodes) names.push_back(snap_.nodes[node].name);
    if (ed.current(pos).plannedNodes != names) ed.entry(pos).plannedNodes = std::move(names);
    out.estimated.push_back(EstimateRecord{ed.ranks[pos], jobs[pos], t, std::move(nodes)});
  }
  return true;
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
    JobCtx& ctx = ctxs[h];
    if (!runnableContext(idx, ctx)) return false;
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
    JobCtx ctx;
    if (!runnableContext(idx, ctx) || ctx.reservation >= 0) return false;
    PendingInfo info;
    // reserve() claims what it finds, so the next holder searches around it, as in the pass.
    if (!reserve(ctx, info)) return false;
    if (info.expectedStart != old->expectedStart || info.plannedNodes != old->plannedNodes) {
      return false;
    }
  }
  return true;
}

}  // namespace drover::sched::detail
