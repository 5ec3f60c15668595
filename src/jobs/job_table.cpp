// The job table's bookkeeping: indexes, staging, eligibility, accounting records, recovery.
#include <algorithm>

#include "acct/job_flags.h"
#include "common/comma_list.h"
#include "jobs/job_manager.h"
#include "jobs/request.h"
#include "jobs/step_layout.h"
#include "sched/partition_order.h"
#include "jobs/task_usage_wire.h"
#include "jobspec/array_spec.h"
#include "jobstate/eligible_time.h"

namespace drover::jobs {

namespace {

acct::JobState toAcct(v1::JobState s) {
  switch (s) {
    case v1::JOB_PENDING: return acct::JobState::kPending;
    case v1::JOB_RUNNING: return acct::JobState::kRunning;
    case v1::JOB_SUSPENDED: return acct::JobState::kSuspended;
    case v1::JOB_COMPLETING: return acct::JobState::kCompleting;
    case v1::JOB_COMPLETED: return acct::JobState::kCompleted;
    case v1::JOB_CANCELLED: return acct::JobState::kCancelled;
    case v1::JOB_FAILED: return acct::JobState::kFailed;
    case v1::JOB_TIMEOUT: return acct::JobState::kTimeout;
    case v1::JOB_NODE_FAIL: return acct::JobState::kNodeFail;
    case v1::JOB_PREEMPTED: return acct::JobState::kPreempted;
    case v1::JOB_BOOT_FAIL: return acct::JobState::kBootFail;
    case v1::JOB_DEADLINE: return acct::JobState::kDeadline;
    case v1::JOB_OUT_OF_MEMORY: return acct::JobState::kOutOfMemory;
    case v1::JOB_REQUEUED: return acct::JobState::kRequeued;
    default: return acct::JobState::kPending;
  }
}

// The job flags accounting keeps (acct/job_flags.h): the path that started the run, then
// StartRecieved, which the reference recorded on every job, pending ones too.
std::vector<std::string> recordedFlags(v1::JobStartedBy by) {
  std::vector<std::string> flags;
  switch (by) {
    case v1::STARTED_ON_SUBMIT: flags.emplace_back(acct::kFlagSchedSubmit); break;
    case v1::STARTED_ON_SCHEDULE: flags.emplace_back(acct::kFlagSchedMain); break;
    case v1::STARTED_ON_BACKFILL: flags.emplace_back(acct::kFlagSchedBackfill); break;
    default: break;
  }
  flags.emplace_back(acct::kFlagStartReceived);
  return flags;
}

std::vector<std::string> allocatedNodes(const v1::JobInfo& info) {
  std::vector<std::string> out;
  for (const auto& a : info.allocation()) out.push_back(a.node());
  return out;
}

}  // namespace

const Job* JobManager::find(JobId id) const {
  auto it = by_key_.find(id);
  return it == by_key_.end() ? nullptr : it->second;
}

Job* JobManager::mutableJob(JobId id) {
  auto it = by_key_.find(id);
  return it == by_key_.end() ? nullptr : it->second;
}

void JobManager::index(Job& job) {
  by_key_[job.id()] = &job;
  live_.sync(job);
  if (job.isArrayTask()) {
    auto& tasks = arrays_[job.info.array_job_id()];
    auto pos = std::lower_bound(tasks.begin(), tasks.end(), job.id());
    if (pos == tasks.end() || *pos != job.id()) tasks.insert(pos, job.id());
  }
  if (job.dependency) with_dependencies_.insert(job.id());
  indexDependents(job);
}

sched::JobRequest JobManager::requestOf(const v1::JobInfo& info) const {
  sched::JobRequest r = buildRequest(info);
  sched::orderPartitions(r, partitions_);
  // Only a held submission skips the check (submit.cpp), so only such a job can fail it.
  if (info.spec().hold()) {
    r.unrunnable = validateListed(r).code == sched::RejectCode::NodeConfigUnavailable;
  }
  return r;
}

std::vector<const config::PartitionConfig*> JobManager::partitionsOf(const v1::JobInfo& info) const {
  std::vector<const config::PartitionConfig*> out;
  for (const std::string& name : splitCommas(info.partition())) {
    if (const auto* p = config_.findPartition(name)) out.push_back(p);
  }
  return out;
}

std::string JobManager::requestedTres(const v1::JobInfo& info,
                                      const sched::JobRequest& request) const {
  std::int64_t largest = 0;
  if (request.allMemory) {
    for (const auto* p : partitionsOf(info)) {
      for (const auto& n : config_nodes_) {
        if (std::find(n.partitions.begin(), n.partitions.end(), p->name) != n.partitions.end()) {
          largest = std::max(largest, n.memoryMb);
        }
      }
    }
  }
  return reqTres(request, largest);
}

void JobManager::rebuildRequest(Job& job) {
  sched::DependencyState dep = job.request.dependency;
  job.request = requestOf(job.info);
  job.request.dependency = job.dependency ? dep : sched::DependencyState::Satisfied;
}

namespace {

bool isWaitReason(const v1::JobInfo& info) {
  const std::string& reason = info.reason();
  return info.state() == v1::JOB_PENDING && !reason.empty() &&
         reason != sched::reasonName(sched::Reason::None) &&
         reason != sched::reasonName(sched::Reason::Priority) &&
         reason != sched::reasonName(sched::Reason::Resources);
}

}  // namespace

bool noteWaitReason(v1::JobInfo& info) {
  if (!isWaitReason(info) || info.wait_reason() == info.reason()) return false;
  info.set_wait_reason(info.reason());
  return true;
}

const std::string& accountingReason(const v1::JobInfo& info) {
  static const std::string kNone;
  // A job that could not be launched (its output file could not be opened, ...) says so: issue 3
  // asks that reason be visible in sacct, where the reference's showed None (and 0:53).
  if (isWaitReason(info) || info.reason() == kLaunchFailure) return info.reason();
  // Cancelled while held: a hold is no wait the scheduler recorded (the reference's held job,
  // cancelled: Reason None; one cancelled waiting for its --begin or a dependency that could
  // never be met kept BeginTime, DependencyNeverSatisfied).
  if (info.state() == v1::JOB_CANCELLED && info.allocation_size() == 0 &&
      (info.held_user() || info.held_admin())) {
    return kNone;
  }
  return info.wait_reason();
}

void JobManager::stage(Job& job) {
  noteWaitReason(job.info);
  store_.stageUpdate(job);
  touch(job.id());
}

void JobManager::refreshEligibility(Job& job, std::int64_t now) {
  if (job.state() != v1::JOB_PENDING || job.info.eligible_time() != 0) return;
  if (job.request.hold != sched::Hold::None) return;
  if (job.request.dependency != sched::DependencyState::Satisfied) return;
  if (job.request.beginTime > now) return;
  job.info.set_eligible_time(now);
  stage(job);
  record(job);
}

void JobManager::record(const Job& job) {
  if (job.unsplit()) {
    dirty_remainders_.insert(job.info.array_job_id());
    return;
  }
  putRecord(jobRecord(job));
}

acct::JobRecord JobManager::jobRecord(const Job& job) const {
  const v1::JobInfo& i = job.info;
  acct::JobRecord r;
  r.job_id = i.job_id();
  r.array_job_id = i.array_job_id();
  if (job.isArrayTask()) r.array_task_id = static_cast<std::uint32_t>(i.array_task_id());
  r.array_max_running = i.array_max_running();
  r.name = i.name();
  r.uid = i.uid();
  r.user = i.user();
  r.gid = i.gid();
  r.group = i.group();
  r.account = i.account();
  r.partition = i.partition();
  r.qos = i.qos();
  r.cluster = config_.cluster_name;
  r.reservation = i.spec().reservation();
  r.submit = i.submit_time();
  r.eligible = shownEligibleTime(i);
  // A run that ended REQUEUED keeps its start (sacct -D), as the reference's.
  const bool ran = holdsResources(i.state()) || isFinal(i.state()) || i.state() == v1::JOB_REQUEUED;
  r.start = ran ? i.start_time() : 0;
  r.end = isFinal(i.state()) || i.state() == v1::JOB_REQUEUED ? i.end_time() : 0;
  r.time_limit_min = i.time_limit_min() < 0 ? acct::kTimeLimitUnlimited : i.time_limit_min();
  r.state = toAcct(i.state());
  // As the reference's: the state it is being killed into (CANCELLED, PREEMPTED, REQUEUED...),
  // ended when that was decided, while its processes are killed. A requeued job cancelled
  // meanwhile is CANCELLED for squeue, but this run of it stays REQUEUED.
  if (const auto into = killedInto(job)) {
    const bool requeued = *into == v1::JOB_PENDING || job.pending_end == PendingEnd::kRequeueCancel;
    r.state = requeued ? acct::JobState::kRequeued : toAcct(*into);
    r.end = i.end_time();
  }
  if (!i.cancelled_by().empty()) r.cancelled_by = static_cast<std::uint32_t>(std::stoul(i.cancelled_by()));
  r.reason = accountingReason(i);
  r.exit = {static_cast<std::int32_t>(i.exit_code()), static_cast<std::int32_t>(i.exit_signal())};
  // Slurm's accounting keeps 0:0 for a job that ran out of time; its batch step has the signal
  // (golden 114), the job record in scontrol too (golden 108).
  // A cancelled job likewise: the reference's scontrol showed 0:15 for a running job scancel
  // ended (its batch step's), its sacct job row 0:0.
  if (i.state() == v1::JOB_TIMEOUT || i.state() == v1::JOB_CANCELLED) r.exit = {0, 0};
  // A job past its --deadline: scontrol's 0:1, the reference's sacct 1:0 (endPastDeadline).
  if (i.state() == v1::JOB_DEADLINE) r.exit = {1, 0};
  // A preempted job: the script's own exit code, not the signal that ended it (the
  // reference's 3:0 for a script that exited 3 on SIGTERM, 0:0 for one SIGKILL ended).
  if (i.state() == v1::JOB_PREEMPTED) r.exit = {static_cast<std::int32_t>(i.exit_code()), 0};
  r.derived_exit = {static_cast<std::int32_t>(i.derived_exit_code()), static_cast<std::int32_t>(i.derived_exit_signal())};
  r.nnodes = i.allocation_size() > 0 ? static_cast<std::uint32_t>(i.allocation_size()) : i.num_nodes();
  r.node_list = i.nodes();
  r.ncpus = i.num_cpus();
  r.req_cpus = i.num_cpus();
  r.req_nodes = i.num_nodes();
  r.req_mem_mb = i.spec().mem_set() ? i.spec().mem_per_node_mb() : i.spec().mem_per_cpu_mb();
  r.req_mem_per_cpu = !i.spec().mem_set() && i.spec().mem_per_cpu_mb() > 0;
  r.req_tres = i.req_tres();
  r.alloc_tres = i.alloc_tres();
  r.work_dir = i.work_dir();
  r.submit_line = i.spec().submit_line();
  r.comment = i.spec().comment();
  r.system_comment = i.state_reason_detail();
  r.constraints = i.features();
  r.flags = recordedFlags(i.started_by());
  r.restart_count = i.restart_count();
  // A held job's priority is 0, as the reference's showed it in scontrol and recorded it (its
  // held job, cancelled: sacct Priority 0); a release and start record the real one.
  const bool held = i.held_user() || i.held_admin();
  r.priority = held ? 0 : static_cast<std::uint32_t>(std::max<std::int64_t>(0, i.priority()));
  return r;
}

void JobManager::putRecord(acct::JobRecord r) {
  // A later record of the same job replaces an earlier one in the batch.
  auto [slot, fresh] = accounting_index_.try_emplace(r.job_id, accounting_.jobs.size());
  if (fresh) accounting_.jobs.push_back(std::move(r));
  else accounting_.jobs[slot->second] = std::move(r);
}

void JobManager::recordBatchStep(const Job& job, const v1::StepEventRequest* event) {
  const v1::JobInfo& i = job.info;
  acct::StepRecord s;
  s.job_id = i.job_id();
  s.step_id = acct::kBatchStep;
  s.run = i.restart_count();
  s.name = "batch";
  s.start = i.start_time();
  s.nnodes = 1;
  s.ntasks = 1;
  s.node_list = i.batch_host();
  if (i.allocation_size() > 0) {
    const auto& a = i.allocation(0);
    s.ncpus = a.cpus();
    s.alloc_tres = stepTres(a.cpus(), static_cast<std::int64_t>(a.memory_mb()), 1,
                            a.gpu_indices_size());
  }
  // As Slurm's batch step (golden 117): no ReqTRES, CPU frequencies 0 (an srun step's are
  // Unknown).
  s.req_cpu_freq_min = s.req_cpu_freq_max = s.req_cpu_freq_gov = 0;
  s.layout = "Unknown";
  if (!event) {
    s.state = acct::JobState::kRunning;
  } else {
    s.end = event->end_time() > 0 ? event->end_time() : clock_.now();
    if (event->start_time() > 0) s.start = event->start_time();
    s.exit = {event->exit_code(), event->exit_signal()};
    if (event->kind() == v1::StepEventRequest::FAILED_TO_START) {
      s.state = acct::JobState::kCancelled;
      s.exit = {0, kLaunchFailureSignal};
    } else if (event->out_of_memory()) {
      s.state = acct::JobState::kOutOfMemory;
    } else if (event->exit_signal() != 0) {
      s.state = acct::JobState::kCancelled;
    } else if (event->exit_code() != 0) {
      s.state = acct::JobState::kFailed;
    } else {
      s.state = acct::JobState::kCompleted;
    }
    s.usage.user_cpu_usec = static_cast<std::int64_t>(event->user_cpu_ms()) * 1000;
    s.usage.system_cpu_usec = static_cast<std::int64_t>(event->system_cpu_ms()) * 1000;
    if (event->max_rss_kb() > 0) {
      s.usage.max_rss_kb = static_cast<std::int64_t>(event->max_rss_kb());
      s.usage.max_rss_node = event->node();
      s.usage.max_rss_task = 0;
    }
    if (event->ave_rss_kb() > 0) s.usage.ave_rss_kb = static_cast<std::int64_t>(event->ave_rss_kb());
    acct::addTaskUsage(taskUsageFromWire(event->tasks()), &s.usage);
  }
  stageStepRecord(std::move(s));
}

void JobManager::stageStepRecord(acct::StepRecord s) {
  auto& steps = accounting_.steps;
  auto same = std::find_if(steps.begin(), steps.end(), [&](const acct::StepRecord& o) {
    return o.job_id == s.job_id && o.run == s.run && o.step_id == s.step_id;
  });
  if (same != steps.end()) *same = std::move(s);
  else steps.push_back(std::move(s));
}

// The tasks of an array that never started, as one record with the array's id: its pending
// tasks while there are any (JobID `A_[2-9%2]`), else, once the last of them ended without
// starting (cancelled), the whole array's expression as Slurm prints it (golden 116:
// `29_[0-9%2]` after tasks 0 and 1 ran and 2-9 were cancelled). None once the last task took
// the array's id: that task's own record is A's.
void JobManager::recordRemainder(JobId array_id) {
  if (jobs_.contains(array_id)) return;
  auto arr = arrays_.find(array_id);
  if (arr == arrays_.end()) return;
  const Job* pending = nullptr;
  const Job* ended = nullptr;
  std::vector<std::uint32_t> pending_ids;
  for (JobId key : arr->second) {
    if (!isTaskKey(key)) continue;
    const Job& t = jobs_.at(key);
    if (t.state() == v1::JOB_PENDING) {
      pending_ids.push_back(static_cast<std::uint32_t>(t.info.array_task_id()));
      if (!pending) pending = &t;
    } else if (!ended || t.info.end_time() >= ended->info.end_time()) {
      ended = &t;
    }
  }
  const Job* base = pending ? pending : ended;
  if (!base) return;
  acct::JobRecord r = jobRecord(*base);
  r.job_id = array_id;
  r.array_task_id.reset();
  std::string expr;
  if (pending) {
    expr = jobspec::compressIds(pending_ids);
  } else if (auto spec = jobspec::parseArraySpec(base->info.spec().array())) {
    expr = jobspec::compressIds(spec->taskIds());
  }
  if (base->info.array_max_running() > 0) {
    expr += "%" + std::to_string(base->info.array_max_running());
  }
  r.array_task_str = std::move(expr);
  putRecord(std::move(r));
}

acct::AcctBatch JobManager::takeAccounting() {
  for (JobId array_id : dirty_remainders_) recordRemainder(array_id);
  dirty_remainders_.clear();
  acct::AcctBatch out = std::move(accounting_);
  accounting_ = {};
  accounting_index_.clear();
  return out;
}

std::vector<SignalAction> JobManager::takeSignals() {
  std::vector<SignalAction> out = std::move(signals_);
  signals_.clear();
  return out;
}

bool JobManager::takeScheduleRequest() {
  bool was = schedule_requested_;
  schedule_requested_ = false;
  return was;
}

Status JobManager::recover() {
  auto loaded = store_.load(clock_.now() - kMinJobAgeS);
  if (!loaded) return makeError(loaded.error());
  jobs_.clear();
  by_key_.clear();
  live_.clear();
  arrays_.clear();
  preempted_for_.clear();
  with_dependencies_.clear();
  dependents_.clear();
  singletons_.clear();
  dependency_wakes_.clear();
  dependency_due_.clear();
  unsplit_pending_.clear();
  renamed_.clear();
  for (Job& job : loaded->jobs) {
    if (job.unsplit() && job.state() == v1::JOB_PENDING) {
      ++unsplit_pending_[job.info.array_job_id()];
    }
    job.request = requestOf(job.info);
    job.request.dependency =
        job.dependency ? sched::DependencyState::Pending : sched::DependencyState::Satisfied;
    auto it = jobs_.emplace(job.id(), std::move(job)).first;
    index(it->second);
    if (preempting(it->second)) preempted_for_[it->first] = 0;  // its preemptor is not kept
  }
  reevaluateDependencies();
  changed();
  applied_through_ = highestId();  // recovered jobs were submitted before this run
  return okStatus();
}

void JobManager::purgeFinished() {
  const std::int64_t cutoff = clock_.now() - kMinJobAgeS;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const Job& job = it->second;
    if (!isFinal(job.state()) || job.info.end_time() >= cutoff) {
      ++it;
      continue;
    }
    if (job.isArrayTask()) {
      auto arr = arrays_.find(job.info.array_job_id());
      if (arr != arrays_.end()) {
        std::erase(arr->second, job.id());
        if (arr->second.empty()) {
          unsplit_pending_.erase(arr->first);
          store_.stageArrayPayloadDelete(arr->first);
          arrays_.erase(arr);
        }
      }
    }
    with_dependencies_.erase(job.id());
    unindexDependents(job);
    dependentsDue(job);  // an unknown target counts as met (dependency.cpp)
    store_.stageDelete(job.id());
    live_.forget(it->second);
    by_key_.erase(it->first);
    it = jobs_.erase(it);
  }
  if (!dependency_due_.empty()) changed();  // the next pass evaluates them
}

