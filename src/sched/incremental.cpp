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
  JobId id = job.id;
  std::erase_if(snap_.pending, [id](const Job& j) { return j.id == id; });
  snap_.running.push_back(std::move(job));
  invalidate();
  submittedSince_.clear();
}

void Scheduler::onJobsStarted(std::vector<RunningJob> jobs) {
  std::unordered_set<JobId> ids;
  for (const RunningJob& r : jobs) ids.insert(r.id);
  std::erase_if(snap_.pending, [&](const Job& j) { return ids.count(j.id) > 0; });
  for (RunningJob& r : jobs) snap_.running.push_back(std::move(r));
  invalidate();
  submittedSince_.clear();
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

const Plan& Scheduler::pass(int64_t now) {
  const ClusterIndex& idx = index();
  if (memoValid_ && now >= memo_.now && now < memo_.nextBoundary) {
    // The memo's pass ran on the queue without the new submissions; judge each against it.
    // Judging uses only the configuration and the memo, so the snapshot may already hold them.
    std::vector<std::pair<RankKey, PendingInfo>> entries;
    std::vector<std::optional<OwnedShape>> shapes;
    std::vector<int64_t> durations;
    int skipped = 0;
    bool ok = true;
    for (size_t pos : submittedSince_) {
      const Job& job = snap_.pending[pos];
      bool skip = false;
      OwnedShape shape;
      int64_t duration = 0;
      auto info = judgeSubmission(idx, snap_, params_, now, memo_, job, skip, &shape, &duration);
      if (!info) {
        ok = false;
        break;
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
    }
    if (ok) {
      for (size_t k = 0; k < entries.size(); ++k) {
        auto& [rank, info] = entries[k];
        auto at = std::lower_bound(planRanks_.begin(), planRanks_.end(), rank);
        size_t i = static_cast<size_t>(at - planRanks_.begin());
        planRanks_.insert(at, rank);
        planJobs_.insert(planJobs_.begin() + static_cast<std::ptrdiff_t>(i),
                         static_cast<int>(submittedSince_[k]));
        plan_.pending.insert(plan_.pending.begin() + static_cast<std::ptrdiff_t>(i),
                             std::move(info));
        // A job judged to fail for its shape joins that shape's group for later replays.
        if (shapes[k]) {
          ShapeGroup& g = memo_.groups[memo_.groupOf.at(*shapes[k])];
          auto gat = std::lower_bound(
              g.submitted.begin(), g.submitted.end(), rank,
              [](const ShapeGroup::Entry& e, const RankKey& r) { return e.rank < r; });
          g.submitted.insert(gat, ShapeGroup::Entry{rank, durations[k],
                                                    static_cast<int>(submittedSince_[k])});
        }
      }
      plan_.stats.jobsConsidered += static_cast<int>(entries.size());
      plan_.stats.skippedSameShape += skipped;
      submittedSince_.clear();
      if (freed_.empty()) {
        ++counters_.incrementalPasses;
        return plan_;
      }
      auto delta = replayAfterCompletion(idx, snap_, params_, now, memo_, freed_, plan_,
                                         planRanks_, planJobs_);
      if (delta) {
        applyDelta(std::move(*delta), now);
        ++counters_.incrementalPasses;
        ++counters_.completionReplays;
        return plan_;
      }
    }
  }
  plan_ = scheduleWithMemo(idx, snap_, params_, now, memo_);
  memoValid_ = !memo_.hadStarts;
  submittedSince_.clear();
  freed_.clear();
  planRanks_.clear();
  planJobs_.clear();
  if (memoValid_ && now >= memo_.now && now < memo_.nextBoundary) {
    // No starts: the plan's entries are the whole queue in the memo's rank order.
    planRanks_ = std::move(memo_.ranks);
    planJobs_ = std::move(memo_.order);
  }
  ++counters_.fullPasses;
  return plan_;
}

void Scheduler::applyDelta(PlanDelta delta, int64_t now) {
  for (auto& [pos, info] : delta.changed) plan_.pending[pos] = std::move(info);
  plan_.starts = std::move(delta.starts);
  plan_.stats = delta.stats;
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
    planRanks_.clear();
    planJobs_.clear();
    return;
  }
  // Nothing started: the replayed pass becomes the memo's pass.
  memo_.now = now;
  memo_.depthReached = std::move(delta.depthReached);
  memo_.estimatesFull = delta.estimatesFull;
  memo_.lastEstimated = delta.lastEstimated;
  memo_.estimated = std::move(delta.estimated);
  int64_t b = std::min(memo_.beginBoundary, delta.plannedBoundary);
  if (params_.reserveHorizonS > 0) b = std::min(b, now + 1);
  for (const RunningJob& r : snap_.running) b = std::min(b, r.expectedEnd);
  memo_.nextBoundary = b;
}

}  // namespace drover::sched
