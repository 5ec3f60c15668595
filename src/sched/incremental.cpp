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

void Scheduler::onJobEnded(JobId id) {
  auto gone = [id](const auto& j) { return j.id == id; };
  size_t before = snap_.pending.size() + snap_.running.size();
  std::erase_if(snap_.pending, gone);
  std::erase_if(snap_.running, gone);
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
    int skipped = 0;
    bool ok = true;
    for (size_t pos : submittedSince_) {
      const Job& job = snap_.pending[pos];
      bool skip = false;
      auto info = judgeSubmission(idx, snap_, params_, now, memo_, job, skip);
      if (!info) {
        ok = false;
        break;
      }
      skipped += skip;
      // Its begin time is now one of the boundaries the plan depends on.
      if (job.request.beginTime > now) {
        memo_.nextBoundary = std::min(memo_.nextBoundary, job.request.beginTime);
      }
      entries.emplace_back(rankOf(idx, snap_, job), std::move(*info));
    }
    if (ok) {
      for (auto& [rank, info] : entries) {
        auto at = std::lower_bound(planRanks_.begin(), planRanks_.end(), rank);
        size_t i = static_cast<size_t>(at - planRanks_.begin());
        planRanks_.insert(at, rank);
        plan_.pending.insert(plan_.pending.begin() + static_cast<std::ptrdiff_t>(i),
                             std::move(info));
      }
      plan_.stats.jobsConsidered += static_cast<int>(entries.size());
      plan_.stats.skippedSameShape += skipped;
      submittedSince_.clear();
      ++counters_.incrementalPasses;
      return plan_;
    }
  }
  plan_ = scheduleWithMemo(idx, snap_, params_, now, memo_);
  memoValid_ = !memo_.hadStarts;
  submittedSince_.clear();
  planRanks_.clear();
  if (memoValid_ && now >= memo_.now && now < memo_.nextBoundary) {
    std::unordered_map<JobId, const Job*> jobs;
    jobs.reserve(snap_.pending.size());
    for (const Job& j : snap_.pending) jobs.emplace(j.id, &j);
    planRanks_.reserve(plan_.pending.size());
    for (const PendingInfo& info : plan_.pending) {
      planRanks_.push_back(rankOf(idx, snap_, *jobs.at(info.id)));
    }
  }
  ++counters_.fullPasses;
  return plan_;
}

}  // namespace drover::sched
