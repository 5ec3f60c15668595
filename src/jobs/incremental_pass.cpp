// The controller's scheduling path: the maintained sched::Scheduler and how the job table's
// changes reach it. A full rebuild (first pass, after recovery, after resetScheduler, every
// priority calc period) hands it buildSnapshot(); in between, each pass replays only what
// changed: jobs staged since the last pass (stage() records them), new submissions (ids above
// the watermark), dependency states that moved, array throttles of touched arrays, nodes and
// partitions that differ. tests/unit/jobs/incremental_pass_test.cpp checks that the plan equals
// schedule() on a fresh tableSnapshot() after random event sequences.
#include <algorithm>
#include <map>
#include <optional>
#include <iterator>
#include <set>
#include <unordered_map>

#include "jobs/job_manager.h"
#include "jobs/qos_limits.h"
#include "jobs/request.h"
#include "jobs/scheduling_state.h"

namespace drover::jobs {

void SchedulingStateDeleter::operator()(SchedulingState* state) const { delete state; }

namespace {

constexpr const char* kArrayTaskLimit = "JobArrayTaskLimit";

bool sameNode(const sched::Node& a, const sched::Node& b) {
  return a.name == b.name && a.index == b.index && a.cpus == b.cpus && a.memoryMb == b.memoryMb &&
         a.gpuTypes == b.gpuTypes && a.features == b.features && a.weight == b.weight &&
         a.partitions == b.partitions && a.usable == b.usable;
}

bool samePartition(const sched::Partition& a, const sched::Partition& b) {
  return a.name == b.name && a.state == b.state && a.maxTimeS == b.maxTimeS &&
         a.defaultTimeS == b.defaultTimeS && a.maxNodes == b.maxNodes &&
         a.priorityTier == b.priorityTier && a.priorityJobFactor == b.priorityJobFactor &&
         a.exclusive == b.exclusive && a.allowedAccounts == b.allowedAccounts &&
         a.preemptable == b.preemptable;
}

bool samePartitions(const std::vector<sched::Partition>& a,
                    const std::vector<sched::Partition>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), samePartition);
}

bool sameReservations(const std::vector<sched::AdvanceReservation>& a,
                      const std::vector<sched::AdvanceReservation>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.nodes == y.nodes && x.nodeCount == y.nodeCount &&
           x.users == y.users && x.accounts == y.accounts && x.start == y.start && x.end == y.end;
  });
}

HeldJob heldRunning(const Job& job) {
  HeldJob h;
  h.running = true;
  h.start = job.info.start_time();
  h.end = job.info.end_time();
  h.cpus = job.info.num_cpus();
  h.who = {fairShareAccount(job.info.account()), job.info.user()};
  return h;
}

// When a run stopped using its CPUs: its recorded end once the job has ended, else `now` (it
// still runs, or was requeued and its old run is only now seen to be over).
std::int64_t runEnd(const Job* job, std::int64_t now) {
  if (job && isFinal(job->state()) && job->info.end_time() > 0) {
    return std::min(job->info.end_time(), now);
  }
  return now;
}

}  // namespace

double heldRunUsage(const HeldJob& held, const Job* job, std::int64_t now) {
  const std::int64_t ran = std::max<std::int64_t>(0, runEnd(job, now) - held.start);
  return static_cast<double>(held.cpus) * static_cast<double>(ran);
}

namespace {

// Charges the run `held` to its association now that the scheduler forgets it.
void chargeRun(UsageLedger& ledger, const HeldJob& held, const Job* job, std::int64_t now) {
  ledger.charge(held.who, heldRunUsage(held, job, now), runEnd(job, now));
}

}  // namespace

