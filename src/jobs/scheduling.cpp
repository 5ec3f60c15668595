// The glue between the job table and the pure scheduler: a Snapshot out, a Plan back in.
#include <algorithm>
#include <optional>
#include <string_view>

#include "drover/hostlist.h"
#include "jobs/deadline.h"
#include "jobs/job_manager.h"
#include "jobs/pending_description.h"
#include "jobs/qos_limits.h"
#include "jobs/request.h"
#include "jobs/scheduling_state.h"
#include "jobspec/array_spec.h"
#include "launch/job_env.h"
#include "launch/request_env.h"

namespace drover::jobs {

namespace {

sched::Policy toPolicy(config::BackfillPolicy p) {
  switch (p) {
    case config::BackfillPolicy::kFcfs: return sched::Policy::Fcfs;
    case config::BackfillPolicy::kConservative: return sched::Policy::Conservative;
    case config::BackfillPolicy::kEasy: break;
  }
  return sched::Policy::Easy;
}

constexpr const char* kArrayTaskLimit = "JobArrayTaskLimit";

// Tasks per node: the scheduler's layout where it made one (sched/task_layout.h: -n over
// several nodes, the first nodes filled); else --ntasks-per-node, or one task at a time over
// the nodes in turn while their CPUs hold them at --cpus-per-task (what is left after that in
// turn too). So whole nodes split -n evenly, earlier nodes taking the remainder, as Slurm
// does (`-N 2 -n 5 --exclusive`: 3,2; `-N 3 -n 4 --exclusive`: 2,1,1). Without -n the job has
// one task (or --ntasks-per-node) per allocated node, however many a -N range gave it.
std::vector<std::uint32_t> distributeTasks(const sched::JobRequest& r,
                                           const std::vector<sched::NodeAllocation>& nodes) {
  std::vector<std::uint32_t> tasks(nodes.size(), 0);
  if (nodes.empty()) return tasks;
  if (std::all_of(nodes.begin(), nodes.end(), [](const auto& a) { return a.tasks > 0; })) {
    for (std::size_t i = 0; i < nodes.size(); ++i) tasks[i] = static_cast<std::uint32_t>(nodes[i].tasks);
    return tasks;
  }
  int left = r.ntasksGiven ? r.ntasks
                           : std::max(1, r.ntasksPerNode) * static_cast<int>(nodes.size());
  std::vector<int> room(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    room[i] = r.ntasksPerNode > 0 ? r.ntasksPerNode
                                  : std::max(1, nodes[i].cpus / std::max(1, r.cpusPerTask));
  }
  for (bool placed = true; left > 0 && placed;) {
    placed = false;
    for (std::size_t i = 0; i < nodes.size() && left > 0; ++i) {
      if (static_cast<int>(tasks[i]) >= room[i]) continue;
      ++tasks[i];
      --left;
      placed = true;
    }
  }
  for (std::size_t i = 0; left > 0; i = (i + 1) % nodes.size(), --left) ++tasks[i];
  return tasks;
}

// Slurm's scheduling job flags: backfill for a start ahead of a higher-ranked job that waits,
// else submit for a job (an array task: its array) submitted after `applied_through`, the last
// applied plan (Slurm's start at submission takes only a job no other outranks), else the main
// scheduler's.
v1::JobStartedBy startedBy(bool backfill, const v1::JobInfo& job, JobId applied_through) {
  if (backfill) return v1::STARTED_ON_BACKFILL;
  // A job submitted held starts after its release, however soon that came: the main
  // scheduler's, as the reference's (and not a race with the pass its submission asked for).
  if (job.spec().hold()) return v1::STARTED_ON_SCHEDULE;
  const JobId submitted_as = job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
  return submitted_as > applied_through ? v1::STARTED_ON_SUBMIT : v1::STARTED_ON_SCHEDULE;
}

}  // namespace

sched::SchedulerParams JobManager::schedulerParams() const {
  sched::SchedulerParams p;
  p.policy = toPolicy(config_.scheduler.policy);
  p.estimateDepth = static_cast<int>(config_.scheduler.estimate_depth);
  return p;
}

sched::Snapshot JobManager::buildSnapshot(const std::vector<NodeView>& nodes) {
  const std::int64_t now = clock_.now();
  reevaluateDueDependencies();
  sched::Snapshot snap;
  snap.partitions = partitions_;
  snap.reservations = reservations_.forSnapshot(now);
  if (nodes.empty() && !last_nodes_.empty()) {
    snap.nodes = last_nodes_;
  } else if (nodes.empty()) {
    snap.nodes = config_nodes_;
  } else {
    snap.nodes = schedNodes(nodes);
    setLastNodes(snap.nodes);
  }

  // Array throttles (%N): running tasks count against the limit; the lowest pending task ids
  // fill what is left, the rest wait with JobArrayTaskLimit.
  std::map<JobId, int> array_slots;
  for (const auto& [array_id, tasks] : arrays_) {
    const Job& first = jobs_.at(tasks.front());
    std::uint32_t limit = first.info.array_max_running();
    if (limit == 0) continue;
    int running = 0;
    for (JobId t : tasks) running += holdsResources(jobs_.at(t).state()) ? 1 : 0;
    array_slots[array_id] = std::max(0, static_cast<int>(limit) - running);
  }

  // QOS per-user limits: the pending jobs over them wait with their reason, out of the queue.
  const QosLimits limits(config_);
  const std::map<JobId, std::string_view> qos_withheld =
      limits.withheld(qosLimitJobs(limits, nullptr));

  std::vector<JobId> kept_out;  // pending but not the scheduler's: priorities computed here
  for (auto& [id, job] : jobs_) {
    if (holdsResources(job.state())) {
      snap.running.push_back(runningOf(job));
      continue;
    }
    if (job.state() != v1::JOB_PENDING) continue;
    refreshEligibility(job, now);
    if (auto w = qos_withheld.find(id); w != qos_withheld.end()) {
      job.info.set_reason(std::string(w->second));
      job.info.set_start_time(0);
      kept_out.push_back(id);
      continue;
    }
    // Held, waiting on a dependency or a begin time: no pass could start it or give it an
    // estimate, so no pass looks at it (a queue of thousands of dependents costs passes
    // nothing); its touch brings it in once the wait is over (syncScheduler).
    if (const sched::Reason why = waitingReason(job, now); why != sched::Reason::None) {
      writeWaitingReason(job, why, now);
      kept_out.push_back(id);
      continue;
    }
    if (job.isArrayTask()) {
      auto slot = array_slots.find(job.info.array_job_id());
      if (slot != array_slots.end() && initialReason(job) == sched::Reason::None) {
        if (slot->second == 0) {
          job.info.set_reason(kArrayTaskLimit);
          job.info.set_start_time(0);
          kept_out.push_back(id);
          continue;
        }
        --slot->second;
      }
    }
    sched::Job sj;
    sj.id = id;
    sj.request = job.request;
    snap.pending.push_back(std::move(sj));
  }

  assignPriorities(snap, now, kept_out);
  return snap;
}

std::vector<Launch> JobManager::applyPlan(const sched::Plan& plan) {
  return applyPlanEntries(plan, nullptr, /*skip_unchanged=*/false);
}

void JobManager::claimNodesAhead(const sched::Plan& plan, std::size_t index,
                                 std::size_t& scanned,
                                 std::unordered_set<std::string>& claimed) const {
  for (; scanned < index; ++scanned) {
    const sched::PendingInfo& ahead = plan.pending[scanned];
    if (ahead.reason != sched::Reason::Resources && ahead.reason != sched::Reason::Priority) continue;
    const Job* other = find(ahead.id);
    if (!other || other->state() != v1::JOB_PENDING) continue;
    claimed.insert(other->request.requiredNodes.begin(), other->request.requiredNodes.end());
  }
}

void JobManager::writePending(Job& job, const sched::PendingInfo& p, std::int64_t now,
                              const std::vector<std::string>& claimed_ahead) {
  ++apply_stats_.examined;
  v1::JobInfo& i = job.info;
  bool wrote = false;
  // A MAINT reservation over its nodes: Slurm's code ReqNodeNotAvail, with its own words; the
  // same code for -w nodes a job ahead waits for.
  std::optional<std::string> resv;
  if (reservations_.size() > 0) resv = reservations_.pendingReason(job.request, p.reason, now);
  if (!resv && !claimed_ahead.empty())
    resv = "ReqNodeNotAvail, UnavailableNodes:" + hostlist::compress(claimed_ahead);
  const sched::Reason code = resv ? sched::Reason::ReqNodeNotAvail : p.reason;
  const std::string_view name = sched::reasonName(code);
  if (i.reason() != name) {
    i.set_reason(std::string(name));
    // sacct shows a pending job's new wait at once, as the reference's (ReqNodeNotAvail).
    if (noteWaitReason(i)) record(job);
    wrote = true;
  }
  // A hold keeps its own description (a requeue's "job requeued in held state").
  if (code != sched::Reason::JobHeldUser && code != sched::Reason::JobHeldAdmin) {
    std::string description =
        resv ? std::move(*resv) : pendingDescription(availability_, job.request, code);
    if (i.reason_description() != description) {
      i.set_reason_description(std::move(description));
      wrote = true;
    }
  }
  // squeue --start: a reservation's start, else the scheduler's non-binding estimate; a job
  // whose --begin is still ahead expects to start no earlier than that, held or not (the
  // reference's held `--begin=now+3600` job showed that time as StartTime and in %S).
  std::int64_t start = p.shownStart();
  if (p.reason == sched::Reason::BeginTime || job.request.beginTime > now)
    start = std::max(start, job.request.beginTime);
  if (i.start_time() != start) {
    i.set_start_time(start);
    wrote = true;
  }
  // SchedNodeList / squeue's SCHEDNODES: the nodes its reservation or estimate found.
  if (p.plannedNodes.empty() ? !i.sched_nodes().empty()
                             : i.sched_nodes() != hostlist::compress(p.plannedNodes)) {
    i.set_sched_nodes(p.plannedNodes.empty() ? std::string() : hostlist::compress(p.plannedNodes));
    wrote = true;
  }
  if (wrote) ++apply_stats_.written;
}

void JobManager::setLastNodes(const std::vector<sched::Node>& nodes) {
  last_nodes_ = nodes;
  // Reason descriptions read the nodes (pendingDescription): every entry is written again.
  if (availability_.reset(last_nodes_) && scheduling_) scheduling_->applied.clear();
}

void JobManager::writeWaitingReason(Job& job, sched::Reason why, std::int64_t now) {
  sched::PendingInfo entry;
  entry.id = job.id();
  entry.reason = why;
  writePending(job, entry, now);
}

std::vector<Launch> JobManager::applyPlanEntries(const sched::Plan& plan,
                                                 const std::vector<JobId>* only,
                                                 bool skip_unchanged) {
  const std::int64_t now = clock_.now();
  std::vector<Launch> launches;
  for (const sched::Start& start : plan.starts) {
    Job* job = mutableJob(start.id);
    // A plan made on an older snapshot may name a job that was cancelled meanwhile.
    if (!job || job->state() != v1::JOB_PENDING || start.allocation.nodes.empty()) continue;
    v1::JobInfo& i = job->info;
    // Past its --deadline since the last commit looked (enforceTimeBounds): it does not start.
    if (auto by = latestStart(i); by && now > *by) {
      endPastDeadline(*job);
      continue;
    }
    std::vector<std::uint32_t> tasks = distributeTasks(job->request, start.allocation.nodes);
    i.clear_allocation();
    std::vector<std::string> names;
    std::uint32_t cpus = 0;
    for (std::size_t k = 0; k < start.allocation.nodes.size(); ++k) {
      const auto& a = start.allocation.nodes[k];
      v1::NodeAllocation* na = i.add_allocation();
      na->set_node(a.node);
      na->set_cpus(static_cast<std::uint32_t>(a.cpus));
      na->set_memory_mb(static_cast<std::uint64_t>(a.memoryMb));
      for (int g : a.gpus) na->add_gpu_indices(static_cast<std::uint32_t>(g));
      na->set_tasks(tasks[k]);
      names.push_back(a.node);
      cpus += static_cast<std::uint32_t>(a.cpus);
    }
    if (!start.partition.empty()) i.set_partition(start.partition);  // one of several listed
    // Started on its preferred features: they become its features, as the reference showed
    // (Features=fast, no Prefer line, sacct Constraints fast).
    if (start.preferred) {
      i.set_features(i.spec().prefer());
      i.mutable_spec()->set_constraint(i.spec().prefer());
      i.mutable_spec()->clear_prefer();
    }
    i.set_state(v1::JOB_RUNNING);
    i.set_started_by(startedBy(start.backfill, i, applied_through_));
    ++lifecycle_.started;
    i.set_reason("None");
    i.clear_sched_nodes();
    i.set_start_time(now);
    i.set_time_limit_min(limitWithinDeadline(i, now));
    i.set_end_time(i.time_limit_min() < 0 ? start.endTime : now + i.time_limit_min() * 60);
    i.set_nodes(hostlist::compress(names));
    i.set_num_nodes(static_cast<std::uint32_t>(names.size()));
    i.set_num_cpus(cpus);
    std::uint32_t ntasks = 0;
    for (std::uint32_t t : tasks) ntasks += t;
    i.set_num_tasks(ntasks);
    i.set_batch_host(names.front());
    i.set_alloc_tres(allocTres(i));
    if (i.eligible_time() == 0) i.set_eligible_time(now);
    // An array task takes its own job id now (its %j, SLURM_JOB_ID, its accounting record).
    if (job->unsplit()) splitStarted(*job);
    dependentsDue(*job);  // `after` and singleton items on it may be met now
    expandJobPaths(i, names.front());

    if (!i.batch()) {
      // An interactive allocation (srun/salloc): nothing to launch; it runs until released.
      stage(*job);
      record(*job);
      continue;
    }
    auto request = launchRequest(*job);
    if (!request) {
      i.set_reason(kLaunchFailure);
      i.set_state_reason_detail(request.error());
      finish(*job, v1::JOB_FAILED, 1, 0, nullptr);
      continue;
    }
    stage(*job);
    record(*job);
    recordBatchStep(*job, nullptr);
    launches.push_back(Launch{job->id(), names.front(), std::move(*request)});
  }
  // Every entry, or (after incremental passes) only those of the jobs in `only`: a scan of the
  // plan for a handful of ids, with no lookup in the job table for the rest.
  std::vector<JobId> wanted;
  if (only) {
    wanted = *only;
    std::sort(wanted.begin(), wanted.end());
  }
  const JobId lowest = wanted.empty() ? 0 : wanted.front();
  const JobId highest = wanted.empty() ? 0 : wanted.back();
  // A MAINT reservation's reason (ReservationBook::pendingReason) moves with the clock alone:
  // then every entry is written, none remembered.
  SchedulingState& st = schedState();
  const bool remember = reservations_.size() == 0;
  if (!remember) st.applied.clear();
  if (!only || !wanted.empty()) {
    std::size_t scanned = 0;                  // claimNodesAhead's progress through the plan
    std::unordered_set<std::string> claimed;
    for (std::size_t index = 0; index < plan.pending.size(); ++index) {
      const sched::PendingInfo& p = plan.pending[index];
      if (only && (p.id < lowest || p.id > highest ||
                   !std::binary_search(wanted.begin(), wanted.end(), p.id))) {
        continue;
      }
      auto last = remember && skip_unchanged ? st.applied.find(p.id) : st.applied.end();
      if (last != st.applied.end() && last->second.same(p)) {
        ++apply_stats_.unchanged;
        continue;
      }
      Job* job = mutableJob(p.id);
      if (!job || job->state() != v1::JOB_PENDING) continue;
      std::vector<std::string> claimed_ahead;
      if (p.reason == sched::Reason::Priority && !job->request.requiredNodes.empty()) {
        claimNodesAhead(plan, index, scanned, claimed);
        for (const std::string& node : job->request.requiredNodes)
          if (claimed.count(node) && std::find(claimed_ahead.begin(), claimed_ahead.end(), node) ==
                                         claimed_ahead.end())
            claimed_ahead.push_back(node);
      }
      writePending(*job, p, now, claimed_ahead);
      if (remember) {
        st.applied[p.id] = AppliedEntry{p.reason, p.shownStart(), p.plannedNodes,
                                        !job->request.requiredNodes.empty()};
      }
    }
  }
  if (!plan.starts.empty() && reevaluateDueDependencies()) released_by_starts_ = true;
  applied_through_ = highestId();
  return launches;
}

std::vector<sched::Node> schedNodes(const std::vector<NodeView>& views) {
  std::vector<sched::Node> nodes;
  nodes.reserve(views.size());
  int index = 0;
  for (const NodeView& v : views) {
    sched::Node n;
    n.name = v.name;
    n.index = index++;
    n.cpus = static_cast<int>(v.cpus);
    n.memoryMb = static_cast<std::int64_t>(v.memory_mb);
    n.gpuTypes = v.gpu_types;
    n.features = v.features;
    n.weight = static_cast<int>(v.weight);
    n.partitions = v.partitions;
    n.usable = v.usable;
    nodes.push_back(std::move(n));
  }
  return nodes;
}
// The job's environment context as seen from allocation node `node_index`.
launch::JobEnvContext jobEnvContext(const Job& job, const config::ClusterConfig& config,
                                    std::size_t node_index) {
  const v1::JobInfo& i = job.info;
  const v1::JobSpec& s = i.spec();
  launch::JobEnvContext ctx;
  ctx.job_id = i.job_id();
  ctx.job_name = i.name();
  ctx.account = i.account();
  ctx.partition = i.partition();
  ctx.qos = i.qos();
  ctx.reservation = s.reservation();
  ctx.user = i.user();
  ctx.uid = i.uid();
  ctx.gid = i.gid();
  ctx.cluster_name = config.cluster_name;
  ctx.conf_path = config.source_path;
  ctx.controller_host = config.controller.host;
  ctx.controller_port = config.controller.port;
  ctx.submit_dir = i.work_dir();
  ctx.submit_host = s.submit_host();
  for (const auto& a : i.allocation()) {
    ctx.nodes.push_back(a.node());
    ctx.cpus_per_node.push_back(a.cpus());
    ctx.tasks_per_node.push_back(a.tasks());
  }
  ctx.node_index = node_index;
  if (node_index < static_cast<std::size_t>(i.allocation_size())) {
    const auto& a = i.allocation(static_cast<int>(node_index));
    ctx.gpu_indices.assign(a.gpu_indices().begin(), a.gpu_indices().end());
  }
  launch::addRequestedOptions(s, ctx);
  if (job.isArrayTask()) {
    launch::ArrayContext a;
    a.array_job_id = i.array_job_id();
    a.task_id = static_cast<std::uint32_t>(i.array_task_id());
    if (auto spec = jobspec::parseArraySpec(s.array())) {
      auto ids = spec->taskIds();
      a.task_count = static_cast<std::uint32_t>(ids.size());
      a.task_min = ids.empty() ? 0 : ids.front();
      a.task_max = ids.empty() ? 0 : ids.back();
      a.task_step = spec->ranges.size() == 1 ? spec->ranges.front().step : 1;
    }
    ctx.array = a;
  }
  ctx.restart_count = i.restart_count();
  ctx.dependency = i.dependency();
  return ctx;
}

Result<v1::LaunchStepRequest> JobManager::launchRequest(const Job& job) {
  auto payload = store_.payload(job.id(), job.info.array_job_id());
  if (!payload) return makeError(payload.error());
  const v1::JobInfo& i = job.info;
  const v1::JobSpec& s = i.spec();

  const launch::JobEnvContext ctx = jobEnvContext(job, config_, 0);

  v1::LaunchStepRequest r;
  nameStep(r.mutable_step(), job, acct::kBatchStep);
  r.set_uid(i.uid());
  r.set_gid(i.gid());
  r.set_user(i.user());
  r.set_work_dir(i.work_dir());
  // The user's exported environment (what --export selected), then Slurm's variables over it.
  launch::Environment env = payload->environment;
  for (auto& [k, v] : launch::batchJobVariables(ctx)) env[k] = v;
  // The batch job's alone (sbatch(1) OUTPUT ENVIRONMENT; the reference's srun tasks had none).
  if (!s.gpu_freq().empty()) env["SLURM_GPU_FREQ"] = s.gpu_freq();
  r.mutable_environment()->insert(env.begin(), env.end());
  r.set_script(payload->script);
  // `sbatch script.sh a b`: the script's own arguments, after its path (the supervisor's argv[0]).
  for (const auto& arg : s.script_args()) r.add_argv(arg);
  r.set_std_out(i.std_out());
  r.set_std_err(i.std_err());
  r.set_std_in(i.std_in());
  r.set_open_append(s.open_append());
  r.set_time_limit_s(i.time_limit_min() < 0 ? 0 : i.time_limit_min() * 60);
  r.set_kill_wait_s(config_.timeouts.kill_wait_s);
  r.set_signal_number(s.signal_number());
  r.set_signal_seconds(s.signal_seconds());
  r.set_signal_batch_only(s.signal_batch_only());
  if (i.allocation_size() > 0) *r.mutable_allocation() = i.allocation(0);
  r.set_node_id(0);
  r.set_first_task(0);
  r.set_num_tasks(i.allocation_size() > 0 ? i.allocation(0).tasks() : 1);
  r.set_controller(config_.controller.host + ":" + std::to_string(config_.controller.port));
  return r;
}

}  // namespace drover::jobs
