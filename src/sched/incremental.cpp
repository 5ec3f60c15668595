#include "sched/incremental.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sched/scheduler.h"

namespace drover::sched {

Scheduler::Scheduler(std::vector<Node> nodes, std::vector<Partition> partitions,
                     SchedulerParams params)
    : params_(params) {
  snap_.nodes = std::move(nodes);
  snap_.partitions = std::move(partitions);
}

const ClusterIndex& Scheduler::index() {
  if (!index_) index_ = std::make_unique<ClusterIndex>(snap_.nodes, snap_.partitions);
  return *index_;
}

void Scheduler::onJobSubmitted(Job job) {
  snap_.pending.push_back(std::move(job));
  submittedSince_.push_back(snap_.pending.size() - 1);
}

bool Scheduler::endRunning(JobId id) {
  auto it = std::find_if(snap_.running.begin(), snap_.running.end(),
                         [id](const RunningJob& r) { return r.id == id; });
  if (it == snap_.running.end()) return false;
  if (awaitingStarts_) invalidate();  // the plan's starts no longer describe the next pass
  if (memoValid_) {
    for (const NodeAllocation& a : it->allocation.nodes) {
      int node = a.nodeIndex;
      if (node < 0 || node >= static_cast<int>(snap_.nodes.size()) ||
          snap_.nodes[node].name != a.node) {
        node = index().node(a.node);
      }
      if (node >= 0) freed_.push_back(node);
    }
  }
  snap_.running.erase(it);
  return true;
}

void Scheduler::onJobEnded(JobId id) {
  // A running job's end keeps the memo: the next pass replays from the nodes it freed.
  if (endRunning(id)) return;
  auto gone = [id](const auto& j) { return j.id == id; };
  size_t before = snap_.pending.size() + snap_.running.size();
  std::erase_if(snap_.pending, gone);
  std::erase_if(snap_.running, gone);
  if (snap_.pending.size() + snap_.running.size() != before) {
    invalidate();
    submittedSince_.clear();
  }
}

void Scheduler::onJobsEnded(const std::vector<JobId>& ids) {
  if (ids.empty()) return;
  std::unordered_set<JobId> gone;
  for (JobId id : ids) {
    if (!endRunning(id)) gone.insert(id);
  }
  if (gone.empty()) return;
  auto isGone = [&gone](const auto& j) { return gone.count(j.id) > 0; };
  size_t before = snap_.pending.size() + snap_.running.size();
  std::erase_if(snap_.pending, isGone);
  std::erase_if(snap_.running, isGone);
  if (snap_.pending.size() + snap_.running.size() != before) {
    invalidate();
    submittedSince_.clear();
  }
}

void Scheduler::onJobStarted(RunningJob job) {
  std::vector<RunningJob> one;
  one.push_back(std::move(job));
  onJobsStarted(std::move(one));
}

namespace {

bool sameAllocation(const Allocation& a, const Allocation& b) {
  return std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(),
                    [](const NodeAllocation& x, const NodeAllocation& y) {
                      return x.node == y.node && x.cpus == y.cpus && x.memoryMb == y.memoryMb &&
                             x.gpus == y.gpus;
                    });
}

}  // namespace