sched::RunningJob runningOf(const Job& job) {
  sched::RunningJob r;
  r.id = job.id();
  r.partition = job.info.partition();
  r.qos = job.info.qos();
  for (const auto& a : job.info.allocation()) {
    sched::NodeAllocation na;
    na.node = a.node();
    na.cpus = static_cast<int>(a.cpus());
    na.memoryMb = static_cast<std::int64_t>(a.memory_mb());
    na.gpus.assign(a.gpu_indices().begin(), a.gpu_indices().end());
    r.allocation.nodes.push_back(std::move(na));
  }
  r.expectedEnd = job.info.end_time();
  return r;
}

SchedulingState& JobManager::schedState() {
  if (!scheduling_) {
    scheduling_.reset(new SchedulingState());
    scheduling_->ledger.setHalfLife(config_.scheduler.priority.decay_half_life_s);
  }
  return *scheduling_;
}

const sched::Scheduler* JobManager::maintainedScheduler() const {
  return scheduling_ ? scheduling_->scheduler.get() : nullptr;
}

void JobManager::resetScheduler() {
  if (scheduling_) scheduling_->scheduler.reset();
}

sched::Snapshot JobManager::tableSnapshot(const std::vector<NodeView>& nodes) {
  SchedulingState& st = schedState();
  st.keep_priorities = true;
  sched::Snapshot snap = buildSnapshot(nodes);
  st.keep_priorities = false;
  return snap;
}

void JobManager::rebuildScheduler(const std::vector<NodeView>& nodes, std::int64_t now) {
  SchedulingState& st = schedState();
  st.scheduler.reset();  // buildSnapshot computes every priority again when none is held
  sched::Snapshot snap = buildSnapshot(nodes);
  st.last_recalc = now;
  st.scheduler = std::make_unique<sched::Scheduler>(snap.nodes, snap.partitions, schedulerParams());
  st.scheduler->setReservations(snap.reservations);
  st.reservations = snap.reservations;
  // Usage of runs the old scheduler held that end now is charged by the sync that sees them
  // end; a rebuild only forgets pending jobs (charging what ran of the rest first).
  for (auto it = st.held.begin(); it != st.held.end();) {
    const Job* job = find(it->first);
    if (it->second.running && (!job || !holdsResources(job->state()) ||
                               job->info.start_time() != it->second.start)) {
      chargeRun(st.ledger, it->second, job, now);
    }
    it = st.held.erase(it);
  }
  st.running_held.clear();
  st.throttled.clear();
  st.begin_waits.clear();
  st.begin_of.clear();
  st.submitted_unapplied.clear();
  st.full_unapplied = true;
  st.applied.clear();  // the jobs touched since the last pass are not replayed to say so
  std::set<JobId> in_snapshot;
  for (const sched::Job& j : snap.pending) {
    in_snapshot.insert(j.id);
    HeldJob h;
    h.dependency = j.request.dependency;
    st.held[j.id] = h;
    st.scheduler->onJobSubmitted(j);
  }
  for (const sched::RunningJob& r : snap.running) {
    st.held[r.id] = heldRunning(jobs_.at(r.id));
    st.running_held.insert(r.id);
  }
  st.scheduler->onJobsStarted(std::move(snap.running));
  st.qos_withheld.clear();
  st.qos_limits_key = qosLimitsKey(config_);
  for (const auto& [id, job] : jobs_) {
    if (job.state() != v1::JOB_PENDING) continue;
    // Kept out of the snapshot by its array's %N, or by its QOS's limits (the reason says);
    // a job that waits for a hold, a dependency or a begin time is in neither set.
    if (!in_snapshot.count(id) && waitingReason(job, now) == sched::Reason::None) {
      if (job.info.reason() == kArrayTaskLimit) {
        st.throttled.insert(id);
      } else {
        st.qos_withheld[id] = job.info.reason();
      }
    }
    noteBeginWait(id, &job, now);
  }
  st.watermark = highestId();
  touched_.clear();
  renamed_.clear();  // the snapshot already holds the renamed jobs under their ids
}

