// --dependency evaluated against the job table. A target that is no longer known (purged after
// MinJobAge) counts as satisfied, as its outcome can no longer hold anything back, unless the
// item already failed: failure is sticky (sbatch(1)), kept in the job's stored dependency text.
#include <algorithm>

#include "jobs/dependency_status.h"
#include "jobs/job_manager.h"

namespace drover::jobs {

namespace {

using sched::DependencyState;
using jobspec::DependencyType;

DependencyState combine(const std::vector<DependencyState>& states, bool any) {
  if (states.empty()) return DependencyState::Satisfied;
  auto count = [&](DependencyState s) { return std::count(states.begin(), states.end(), s); };
  if (any) {
    if (count(DependencyState::Satisfied) > 0) return DependencyState::Satisfied;
    if (count(DependencyState::NeverSatisfied) == static_cast<long>(states.size()))
      return DependencyState::NeverSatisfied;
    return DependencyState::Pending;
  }
  if (count(DependencyState::NeverSatisfied) > 0) return DependencyState::NeverSatisfied;
  if (count(DependencyState::Satisfied) == static_cast<long>(states.size()))
    return DependencyState::Satisfied;
  return DependencyState::Pending;
}

// `wake` falls to the time an `after:ID+minutes` item whose delay still runs will be met (0:
// no such item yet).
DependencyState onTarget(const jobspec::DependencyItem& item, const Job& target,
                         std::int64_t now, std::int64_t& wake) {
  v1::JobState st = target.state();
  switch (item.type) {
    case DependencyType::After:
      if (st == v1::JOB_PENDING || st == v1::JOB_REQUEUED) return DependencyState::Pending;
      if (target.info.start_time() == 0) return DependencyState::Satisfied;  // cancelled unstarted
      if (const std::int64_t met = target.info.start_time() +
                                   static_cast<std::int64_t>(item.delay_minutes) * 60;
          met > now) {
        wake = wake == 0 ? met : std::min(wake, met);
        return DependencyState::Pending;
      }
      return DependencyState::Satisfied;
    case DependencyType::AfterAny:
      return isFinal(st) ? DependencyState::Satisfied : DependencyState::Pending;
    case DependencyType::AfterOk:
    case DependencyType::AfterCorr:
      if (!isFinal(st)) return DependencyState::Pending;
      return st == v1::JOB_COMPLETED ? DependencyState::Satisfied
                                     : DependencyState::NeverSatisfied;
    case DependencyType::AfterNotOk:
      if (!isFinal(st)) return DependencyState::Pending;
      return st == v1::JOB_COMPLETED ? DependencyState::NeverSatisfied
                                     : DependencyState::Satisfied;
    default:
      return DependencyState::Satisfied;  // burst buffer / expand: nothing to wait for here
  }
}

}  // namespace

std::string dependencyStatus(const jobspec::DependencySpec& spec,
                             const std::vector<DependencyState>& items, DependencyState overall) {
  std::string out;
  if (overall == DependencyState::Satisfied) return out;
  for (std::size_t k = 0; k < spec.items.size() && k < items.size(); ++k) {
    if (items[k] == DependencyState::Satisfied) continue;
    if (!out.empty()) out += spec.any ? '?' : ',';
    jobspec::DependencyItem shown = spec.items[k];
    shown.failed = false;  // the state follows in parentheses
    out += jobspec::formatDependency(jobspec::DependencySpec{{shown}, false, {}});
    out += items[k] == DependencyState::NeverSatisfied ? "(failed)" : "(unfulfilled)";
  }
  return out;
}

struct Internals {
  // The combined state; `items` receives each item's own. Items may change as a side effect
  // (`spec_changed` set): an item on a whole array reads "ID_*" as Slurm shows it, and an item
  // whose target can never meet it is marked failed for good.
  static DependencyState evaluate(const JobManager& m, Job& job, std::int64_t now,
                                  std::vector<DependencyState>& per_item, bool& spec_changed,
                                  std::int64_t& wake) {
    for (auto& item : job.dependency->items) {
      if (item.failed) {
        per_item.push_back(DependencyState::NeverSatisfied);
        continue;
      }
      if (item.type == DependencyType::Singleton) {
        // Another of the user's jobs of this name not ended that is earlier by job id (an
        // array's pending tasks count as their array's id), or that runs.
        bool waiting = false;
        const LiveJobs::Place self{job.info.job_id(), job.id()};
        for (const LiveJobs::Place& other : m.live_.named(job.info.uid(), job.info.name())) {
          if (other == self) continue;
          if (other < self || holdsResources(m.find(other.second)->state())) {
            waiting = true;
            break;
          }
        }
        per_item.push_back(waiting ? DependencyState::Pending : DependencyState::Satisfied);
        continue;
      }
      std::vector<const Job*> targets;
      if (auto arr = m.arrays_.find(item.job_id); arr != m.arrays_.end()) {
        std::optional<std::uint32_t> task = item.task_id;
        if (!task && !item.all_tasks) {
          item.all_tasks = true;
          spec_changed = true;
        }
        if (item.type == DependencyType::AfterCorr && job.isArrayTask() && !task) {
          task = static_cast<std::uint32_t>(job.info.array_task_id());
        }
        for (JobId tid : arr->second) {
          const Job& t = *m.find(tid);
          if (!task || t.info.array_task_id() == static_cast<std::int64_t>(*task)) {
            targets.push_back(&t);
          }
        }
      } else if (const Job* t = m.find(item.job_id)) {
        targets.push_back(t);
      }
      std::vector<DependencyState> per_target;
      for (const Job* t : targets) per_target.push_back(onTarget(item, *t, now, wake));
      const DependencyState state = combine(per_target, false);
      if (state == DependencyState::NeverSatisfied) {
        item.failed = true;
        spec_changed = true;
      }
      per_item.push_back(state);
    }
    return combine(per_item, job.dependency->any);
  }
};

bool JobManager::reevaluateDependency(Job& job, std::int64_t now) {
  if (job.state() != v1::JOB_PENDING || !job.dependency) {
    clearDependencyWake(job);
    if (!job.dependency) job.info.clear_dependency_status();
    return false;
  }
  ++dependency_evaluations_;
  std::vector<DependencyState> items;
  bool spec_changed = false;
  std::int64_t wake = 0;
  DependencyState after = Internals::evaluate(*this, job, now, items, spec_changed, wake);
  // Also for a job that can never start: its `after:ID+minutes` item, shown "(unfulfilled)"
  // by scontrol, must read as met once the delay has run out.
  setDependencyWake(job, after == DependencyState::Satisfied ? 0 : wake);
  if (spec_changed) {
    job.info.set_dependency(jobspec::formatDependency(*job.dependency));
    stage(job);
  }
  // Display only (scontrol's Dependency=): not staged, recomputed after every recovery.
  job.info.set_dependency_status(dependencyStatus(*job.dependency, items, after));
  if (after == job.request.dependency) return false;
  job.request.dependency = after;
  job.info.set_reason(std::string(sched::reasonName(initialReason(job))));
  noteWaitReason(job.info);
  touch(job.id());  // the maintained scheduler hears of it at the next pass
  refreshEligibility(job, now);
  changed();
  return true;
}

bool JobManager::reevaluateDependencies() {
  bool any = false;
  const std::int64_t now = clock_.now();
  dependency_due_.clear();
  // Only job states feed the evaluation and none changes here, so one pass is enough.
  for (JobId id : with_dependencies_) any = reevaluateDependency(*mutableJob(id), now) || any;
  return any;
}

bool JobManager::reevaluateDueDependencies() {
  const std::int64_t now = clock_.now();
  for (auto it = dependency_wakes_.begin(); it != dependency_wakes_.end() && it->first <= now; ++it)
    dependency_due_.insert(it->second);
  std::set<JobId> due;
  due.swap(dependency_due_);
  bool any = false;
  for (JobId id : due) {
    // Gone since it was marked: purged, or an array task that took its own id as it started.
    if (with_dependencies_.count(id)) any = reevaluateDependency(*mutableJob(id), now) || any;
  }
  return any;
}

void JobManager::setDependencyWake(Job& job, std::int64_t wake) {
  if (job.dependency_wake == wake) return;
  if (job.dependency_wake != 0) dependency_wakes_.erase({job.dependency_wake, job.id()});
  job.dependency_wake = wake;
  if (wake != 0) dependency_wakes_.emplace(wake, job.id());
}

void JobManager::indexDependents(const Job& job) {
  if (!job.dependency) return;
  for (const auto& item : job.dependency->items) {
    if (item.job_id != 0) dependents_.emplace(item.job_id, job.id());
    if (item.type == DependencyType::Singleton) singletons_.insert(job.id());
  }
}

void JobManager::unindexDependents(const Job& job) {
  singletons_.erase(job.id());
  if (!job.dependency) return;
  for (const auto& item : job.dependency->items) {
    auto [first, last] = dependents_.equal_range(item.job_id);
    for (auto d = first; d != last;) d = d->second == job.id() ? dependents_.erase(d) : std::next(d);
  }
}

std::vector<JobId> JobManager::dependentsOf(const Job& target) const {
  std::vector<JobId> ids;
  for (JobId named : {JobId(target.info.job_id()), JobId(target.info.array_job_id())}) {
    if (named == 0) continue;
    auto [first, last] = dependents_.equal_range(named);
    for (auto it = first; it != last; ++it) ids.push_back(it->second);
  }
  // The user's jobs of its name matter only where one waits with `singleton`: walk whichever
  // of the two is shorter (cancelling 5,000 jobs of one name walked all of them for each).
  if (!singletons_.empty()) {
    const auto& named = live_.named(target.info.uid(), target.info.name());
    if (named.size() <= singletons_.size()) {
      for (const LiveJobs::Place& place : named)
        if (singletons_.count(place.second)) ids.push_back(place.second);
    } else {
      for (JobId id : singletons_) {
        const Job& other = *find(id);
        if (other.info.uid() == target.info.uid() && other.info.name() == target.info.name())
          ids.push_back(id);
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void JobManager::evaluateDependentsOf(const Job& target) {
  reevaluateDependenciesOf(dependentsOf(target));
}

void JobManager::dependentsDue(const Job& target) {
  for (JobId id : dependentsOf(target))
    if (with_dependencies_.count(id)) dependency_due_.insert(id);
}

void JobManager::reevaluateDependenciesOf(const std::vector<JobId>& ids) {
  const std::int64_t now = clock_.now();
  for (JobId id : ids) {
    if (with_dependencies_.count(id)) reevaluateDependency(*mutableJob(id), now);
  }
}

}  // namespace drover::jobs