void Scheduler::onJobsStarted(std::vector<RunningJob> jobs) {
  // Starts exactly as the last plan made them keep the memo (keepStarts); anything else drops it.
  bool keep = awaitingStarts_;
  std::vector<size_t> matched;
  if (keep) {
    std::unordered_map<JobId, size_t> planned;
    for (size_t k = 0; k < plan_.starts.size(); ++k) planned.emplace(plan_.starts[k].id, k);
    for (size_t i = 0; keep && i < jobs.size(); ++i) {
      auto it = planned.find(jobs[i].id);
      keep = it != planned.end() && !startApplied_[it->second] &&
             plan_.starts[it->second].endTime == jobs[i].expectedEnd &&
             sameAllocation(plan_.starts[it->second].allocation, jobs[i].allocation);
      if (keep) {
        startApplied_[it->second] = 1;  // also catches the same id twice in one batch
        matched.push_back(it->second);
      }
    }
    if (!keep) {
      for (size_t k : matched) startApplied_[k] = 0;
    }
  }
  std::unordered_set<JobId> ids;
  for (const RunningJob& r : jobs) ids.insert(r.id);
  if (!keep) {
    std::erase_if(snap_.pending, [&](const Job& j) { return ids.count(j.id) > 0; });
  } else {
    // Pending indices shift: carry every index the memo and the plan hold over.
    std::vector<int> moved(snap_.pending.size(), -1);
    size_t out = 0;
    for (size_t i = 0; i < snap_.pending.size(); ++i) {
      if (ids.count(snap_.pending[i].id)) continue;
      moved[i] = static_cast<int>(out);
      if (out != i) snap_.pending[out] = std::move(snap_.pending[i]);
      ++out;
    }
    snap_.pending.resize(out);
    // Started jobs get index -1 until keepStarts drops them.
    auto move = [&](int& j) {
      if (j >= 0) j = moved[j];
    };
    for (int& j : planJobs_) move(j);
    for (size_t& pos : submittedSince_) pos = static_cast<size_t>(moved[pos]);
    for (ShapeGroup& g : memo_.groups) {
      for (auto& e : g.entries) move(e.job);
      for (auto& e : g.submitted) move(e.job);
    }
    for (auto& [rank, idx] : memo_.unshaped) move(idx);
    for (EstimateRecord& r : memo_.estimated) move(r.job);
  }
  for (RunningJob& r : jobs) snap_.running.push_back(std::move(r));
  if (!keep) {
    invalidate();
    submittedSince_.clear();
    return;
  }
  startsLeft_ -= matched.size();
  if (startsLeft_ == 0) keepStarts();
}

bool Scheduler::renameRunning(JobId from, JobId to) {
  auto it = std::find_if(snap_.running.begin(), snap_.running.end(),
                         [from](const RunningJob& r) { return r.id == from; });
  if (it == snap_.running.end()) return false;
  it->id = to;
  // Until every start of the last plan is reported, its starts and ranks are matched by id.
  if (awaitingStarts_) {
    for (const Start& st : plan_.starts) {
      if (st.id == from) {
        invalidate();
        submittedSince_.clear();
        break;
      }
    }
  }
  return true;
}

bool Scheduler::startsKeepable() const {
  if (!snap_.reservations.empty() || params_.policy == Policy::Conservative) return false;
  return params_.reservationDepth <= 1;
}

void Scheduler::awaitStarts(std::vector<size_t> positions) {
  startPos_ = std::move(positions);
  std::sort(startPos_.begin(), startPos_.end());
  if (startPos_.size() != plan_.starts.size() || planRanks_.size() != planJobs_.size() ||
      planRanks_.size() != plan_.pending.size() + startPos_.size()) {
    awaitingStarts_ = false;
    return;
  }
  awaitingStarts_ = true;
  startApplied_.assign(plan_.starts.size(), 0);
  startsLeft_ = plan_.starts.size();
}