void JobManager::syncScheduler(std::int64_t now) {
  SchedulingState& st = schedState();
  sched::Scheduler& s = *st.scheduler;

  // Jobs get their eligible time here, as buildSnapshot gives it to every pending job, but
  // only when something that could grant it happened: their --begin time came due, or they
  // were touched (released, updated, requeued). A dependency that became satisfied refreshes
  // its job where it is evaluated (reevaluateDependency, which touches the job).
  while (!st.begin_waits.empty() && st.begin_waits.begin()->first <= now) {
    const JobId id = st.begin_waits.begin()->second;
    st.begin_waits.erase(st.begin_waits.begin());
    st.begin_of.erase(id);
    // Kept out of the scheduler while its begin time was ahead: it comes in now. (The
    // refreshEligibility below stages it too, but only when it sets the eligible time, which
    // every path that sets a begin time clears: this does not rest on that.)
    touch(id);
    if (Job* job = mutableJob(id)) refreshEligibility(*job, now);
  }
  for (std::size_t i = 0, n = touched_.size(); i < n; ++i) {  // refreshEligibility touches too
    if (Job* job = mutableJob(touched_[i])) refreshEligibility(*job, now);
  }

  std::set<JobId> ids(touched_.begin(), touched_.end());
  touched_.clear();
  // New jobs lie above the watermark; array tasks not started yet, keyed above every id, were
  // touched when submitted.
  for (auto it = jobs_.upper_bound(st.watermark); it != jobs_.end() && !isTaskKey(it->first);
       ++it) {
    ids.insert(it->first);
  }
  st.watermark = std::max(st.watermark, highestId());

  // Array tasks that started under their task key and took a job id (splitStarted): the
  // scheduler hears of the start under the key it planned (so a plan applied as made keeps its
  // memo), then of the new id.
  std::unordered_map<JobId, JobId> renamed_from;  // job id -> the task key it started under
  for (const auto& [key, id] : renamed_) {
    ids.erase(key);
    ids.insert(id);
    st.applied.erase(key);
    noteBeginWait(key, nullptr, now);
    st.throttled.erase(key);
    st.factors.erase(key);
    auto h = st.held.find(key);
    if (h == st.held.end()) continue;
    const bool was_pending = !h->second.running;
    st.held.erase(h);
    if (was_pending) renamed_from[id] = key;
  }
  renamed_.clear();

  // QOS limits of the (QOS, user) pairs whose jobs changed, and after a reconfigure that
  // changed the limits of every pair, as buildSnapshot computes them: each pending job of those
  // pairs is looked at again.
  for (JobId id : ids) st.qos_withheld.erase(id);
  bool every_pair = false;
  if (std::string key = qosLimitsKey(config_); key != st.qos_limits_key) {
    for (const auto& [id, reason] : st.qos_withheld) ids.insert(id);  // a limit may be gone
    st.qos_withheld.clear();
    st.qos_limits_key = std::move(key);
    every_pair = true;
  }
  if (const QosLimits limits(config_); limits.any()) {
    QosGroups groups;
    auto note = [&](const Job* job) {
      if (!job || !limits.limits(job->info.qos())) return;
      // "": every user of a QOS whose limits count all its jobs together.
      groups.emplace(job->info.qos(),
                     limits.limitsTheWholeQos(job->info.qos()) ? std::string() : job->info.user());
    };
    for (JobId id : ids) note(find(id));
    if (every_pair) {
      for (const auto& [id, job] : jobs_) note(&job);
    }
    if (!groups.empty()) {
      std::vector<QosLimitJob> concerned = qosLimitJobs(limits, &groups);
      for (const QosLimitJob& job : concerned) {
        if (job.running) continue;
        ids.insert(job.id);
        st.qos_withheld.erase(job.id);
      }
      for (const auto& [id, reason] : limits.withheld(std::move(concerned))) {
        st.qos_withheld[id] = std::string(reason);
      }
    }
  }

  // Array throttles (%N) of the arrays whose tasks changed, as buildSnapshot computes them.
  std::set<JobId> arrays;
  for (JobId id : ids) {
    const Job* job = find(id);
    if (job && job->isArrayTask() && job->info.array_max_running() > 0) {
      arrays.insert(job->info.array_job_id());
    }
  }
  for (JobId array_id : arrays) {
    auto tasks = arrays_.find(array_id);
    if (tasks == arrays_.end()) continue;
    const std::uint32_t limit = jobs_.at(tasks->second.front()).info.array_max_running();
    int running = 0;
    for (JobId t : tasks->second) running += holdsResources(jobs_.at(t).state()) ? 1 : 0;
    int slots = std::max(0, static_cast<int>(limit) - running);
    for (JobId t : tasks->second) {
      const Job& task = jobs_.at(t);
      ids.insert(t);
      st.throttled.erase(t);
      if (task.state() != v1::JOB_PENDING || initialReason(task) != sched::Reason::None) continue;
      if (slots == 0) {
        st.throttled.insert(t);
      } else {
        --slots;
      }
    }
  }

  std::optional<ShareTable> shares;
  std::optional<PriorityCalculator> calc;
  std::int64_t cluster_cpus = 0;
  for (const auto& n : s.snapshot().nodes) cluster_cpus += n.cpus;
  auto priorityOf = [&](JobId id, const sched::JobRequest& request) {
    if (!shares) {
      shares.emplace(config_, usageForFactors(now));
      calc.emplace(config_, partitions_, cluster_cpus, *shares);
    }
    PriorityFactors f = calc->compute(request, now);
    st.factors[id] = f;
    return f.priority;
  };

  std::vector<sched::RunningJob> started;
  std::vector<JobId> ended;  // gone for good: leave the scheduler in one walk (onJobsEnded)
  for (JobId id : ids) {
    st.applied.erase(id);  // changed: its info may no longer be what its last entry wrote
    Job* job = mutableJob(id);
    noteBeginWait(id, job, now);
    enum class Want { kAbsent, kPending, kRunning } want = Want::kAbsent;
    if (job && holdsResources(job->state())) {
      want = Want::kRunning;
    } else if (job && job->state() == v1::JOB_PENDING) {
      const auto qos_limit = st.qos_withheld.find(id);
      const bool throttled = st.throttled.count(id) > 0;
      const sched::Reason waits = waitingReason(*job, now);
      want = throttled || qos_limit != st.qos_withheld.end() || waits != sched::Reason::None
                 ? Want::kAbsent
                 : Want::kPending;
      if (want == Want::kAbsent) {
        if (throttled || qos_limit != st.qos_withheld.end()) {
          job->info.set_reason(throttled ? std::string(kArrayTaskLimit) : qos_limit->second);
          job->info.set_start_time(0);
        } else {
          writeWaitingReason(*job, waits, now);  // as buildSnapshot keeps it out
        }
        // Not the scheduler's until the throttle lets it go, but its priority is shown
        // (scontrol, squeue) as the reference showed a throttled task's, not 0.
        job->info.set_priority(priorityOf(id, job->request));
      }
    }
    auto h = st.held.find(id);
    if (h != st.held.end() && h->second.running) {
      if (want == Want::kRunning && job->info.start_time() == h->second.start) {
        if (job->info.end_time() == h->second.end) continue;
        // The same run with a new expected end (scancel while it is killed, a TimeLimit
        // update, a resume): the profile must end it then, as a rebuild would.
        h->second.end = job->info.end_time();
        s.onJobEnded(id);
        started.push_back(runningOf(*job));
        continue;
      }
      // The run ended (or was requeued and started again): charge it, then forget it.
      chargeRun(st.ledger, h->second, job, now);
      if (want == Want::kAbsent) ended.push_back(id);
      else s.onJobEnded(id);  // requeued or restarted: out before it comes back below
      st.full_unapplied = true;  // a completion may move anyone's entry
      st.held.erase(h);
      st.running_held.erase(id);
      h = st.held.end();
    }
    if (want == Want::kRunning) {
      if (h != st.held.end()) st.held.erase(h);
      st.held[id] = heldRunning(*job);
      st.running_held.insert(id);
      st.factors.erase(id);
      started.push_back(runningOf(*job));
      if (auto from = renamed_from.find(id); from != renamed_from.end()) {
        started.back().id = from->second;
      }
      continue;
    }
    if (want == Want::kAbsent) {
      if (h != st.held.end()) {
        ended.push_back(id);
        st.held.erase(h);
      }
      st.factors.erase(id);
      continue;
    }
    // Pending: (re)computed priority, then new to the scheduler or an update.
    sched::Job sj;
    sj.id = id;
    sj.request = job->request;
    job->info.set_priority(priorityOf(id, job->request));
    sj.priority = static_cast<double>(job->info.priority());
    HeldJob held;
    held.dependency = job->request.dependency;
    if (h == st.held.end()) {
      st.held[id] = held;
      st.submitted_unapplied.push_back(id);
      s.onJobSubmitted(std::move(sj));
    } else {
      h->second = held;
      st.full_unapplied = true;
      s.onJobUpdated(std::move(sj));
    }
  }
  // Anything but a submission may change other jobs' entries: the next apply writes them all.
  if (!ended.empty() || !started.empty()) st.full_unapplied = true;
  s.onJobsEnded(ended);
  if (!started.empty()) s.onJobsStarted(std::move(started));
  for (const auto& [id, key] : renamed_from) {
    const Job* job = find(id);
    if (!job || !holdsResources(job->state())) {
      s.onJobEnded(key);  // it started and ended within one pass (launch failure)
      continue;
    }
    s.renameRunning(key, id);
  }
}