void JobManager::finish(Job& job, v1::JobState state, std::int32_t code, std::int32_t signal,
                        const v1::StepEventRequest* event) {
  const std::int64_t now = clock_.now();
  bool ran = holdsResources(job.state());
  if (job.unsplit() && job.state() == v1::JOB_PENDING) {
    auto left = unsplit_pending_.find(job.info.array_job_id());
    if (left != unsplit_pending_.end() && left->second > 0) --left->second;
  }
  // A job being killed ended when that was decided (scancel, preemption, its reservation's
  // end), not when its step reported.
  const bool ended_earlier = beingKilled(job);
  const std::int64_t end = ended_earlier && job.info.end_time() <= now ? job.info.end_time() : now;
  job.info.set_state(state);
  live_.sync(job);
  clearDependencyWake(job);  // ended while it waited
  if (state == v1::JOB_COMPLETED) {
    ++lifecycle_.completed;
  } else if (state == v1::JOB_CANCELLED) {
    ++lifecycle_.canceled;
  } else {
    ++lifecycle_.failed;  // as Slurm's sdiag: every other end counts as failed
  }
  job.info.set_exit_code(static_cast<std::uint32_t>(code));
  job.info.set_exit_signal(static_cast<std::uint32_t>(signal));
  job.info.set_end_time(end);
  if (!ran) job.info.set_start_time(now);  // Slurm shows StartTime=EndTime for never-run jobs
  job.info.set_run_time_s(ran ? std::max<std::int64_t>(0, end - job.info.start_time()) : 0);
  job.pending_end = PendingEnd::kNone;
  // steps.cpp: still-running steps are killed, recorded CANCELLED; their supervisors say why
  // when the job was cancelled or ran out of time.
  endSteps(job, state == v1::JOB_CANCELLED   ? v1::SignalStepRequest::CANCELLED
                : state == v1::JOB_TIMEOUT   ? v1::SignalStepRequest::TIME_LIMIT
                : state == v1::JOB_PREEMPTED ? v1::SignalStepRequest::PREEMPTED
                                             : v1::SignalStepRequest::QUIET);
  stage(job);
  record(job);
  if (event) recordBatchStep(job, event);
  evaluateDependentsOf(job);
  changed();
}