// The pass on the state with the starts applied gives the last plan minus its starts: every job
// that failed there fails again (it sees the same claims plus the starts ranked behind it), a
// job that was skipped for its shape still is, the estimates are searched on the same final
// profile, and the reservations of jobs ranked behind every start were searched on the same
// profile too. What a start ranked behind a holder can change is the holder's best-fit choice
// among the nodes ready at its time, so those holders (one per partition under FCFS/EASY) are
// confirmed (reservationsStand: a proof from the started nodes where it holds, else a search).
// The memo then becomes that pass's: the started jobs leave the shape groups (whose failure
// lists are recomputed), the node-list jobs and the rank lists, and a partition whose first
// blocked job started has the next one as its first blocked.
void Scheduler::keepStarts() {
  awaitingStarts_ = false;
  const ClusterIndex& idx = index();
  std::vector<RankKey> startRanks;
  for (size_t pos : startPos_) startRanks.push_back(planRanks_[pos]);
  {
    std::vector<char> gone(planRanks_.size(), 0);
    for (size_t pos : startPos_) gone[pos] = 1;
    size_t out = 0;
    for (size_t i = 0; i < planRanks_.size(); ++i) {
      if (gone[i]) continue;
      planRanks_[out] = planRanks_[i];
      planJobs_[out] = planJobs_[i];
      ++out;
    }
    planRanks_.resize(out);
    planJobs_.resize(out);
  }
  if (planRanks_.size() != plan_.pending.size() || startRanks.empty()) {
    invalidate();
    submittedSince_.clear();
    return;
  }
  const RankKey& lastStart = startRanks.back();
  auto started = [&](const RankKey& r) {
    return std::binary_search(startRanks.begin(), startRanks.end(), r);
  };
  // A job of several partitions ranked ahead of a start chose where to wait without that start's
  // claim, which may favour another of its partitions now: a full pass decides.
  for (const PassMemo::Alternative& a : memo_.alternatives) {
    if (!(a.rank < lastStart)) break;
    if (a.listed && a.waitPartition >= 0 && !started(a.rank)) {
      invalidate();
      submittedSince_.clear();
      return;
    }
  }
  auto posOf = [&](const RankKey& r) {
    return static_cast<size_t>(std::lower_bound(planRanks_.begin(), planRanks_.end(), r) -
                               planRanks_.begin());
  };
  std::vector<RankKey> holders;
  for (const auto& h : memo_.depthReached) {
    if (h && *h < lastStart) holders.push_back(*h);
  }
  std::sort(holders.begin(), holders.end());
  std::vector<std::pair<int, const PendingInfo*>> check;
  std::vector<std::vector<int>> nodesBehind;
  std::unordered_map<JobId, const Start*> startOf;
  for (const Start& st : plan_.starts) startOf.emplace(st.id, &st);
  for (const RankKey& h : holders) {
    std::vector<int>& behind = nodesBehind.emplace_back();
    for (auto r = std::upper_bound(startRanks.begin(), startRanks.end(), h); r != startRanks.end();
         ++r) {
      auto st = startOf.find(std::get<4>(*r));
      if (st == startOf.end()) continue;
      for (const NodeAllocation& a : st->second->allocation.nodes) {
        const bool known = a.nodeIndex >= 0 && a.nodeIndex < static_cast<int>(snap_.nodes.size()) &&
                           snap_.nodes[a.nodeIndex].name == a.node;
        const int node = known ? a.nodeIndex : idx.node(a.node);
        if (node >= 0) behind.push_back(node);
      }
    }
    const size_t pos = posOf(h);
    if (pos >= planRanks_.size() || planRanks_[pos] != h) {
      invalidate();
      submittedSince_.clear();
      return;
    }
    check.emplace_back(planJobs_[pos], &plan_.pending[pos]);
  }
  if (!check.empty() && !reservationsStand(idx, snap_, params_, memo_.now, check, nodesBehind)) {
    invalidate();
    submittedSince_.clear();
    return;
  }

  for (ShapeGroup& g : memo_.groups) {
    const size_t before = g.entries.size() + g.submitted.size();
    std::erase_if(g.entries, [&](const ShapeGroup::Entry& e) { return started(e.rank); });
    std::erase_if(g.submitted, [&](const ShapeGroup::Entry& e) { return started(e.rank); });
    if (g.entries.size() + g.submitted.size() == before) continue;
    // Judged submissions join the entries, so the replay sees them even if no entry is left.
    std::vector<ShapeGroup::Entry> all;
    all.reserve(g.entries.size() + g.submitted.size());
    std::merge(g.entries.begin(), g.entries.end(), g.submitted.begin(), g.submitted.end(),
               std::back_inserter(all),
               [](const ShapeGroup::Entry& a, const ShapeGroup::Entry& b) { return a.rank < b.rank; });
    g.entries = std::move(all);
    g.submitted.clear();
    g.buildBlockMin();
    // Every job of the group failed or was skipped for its shape: the failures worth keeping
    // are the ones shorter than every job of the shape ahead of them.
    std::vector<std::pair<RankKey, int64_t>> failures;
    for (const auto& e : g.entries) {
      if (failures.empty() || e.duration < failures.back().second) {
        failures.emplace_back(e.rank, e.duration);
      }
    }
    if (failures.empty()) {
      memo_.failures.erase(g.shape);
    } else {
      memo_.failures[g.shape] = std::move(failures);
    }
  }
  std::erase_if(memo_.unshaped, [&](const auto& u) { return started(u.first); });
  std::erase_if(memo_.alternatives,
                [&](const PassMemo::Alternative& a) { return started(a.rank); });
  for (size_t p = 0; p < memo_.firstBlocked.size(); ++p) {
    if (!memo_.firstBlocked[p] || !started(*memo_.firstBlocked[p])) continue;
    // Jobs ahead of it had reasons of their own, which starts do not change; the new first
    // blocked job is the next one of the partition that failed to start (reason Resources).
    const RankKey old = *memo_.firstBlocked[p];
    memo_.firstBlocked[p].reset();
    for (size_t pos = posOf(old); pos < planRanks_.size(); ++pos) {
      if (plan_.pending[pos].reason != Reason::Resources) continue;
      // A job of several partitions blocks the one it waits in.
      const PassMemo::Alternative* alt = memo_.alternativeAt(planRanks_[pos]);
      const int in = alt && alt->listed
                         ? alt->waitPartition
                         : idx.partition(snap_.pending[planJobs_[pos]].request.partition);
      if (in != static_cast<int>(p)) continue;
      memo_.firstBlocked[p] = planRanks_[pos];
      break;
    }
  }
  for (const Start& st : plan_.starts) memo_.nextBoundary = std::min(memo_.nextBoundary, st.endTime);
  plan_.stats.jobsConsidered -= static_cast<int>(plan_.starts.size());
  plan_.stats.backfilled = 0;
  plan_.starts.clear();
  memo_.hadStarts = false;
  memoValid_ = true;
  ++counters_.startsKept;
}