JobId JobManager::highestId() const {
  auto it = jobs_.lower_bound(kTaskKeyBit);
  return it == jobs_.begin() ? 0 : std::prev(it)->first;
}

std::vector<Launch> JobManager::schedulePass(const std::vector<NodeView>& nodes) {
  const sched::Plan& plan = planPass(nodes);
  // Every pending job the scheduler holds gets a decision in each pass (a start, or a reason
  // and expected start), many of them kept from the last plan by an incremental pass: the
  // plan's size is both. Held, dependent and --begin jobs are not among them, as they are not
  // in Slurm's queue (sdiag's "Last queue length").
  last_plan_size_ = static_cast<std::uint32_t>(plan.starts.size() + plan.pending.size());
  last_backfill_ = {};
  if (schedulerParams().policy != sched::Policy::Fcfs) {
    // Each partition's first blocked job waits for Resources, every later one for Priority.
    last_backfill_.ran = plan.stats.waitingOnResources > 0;
    last_backfill_.started = static_cast<std::uint32_t>(plan.stats.backfilled);
    last_backfill_.depth = static_cast<std::uint32_t>(plan.stats.waitingOnPriority) + last_backfill_.started;
    const auto skipped = static_cast<std::uint32_t>(plan.stats.skippedSameShape);
    last_backfill_.tried = last_backfill_.depth - std::min(skipped, last_backfill_.depth);
  }
  // The jobs left waiting for nodes, in rank order, before the starts are applied (which
  // bring the scheduler, and so its plan, up to date).
  std::vector<JobId> blocked;
  if (preemptionConfigured()) {
    for (const sched::PendingInfo& p : plan.pending) {
      if (p.reason == sched::Reason::Resources || p.reason == sched::Reason::Priority)
        blocked.push_back(p.id);
    }
  }
  std::vector<Launch> launches = applyPass(plan);
  preemptFor(blocked);
  return launches;
}

