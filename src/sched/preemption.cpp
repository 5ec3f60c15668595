#include "sched/preemption.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "sched/cluster_index.h"
#include "sched/scheduler.h"

namespace drover::sched {

namespace {

// One blocked job's trials: schedule() with it alone in the queue, over the running jobs minus
// those marked gone, plus the placements earlier preemptors were given.
class Trials {
 public:
  Trials(const Snapshot& snapshot, const SchedulerParams& params, int64_t now, int budget)
      : snapshot_(snapshot), params_(params), now_(now), budget_(budget) {
    // A trial asks only whether the job starts now: no reservation or estimate for it.
    params_.reservationDepth = 0;
    params_.estimateDepth = 0;
    trial_.nodes = snapshot.nodes;
    trial_.partitions = snapshot.partitions;
    trial_.reservations = snapshot.reservations;
    index_.emplace(trial_.nodes, trial_.partitions);
  }

  bool spent() const { return budget_ <= 0; }

  std::optional<Start> start(const Job& job, const std::vector<char>& gone,
                             const std::vector<RunningJob>& claimed) {
    --budget_;
    trial_.running.clear();
    for (size_t i = 0; i < snapshot_.running.size(); ++i) {
      if (!gone[i]) trial_.running.push_back(snapshot_.running[i]);
    }
    trial_.running.insert(trial_.running.end(), claimed.begin(), claimed.end());
    trial_.pending.assign(1, job);
    Plan plan = schedule(*index_, trial_, params_, now_);
    if (plan.starts.empty()) return std::nullopt;
    return std::move(plan.starts.front());
  }