void Scheduler::onNodeChanged(Node node) {
  auto it = std::find_if(snap_.nodes.begin(), snap_.nodes.end(),
                         [&](const Node& n) { return n.name == node.name; });
  if (it == snap_.nodes.end()) {
    snap_.nodes.push_back(std::move(node));
  } else {
    *it = std::move(node);
  }
  index_.reset();
  invalidate();
}

void Scheduler::setPartitions(std::vector<Partition> partitions) {
  snap_.partitions = std::move(partitions);
  index_.reset();
  invalidate();
}

void Scheduler::setReservations(std::vector<AdvanceReservation> reservations) {
  snap_.reservations = std::move(reservations);
  invalidate();
}

void Scheduler::onJobUpdated(Job job) {
  for (Job& j : snap_.pending) {
    if (j.id == job.id) {
      j = std::move(job);
      break;
    }
  }
  invalidate();
  submittedSince_.clear();
}

int Scheduler::appendLastRanked(int64_t now) {
  const ClusterIndex& idx = index();
  if (planRanks_.size() != plan_.pending.size() || planJobs_.size() != planRanks_.size() ||
      !plan_.starts.empty()) {
    return 0;
  }
  std::vector<std::pair<RankKey, int>> jobs;
  jobs.reserve(submittedSince_.size());
  for (size_t pos : submittedSince_) {
    jobs.emplace_back(rankOf(idx, snap_, snap_.pending[pos]), static_cast<int>(pos));
  }
  std::sort(jobs.begin(), jobs.end());
  if (!planRanks_.empty() && !(planRanks_.back() < jobs.front().first)) return 0;
  std::vector<int> order;
  order.reserve(jobs.size());
  for (const auto& j : jobs) order.push_back(j.second);
  const size_t kept = plan_.pending.size();
  if (!sched::appendLastRanked(idx, snap_, params_, now, memo_, order, plan_)) return -1;
  for (size_t i = kept; i < plan_.pending.size(); ++i) {
    tallyReason(plan_.stats, plan_.pending[i].reason, +1);
  }
  submittedSince_.clear();
  ++counters_.incrementalPasses;
  ++counters_.lastRankedAppends;
  if (!plan_.starts.empty()) {
    // Conservative plans with starts keep no memo (startsKeepable).
    memoValid_ = false;
    planRanks_.clear();
    planJobs_.clear();
    return 1;
  }
  for (const auto& [rank, pos] : jobs) {
    planRanks_.push_back(rank);
    planJobs_.push_back(pos);
  }
  return 1;
}