void JobManager::requeue(Job& job, bool hold) {
  const std::int64_t now = clock_.now();
  const bool preempted = preempting(job);
  // Its end was set when the preemption (or the requeue) was decided, or its GraceTime's.
  const bool ended_earlier = preempted || beingKilled(job);
  endSteps(job, preempted ? v1::SignalStepRequest::PREEMPTED : v1::SignalStepRequest::REQUEUED);
  // The run that ended keeps its own record (sacct -D): REQUEUED, or PREEMPTED ended at its
  // preemption, as the reference's; the job's record moves on to the next run.
  job.info.set_state(preempted ? v1::JOB_PREEMPTED : v1::JOB_REQUEUED);
  job.info.set_end_time(ended_earlier ? std::min(job.info.end_time(), now) : now);
  record(job);
  if (auto slot = accounting_index_.find(job.id()); slot != accounting_index_.end()) {
    accounting_.runs.push_back(accounting_.jobs[slot->second]);
  }
  job.info.set_state(v1::JOB_PENDING);
  live_.sync(job);  // a finished job requeued counts again
  job.info.set_preempt_time(0);
  job.info.set_preempt_kill_time(0);
  // Slurm's requeued job is submitted anew: its SubmitTime (and the next run's sacct Submit)
  // is the requeue's.
  job.info.set_submit_time(now);
  job.info.set_restart_count(job.info.restart_count() + 1);
  job.info.set_start_time(0);
  job.info.set_end_time(0);
  job.info.set_eligible_time(0);
  job.info.set_exit_code(0);
  job.info.set_exit_signal(0);
  job.info.clear_allocation();
  job.info.set_nodes("");
  job.info.set_batch_host("");
  job.info.set_alloc_tres("");
  job.info.set_cancelled_by("");
  job.info.set_run_time_s(0);
  job.info.clear_started_by();  // Slurm's CLEAR_SCHEDULING: the next start sets it again
  // Each run numbers its steps from 0, as the reference's (its second run had its own 63.0);
  // messages about a step name its run (common/step_run.h).
  job.info.set_next_step_id(0);
  job.info.clear_steps();  // kept by endSteps() when the job had ended (NODE_FAIL): of the old run
  // A job of several partitions waits for any of them again.
  if (const std::string listed = partitionList(job.info.spec().partition()); !listed.empty()) {
    job.info.set_partition(listed);
  }
  if (hold) {
    job.info.set_held_user(true);
    job.info.set_reason_description(std::string(kRequeuedHeld));
  } else {
    job.info.clear_reason_description();
  }
  // Slurm's requeued job waits cred_expire + 1 s (slurm.conf(5) AuthInfo) before it may start
  // again, held or not; a later --begin of its own stands.
  if (const std::uint32_t wait = config_.jobs.requeue_wait_s; wait > 0) {
    v1::JobSpec& spec = *job.info.mutable_spec();
    spec.set_begin_time(std::max<std::int64_t>(spec.begin_time(), now + wait + 1));
  }
  job.pending_end = PendingEnd::kNone;
  expandJobPaths(job.info, "");
  rebuildRequest(job);
  job.info.set_reason(std::string(sched::reasonName(initialReason(job))));
  refreshEligibility(job, now);
  stage(job);
  record(job);
  reevaluateDependenciesOf({job.id()});  // its own, pending again
  evaluateDependentsOf(job);
  changed();
}