 private:
  const Snapshot& snapshot_;
  SchedulerParams params_;
  int64_t now_;
  int budget_;
  Snapshot trial_;
  std::optional<ClusterIndex> index_;
};

bool sharesNode(const Allocation& a, const Allocation& b) {
  for (const NodeAllocation& x : a.nodes) {
    for (const NodeAllocation& y : b.nodes) {
      if (x.node == y.node) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<Preemption> planPreemptions(const Snapshot& snapshot, const PreemptionQuery& query,
                                        const SchedulerParams& params, int64_t now) {
  std::vector<Preemption> out;
  if (query.blocked.empty()) return out;
  const auto& running = snapshot.running;
  std::unordered_map<std::string, const Partition*> partitions;
  for (const Partition& p : snapshot.partitions) partitions[p.name] = &p;

  // preempt/partition_prio: the lowest tier of the partitions a job may run in; it preempts
  // only below all of them.
  auto tierOf = [&](const JobRequest& r) {
    int tier = INT_MAX;
    auto consider = [&](const std::string& name) {
      auto it = partitions.find(name);
      tier = std::min(tier, it == partitions.end() ? INT_MIN : it->second->priorityTier);
    };
    if (r.partitions.empty()) consider(r.partition);
    for (const std::string& name : r.partitions) consider(name);
    return tier;
  };
  const bool byQos = query.qosPreempts.has_value();
  // preempt/qos: the QOSes some QOS may preempt.
  std::unordered_set<std::string> targeted;
  if (byQos) {
    for (const auto& [qos, targets] : *query.qosPreempts) targeted.insert(targets.begin(), targets.end());
  }

  // The running jobs that may be preempted at all (with their tiers under partition_prio),
  // looked up once: a blocked job at or below the lowest of those tiers, or of a QOS that
  // preempts none, has no candidates and costs nothing more.
  std::vector<std::pair<size_t, int>> preemptable;
  int lowest = INT_MAX;
  for (size_t i = 0; i < running.size(); ++i) {
    if (query.spared.count(running[i].id)) continue;
    if (byQos) {
      if (targeted.count(running[i].qos)) preemptable.emplace_back(i, 0);
      continue;
    }
    auto p = partitions.find(running[i].partition);
    if (p == partitions.end() || !p->second->preemptable) continue;
    preemptable.emplace_back(i, p->second->priorityTier);
    lowest = std::min(lowest, p->second->priorityTier);
  }
  if (preemptable.empty()) return out;

  std::unordered_map<JobId, const Job*> pending;
  for (const Job& j : snapshot.pending) pending[j.id] = &j;
  // Made when the first blocked job has candidates (copying the nodes is not free).
  std::optional<Trials> made;
  std::vector<char> taken(running.size(), 0);  // chosen for an earlier preemptor here
  std::vector<RunningJob> claimed;
  for (JobId id : query.blocked) {
    if (made && made->spent()) break;
    if (query.waiting.count(id)) continue;
    auto found = pending.find(id);
    if (found == pending.end()) continue;
    const Job& job = *found->second;
    std::vector<size_t> candidates;
    if (byQos) {
      auto targets = query.qosPreempts->find(job.request.qos);
      if (targets == query.qosPreempts->end()) continue;
      for (const auto& [i, unused] : preemptable) {
        if (!taken[i] && targets->second.count(running[i].qos)) candidates.push_back(i);
      }
    } else {
      const int tier = tierOf(job.request);
      if (tier <= lowest) continue;
      for (const auto& [i, candidate_tier] : preemptable) {
        if (!taken[i] && candidate_tier < tier) candidates.push_back(i);
      }
    }
    if (candidates.empty()) continue;
    if (!made) made.emplace(snapshot, params, now, query.maxTrials);
    Trials& trials = *made;
    // The youngest (highest id) first: the shortest prefix of them whose removal lets it start
    // (removing more only frees more, so a binary search finds it).
    std::sort(candidates.begin(), candidates.end(),
              [&](size_t a, size_t b) { return running[a].id > running[b].id; });
    std::vector<char> gone(running.size(), 0);
    auto startWithout = [&](size_t prefix) {
      for (size_t k = 0; k < candidates.size(); ++k) gone[candidates[k]] = k < prefix ? 1 : 0;
      return trials.start(job, gone, claimed);
    };
    std::optional<Start> start = startWithout(candidates.size());
    if (!start) continue;  // it would not start even with all of them gone
    size_t fits = candidates.size(), fails = 0;
    while (fits - fails > 1 && !trials.spent()) {
      const size_t mid = fails + (fits - fails) / 2;
      if (auto s = startWithout(mid)) {
        fits = mid;
        start = std::move(s);
      } else {
        fails = mid;
      }
    }
    if (fits - fails > 1) break;  // out of trials
    // Its placement depends only on its own nodes: of the prefix, the jobs elsewhere stay; of
    // those on its nodes, keep whom it can do without, the longest-running (lowest id) first.
    candidates.resize(fits);
    std::erase_if(candidates, [&](size_t c) {
      if (sharesNode(running[c].allocation, start->allocation)) return false;
      gone[c] = 0;
      return true;
    });
    std::reverse(candidates.begin(), candidates.end());
    for (size_t c : candidates) {
      if (trials.spent()) break;
      gone[c] = 0;
      if (auto without = trials.start(job, gone, claimed)) {
        start = std::move(without);
      } else {
        gone[c] = 1;
      }
    }
    // The jobs still gone on the nodes of its last placement are the ones it needs.
    bool needed = false;
    for (size_t c : candidates) {
      if (!gone[c] || !sharesNode(running[c].allocation, start->allocation)) continue;
      out.push_back({running[c].id, id});
      taken[c] = 1;
      needed = true;
    }
    if (!needed) continue;  // it fits without preempting: what held it back was not them
    RunningJob claim;
    claim.id = id;
    claim.partition = start->partition.empty() ? job.request.partition : start->partition;
    claim.allocation = std::move(start->allocation);
    claim.expectedEnd = start->endTime;
    claimed.push_back(std::move(claim));
  }
  return out;
}

}  // namespace drover::sched