const Plan& Scheduler::pass(int64_t now) {
  const ClusterIndex& idx = index();
  if (memoValid_ && memo_.tail && freed_.empty() && !submittedSince_.empty() &&
      now >= memo_.now && now < memo_.nextBoundary) {
    const int appended = appendLastRanked(now);
    if (appended > 0) return plan_;
    if (appended < 0) invalidate();
  }
  if (memoValid_ && now >= memo_.now && now < memo_.nextBoundary) {
    // The memo's pass ran on the queue without the new submissions; judge each against it.
    // Judging uses only the configuration and the memo, so the snapshot may already hold them.
    // Those that would not wait may all start at once (startSubmissions, after the others).
    std::vector<std::pair<RankKey, PendingInfo>> entries;
    std::vector<size_t> judged;  // submittedSince_ positions of `entries`
    std::vector<size_t> starting;
    std::vector<std::optional<OwnedShape>> shapes;
    std::vector<int64_t> durations;
    int skipped = 0;
    for (size_t pos : submittedSince_) {
      const Job& job = snap_.pending[pos];
      bool skip = false;
      OwnedShape shape;
      int64_t duration = 0;
      auto info = judgeSubmission(idx, snap_, params_, now, memo_, job, skip, &shape, &duration);
      if (!info) {
        starting.push_back(pos);
        continue;
      }
      skipped += skip;
      shapes.push_back(skip ? std::optional<OwnedShape>(shape) : std::nullopt);
      durations.push_back(duration);
      // Its begin time is now one of the boundaries the plan depends on.
      if (job.request.beginTime > now) {
        memo_.nextBoundary = std::min(memo_.nextBoundary, job.request.beginTime);
        memo_.beginBoundary = std::min(memo_.beginBoundary, job.request.beginTime);
      }
      entries.emplace_back(rankOf(idx, snap_, job), std::move(*info));
      judged.push_back(pos);
    }
    if (starting.empty() || (plan_.starts.empty() && startsKeepable())) {
      for (size_t k = 0; k < entries.size(); ++k) {
        auto& [rank, info] = entries[k];
        auto at = std::lower_bound(planRanks_.begin(), planRanks_.end(), rank);
        size_t i = static_cast<size_t>(at - planRanks_.begin());
        planRanks_.insert(at, rank);
        planJobs_.insert(planJobs_.begin() + static_cast<std::ptrdiff_t>(i),
                         static_cast<int>(judged[k]));
        tallyReason(plan_.stats, info.reason, +1);
        plan_.pending.insert(plan_.pending.begin() + static_cast<std::ptrdiff_t>(i),
                             std::move(info));
        // A job judged to fail for its shape joins that shape's group for later replays.
        if (shapes[k]) {
          ShapeGroup& g = memo_.groups[memo_.groupOf.at(*shapes[k])];
          auto gat = std::lower_bound(
              g.submitted.begin(), g.submitted.end(), rank,
              [](const ShapeGroup::Entry& e, const RankKey& r) { return e.rank < r; });
          g.submitted.insert(gat, ShapeGroup::Entry{rank, durations[k], static_cast<int>(judged[k])});
        }
      }
      plan_.stats.jobsConsidered += static_cast<int>(entries.size());
      plan_.stats.skippedSameShape += skipped;
      submittedSince_.clear();
      bool replayed = freed_.empty();
      if (!replayed && !memo_.tailAppended) {
        // Jobs appended through the tail are missing from the lists the replay reads. The
        // replay leaves out the jobs that may start (they are in none of the memo's lists): when
        // it starts nothing, its pass, of the queue without them, is the one they are judged
        // against.
        std::optional<PlanDelta> delta = replayAfterCompletion(idx, snap_, params_, now, memo_,
                                                               freed_, plan_, planRanks_, planJobs_);
        if (delta && (starting.empty() || delta->starts.empty())) {
          applyDelta(std::move(*delta), now);
          ++counters_.completionReplays;
          replayed = true;
        }
      }
      if (replayed && (starting.empty() || startSubmissions(now, starting))) {
        ++counters_.incrementalPasses;
        return plan_;
      }
    }
  }
  awaitingStarts_ = false;
  plan_ = scheduleWithMemo(idx, snap_, params_, now, memo_);
  memoValid_ = !memo_.hadStarts;
  submittedSince_.clear();
  freed_.clear();
  planRanks_.clear();
  planJobs_.clear();
  if (now >= memo_.now && now < memo_.nextBoundary && (memoValid_ || startsKeepable())) {
    // The plan's entries are the whole queue in the memo's rank order (with starts: but them).
    planRanks_ = std::move(memo_.ranks);
    planJobs_ = std::move(memo_.order);
    if (!memoValid_) {
      std::unordered_set<JobId> ids;
      for (const Start& st : plan_.starts) ids.insert(st.id);
      std::vector<size_t> positions;
      for (size_t i = 0; i < planJobs_.size(); ++i) {
        if (ids.count(snap_.pending[planJobs_[i]].id)) positions.push_back(i);
      }
      awaitStarts(std::move(positions));
      if (!awaitingStarts_) {
        planRanks_.clear();
        planJobs_.clear();
      }
    }
  }
  ++counters_.fullPasses;
  return plan_;
}