void JobManager::splitStarted(Job& job) {
  const JobId from = job.id();
  unindexDependents(job);  // indexed again under its new id below
  const JobId array_id = job.info.array_job_id();
  auto left = unsplit_pending_.find(array_id);
  const bool last = left == unsplit_pending_.end() || left->second <= 1;
  if (left != unsplit_pending_.end() && left->second > 0) --left->second;
  const JobId to = last ? array_id : store_.allocateIds(1);
  job.info.set_job_id(to);
  job.key = 0;
  auto node = jobs_.extract(from);
  node.key() = to;
  jobs_.insert(std::move(node));  // the same Job object: `job` stays valid
  by_key_.erase(from);
  by_key_[to] = &job;
  auto& tasks = arrays_[array_id];
  std::erase(tasks, from);
  tasks.insert(std::lower_bound(tasks.begin(), tasks.end(), to), to);
  if (with_dependencies_.erase(from)) with_dependencies_.insert(to);
  indexDependents(job);
  // Its time-bound entries follow it to its new id (enforceTimeBounds).
  allocation_ends_.set(from, 0);
  deadline_expiries_.set(from, 0);
  time_bounds_touched_.push_back(to);
  store_.stageRename(from, job);
  live_.sync(job);  // its place among the user's jobs of its name is its new id
  renamed_.emplace_back(from, to);
  dirty_remainders_.insert(array_id);
}

std::vector<std::string> nodesOf(const Job& job) { return allocatedNodes(job.info); }

JobManager::StateCounts JobManager::stateCounts() const {
  StateCounts counts;
  for (const auto& [id, job] : jobs_) {
    if (job.state() == v1::JOB_PENDING) ++counts.pending;
    else if (job.state() == v1::JOB_RUNNING) ++counts.running;
  }
  return counts;
}

}  // namespace drover::jobs