void JobManager::noteBeginWait(JobId id, const Job* job, std::int64_t now) {
  SchedulingState& st = schedState();
  const std::int64_t begin = job && job->state() == v1::JOB_PENDING && job->request.beginTime > now
                                 ? job->request.beginTime
                                 : 0;
  auto old = st.begin_of.find(id);
  if (old != st.begin_of.end()) {
    if (old->second == begin) return;
    st.begin_waits.erase({old->second, id});
    st.begin_of.erase(old);
  }
  if (begin == 0) return;
  st.begin_waits.emplace(begin, id);
  st.begin_of.emplace(id, begin);
}

std::int64_t JobManager::nextBeginTime() const {
  if (!scheduling_ || scheduling_->begin_waits.empty()) return 0;
  return scheduling_->begin_waits.begin()->first;
}

std::vector<Launch> JobManager::applyPass(const sched::Plan& plan) {
  SchedulingState& st = schedState();
  // After incremental passes only the entries of the jobs they added changed (the scheduler
  // keeps everyone else's); a full pass may have changed any. A MAINT reservation's reason
  // (ReservationBook::pendingReason) moves with the clock alone, so reservations also write all.
  std::vector<JobId> added = std::move(st.submitted_unapplied);
  st.submitted_unapplied.clear();
  const bool all = st.full_unapplied || reservations_.size() > 0;
  st.full_unapplied = false;
  std::vector<Launch> launches =
      applyPlanEntries(plan, all ? nullptr : &added, /*skip_unchanged=*/true);
  // The starts (and launch failures) applyPlan staged reach the scheduler now, in one batch.
  syncScheduler(clock_.now());
  return launches;
}