bool Scheduler::startSubmissions(int64_t now, const std::vector<size_t>& positions) {
  const ClusterIndex& idx = index();
  std::vector<const Job*> jobs;
  for (size_t pos : positions) jobs.push_back(&snap_.pending[pos]);
  auto starts = judgeStartingSubmissions(idx, snap_, params_, now, memo_, jobs, plan_, planRanks_,
                                         planJobs_);
  if (!starts) return false;
  std::vector<RankKey> ranks;
  for (size_t pos : positions) {
    const RankKey& rank = ranks.emplace_back(rankOf(idx, snap_, snap_.pending[pos]));
    const auto at = std::lower_bound(planRanks_.begin(), planRanks_.end(), rank);
    planJobs_.insert(planJobs_.begin() + (at - planRanks_.begin()), static_cast<int>(pos));
    planRanks_.insert(at, rank);
  }
  std::vector<size_t> at;  // the starts' places in the rank lists, ascending
  for (const RankKey& rank : ranks) {
    at.push_back(static_cast<size_t>(std::lower_bound(planRanks_.begin(), planRanks_.end(), rank) -
                                     planRanks_.begin()));
  }
  std::sort(at.begin(), at.end());
  plan_.stats.jobsConsidered += static_cast<int>(starts->size());
  for (const Start& st : *starts) plan_.stats.backfilled += st.backfill;
  plan_.starts = std::move(*starts);
  memo_.hadStarts = true;
  memoValid_ = false;
  awaitStarts(std::move(at));
  counters_.startsJudged += static_cast<int>(plan_.starts.size());
  return true;
}

void Scheduler::applyDelta(PlanDelta delta, int64_t now) {
  memo_.tail.reset();  // the profile of the memo's walk, not the replayed one's
  // The replay rewrote only the changed entries: their reasons move the tallies.
  PlanStats stats = delta.stats;
  stats.waitingOnPriority = plan_.stats.waitingOnPriority;
  stats.waitingOnResources = plan_.stats.waitingOnResources;
  for (auto& [pos, info] : delta.changed) {
    tallyReason(stats, plan_.pending[pos].reason, -1);
    tallyReason(stats, info.reason, +1);
    plan_.pending[pos] = std::move(info);
  }
  plan_.starts = std::move(delta.starts);
  if (!plan_.starts.empty()) {
    for (size_t pos : delta.removed) tallyReason(stats, plan_.pending[pos].reason, -1);
  }
  plan_.stats = stats;
  freed_.clear();
  if (!plan_.starts.empty()) {
    std::vector<char> gone(plan_.pending.size(), 0);
    for (size_t pos : delta.removed) gone[pos] = 1;
    size_t out = 0;
    for (size_t i = 0; i < plan_.pending.size(); ++i) {
      if (gone[i]) continue;
      if (out != i) plan_.pending[out] = std::move(plan_.pending[i]);
      ++out;
    }
    plan_.pending.resize(out);
    memoValid_ = false;
    if (!startsKeepable()) {
      planRanks_.clear();
      planJobs_.clear();
      return;
    }
    // The replayed pass's memo, once its starts are applied as planned (keepStarts).
    adoptReplayedMemo(delta, now);
    awaitStarts(std::move(delta.removed));
    if (!awaitingStarts_) {
      planRanks_.clear();
      planJobs_.clear();
    }
    return;
  }
  // Nothing started: the replayed pass becomes the memo's pass.
  adoptReplayedMemo(delta, now);
}

void Scheduler::adoptReplayedMemo(PlanDelta& delta, int64_t now) {
  memo_.now = now;
  memo_.depthReached = std::move(delta.depthReached);
  memo_.estimatesFull = delta.estimatesFull;
  memo_.lastEstimated = delta.lastEstimated;
  memo_.estimated = std::move(delta.estimated);
  memo_.nextBoundary = nextBoundaryAfterReplay(delta.plannedBoundary, now);
}

int64_t Scheduler::nextBoundaryAfterReplay(int64_t plannedBoundary, int64_t now) const {
  int64_t b = std::min(memo_.beginBoundary, plannedBoundary);
  if (params_.reserveHorizonS > 0) b = std::min(b, now + 1);
  for (const RunningJob& r : snap_.running) b = std::min(b, r.expectedEnd);
  return b;
}

}  // namespace drover::sched