void JobManager::adoptPartitions(std::vector<sched::Partition> parts) {
  if (samePartitions(parts, partitions_)) return;
  SchedulingState& st = schedState();
  if (st.scheduler) st.scheduler->setPartitions(parts);
  st.full_unapplied = true;
  partitions_ = std::move(parts);  // reconfigured: submissions are checked against these too
}

void JobManager::configChanged() {
  config_nodes_ = schedNodes(config_);
  adoptPartitions(schedPartitions(config_));
  // A new policy or estimate depth takes effect at the next pass, not the next rebuild.
  if (scheduling_ && scheduling_->scheduler && scheduling_->scheduler->params() != schedulerParams())
    resetScheduler();
}

const sched::Plan& JobManager::planPass(const std::vector<NodeView>& views) {
  const std::int64_t now = clock_.now();
  SchedulingState& st = schedState();
  st.ledger.setHalfLife(config_.scheduler.priority.decay_half_life_s);
  reevaluateDueDependencies();

  std::vector<sched::Node> nodes;
  if (views.empty()) {
    nodes = last_nodes_.empty() ? config_nodes_ : last_nodes_;
  } else {
    nodes = schedNodes(views);
  }
  adoptPartitions(schedPartitions(config_));
  if (st.scheduler) {
    const auto& held_nodes = st.scheduler->snapshot().nodes;
    bool same_names = held_nodes.size() == nodes.size();
    for (std::size_t i = 0; same_names && i < nodes.size(); ++i) {
      same_names = held_nodes[i].name == nodes[i].name;
    }
    if (!same_names) {
      st.scheduler.reset();
    } else {
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (!sameNode(held_nodes[i], nodes[i])) {
          st.scheduler->onNodeChanged(nodes[i]);
          st.full_unapplied = true;
        }
      }
    }
  }
  if (!views.empty()) setLastNodes(nodes);
  if (st.scheduler) {
    auto reservations = reservations_.forSnapshot(now);
    if (!sameReservations(reservations, st.reservations)) {
      st.scheduler->setReservations(reservations);
      st.reservations = std::move(reservations);
      st.full_unapplied = true;
    }
  }

  if (!st.scheduler || now - st.last_recalc >= config_.scheduler.priority.calc_period_s) {
    rebuildScheduler(views, now);
  } else {
    syncScheduler(now);
  }
  const int full_before = st.scheduler->counters().fullPasses;
  const sched::Plan& plan = st.scheduler->pass(now);
  if (st.scheduler->counters().fullPasses != full_before) st.full_unapplied = true;
  return plan;
}

}  // namespace drover::jobs
