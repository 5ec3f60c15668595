// Submission: Slurm's checks and defaults, array expansion, staging.
#include <algorithm>

#include "common/comma_list.h"
#include "config/association_tree.h"
#include "jobs/job_manager.h"
#include "jobs/qos_limits.h"
#include "jobs/request.h"
#include "jobspec/array_spec.h"
#include "jobspec/dependency_spec.h"
#include "sched/demand.h"
#include "drover/hostlist.h"

namespace drover::jobs {

namespace {

SubmitResult refuse(std::string message, std::string detail = {},
                    std::vector<std::string> notes = {}, bool prefixed = true) {
  SubmitResult r;
  r.failure.message = std::move(message);
  r.failure.detail = std::move(detail);
  r.failure.notes = std::move(notes);
  r.failure.submission_failed_prefix = prefixed;
  return r;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

sched::Reason waitingReason(const Job& job, std::int64_t now) {
  const sched::JobRequest& r = job.request;
  if (r.hold == sched::Hold::Admin) return sched::Reason::JobHeldAdmin;
  if (r.hold == sched::Hold::User) return sched::Reason::JobHeldUser;
  if (r.dependency == sched::DependencyState::NeverSatisfied)
    return sched::Reason::DependencyNeverSatisfied;
  if (r.dependency == sched::DependencyState::Pending) return sched::Reason::Dependency;
  if (r.beginTime > now) return sched::Reason::BeginTime;
  return sched::Reason::None;
}

sched::Reason initialReason(const Job& job) { return waitingReason(job, job.request.submitTime); }

JobManager::JobManager(const Clock& clock, const config::ClusterConfig& config, JobStore& store)
    : clock_(clock),
      config_(config),
      store_(store),
      config_nodes_(schedNodes(config)),
      partitions_(schedPartitions(config)) {}

sched::Validation JobManager::validateListed(const sched::JobRequest& request) const {
  sched::Validation v = sched::validateRequest(request, config_nodes_, partitions_);
  bool runnable = v.ok();
  bool denied = v.code == sched::RejectCode::InvalidAccount;
  for (std::size_t k = 1; k < request.partitions.size() && !denied; ++k) {
    sched::JobRequest in = request;
    in.partition = request.partitions[k];
    sched::Validation there = sched::validateRequest(in, config_nodes_, partitions_);
    denied = there.code == sched::RejectCode::InvalidAccount;
    if (denied) v = there;
    runnable = runnable || there.ok();
  }
  if (runnable && !denied) v = {};
  return v;
}

bool JobManager::isAdmin(const Caller& caller) const {
  return config_.isOperator(caller.uid, caller.user);
}

bool JobManager::owns(const Caller& caller, const Job& job) const {
  return isAdmin(caller) || caller.uid == job.info.uid();
}

SubmitResult JobManager::submit(const Caller& caller, const v1::JobSpec& submitted) {
  const std::int64_t now = clock_.now();
  v1::JobSpec spec = submitted;

  // Partition: the default, or each of a comma list, every one of which must exist (the
  // reference refused `-p gpu,nosuch` and `-p "gpu, debug"`). The job is checked against
  // every listed partition's limits, as Slurm's EnforcePartLimits=ALL does, and runs in
  // whichever of them starts it first (sched::orderPartitions: the order it tries them).
  std::vector<const config::PartitionConfig*> listed;
  if (spec.partition().empty()) {
    if (const auto* p = config_.defaultPartition()) listed.push_back(p);
    if (listed.empty()) return refuse("No partition specified or system default partition");
  } else {
    for (const std::string& name : splitCommas(spec.partition())) {
      const auto* p = config_.findPartition(name);
      if (!p) {
        return refuse("Invalid partition name specified", "no partition " + name,
                      {"invalid partition specified: " + name});
      }
      listed.push_back(p);
    }
    if (listed.empty()) {  // only commas: the reference named it "(null)"
      return refuse("Invalid partition name specified", "no partition named in " + spec.partition(),
                    {"invalid partition specified: (null)"});
    }
  }
  // DRAIN and INACTIVE partitions take no new jobs: dropped from a list (the reference ran
  // `-p debug,gpu` in gpu with debug drained, showing Partition=gpu while it waited), refused
  // when none is left. DOWN ones take jobs that wait (PartitionDown); srun and salloc say so.
  std::erase_if(listed, [](const config::PartitionConfig* p) { return !takesNewJobs(*p); });
  if (listed.empty()) return refuse("Required partition not available (inactive or drain)");
  if (!spec.partition().empty()) {
    std::vector<std::string> names;
    for (const auto* p : listed) names.push_back(p->name);
    spec.set_partition(joinCommas(names));
  }
  std::vector<std::string> warnings;
  if (!spec.batch() && std::all_of(listed.begin(), listed.end(), [](const auto* p) {
        return p->state == config::PartitionState::kDown;
      })) {
    warnings.push_back("Partition in DOWN state");
  }
  const config::PartitionConfig* part = listed.front();

  // A negative nice raises a job above others: root and operators only, as the reference
  // refused `--nice=-5` from a user and took it from root.
  if (spec.nice() < 0 && !isAdmin(caller)) {
    return refuse("Invalid --nice value", "a negative nice needs root or an operator");
  }

  if (spec.reboot() && !isAdmin(caller)) {
    return refuse("Access/permission denied", "--reboot from a user",
                  {"rebooting of nodes is only allowed for admins"});
  }
  // cluster.conf declares no licenses, so any named one is unknown, as the reference's
  // `--licenses=foo` without Licenses= in slurm.conf.
  if (!spec.licenses().empty()) {
    return refuse("Invalid license specification", "no license " + spec.licenses() + " is configured");
  }

  // Account: the user's default from the account tree; a named one must exist and list the
  // user (root and operators may charge any account).
  std::string account = spec.account();
  if (account.empty()) {
    account = config::defaultAccountOf(config_, caller.user);
  } else if (!config_.accounts.empty()) {
    auto it = std::find_if(config_.accounts.begin(), config_.accounts.end(),
                           [&](const config::AccountConfig& a) { return a.name == account; });
    if (it == config_.accounts.end() || (!isAdmin(caller) && !contains(it->users, caller.user))) {
      return refuse("Invalid account or account/partition combination specified",
                    "user " + caller.user + " may not use account " + account);
    }
  }

  if (!spec.reservation().empty()) {
    if (auto why = reservations_.checkAccess(spec.reservation(), caller.user, account, now)) {
      return refuse(*why, "reservation " + spec.reservation() + " for user " + caller.user);
    }
  }

  for (const auto& g : spec.gres()) {
    if (g.name() != "gpu") {
      return refuse("Invalid generic resource (gres) specification",
                    "no generic resource named " + g.name() + " (gpu is configured)", {}, false);
    }
    // gpu:0 asks for none: the reference ran `--gres=gpu:0` (TresPerNode=gres:gpu:0), as
    // `srun --gres=gpu:0` is the usual way to start a step that needs no GPU.
  }

  // Time limit: the (first) partition's default, else its maximum; over the maximum of any
  // listed partition is refused. A default over another's maximum got the reference's
  // "configuration not available" (`-p gpu,debug` without -t: gpu's hour over debug's 30 min).
  std::int64_t limit = spec.time_limit_min();
  const bool default_limit = limit == 0;
  if (default_limit) {
    limit = part->default_time_min != config::kUnlimited ? part->default_time_min
                                                          : part->max_time_min;
  }
  for (const auto* p : listed) {
    if (p->max_time_min == config::kUnlimited ||
        (limit >= 0 && limit <= p->max_time_min)) {
      continue;
    }
    const std::string why = "partition " + p->name + " allows at most " +
                            std::to_string(p->max_time_min) + " minutes";
    // Its own default over its maximum (scontrol update can leave a partition so) is an
    // invalid limit, as the reference said of it.
    if (default_limit && p != part) {
      return refuse("Requested partition configuration not available now", why);
    }
    return refuse("Requested time limit is invalid (missing or exceeds some limit)", why);
  }

  // A deadline already past: the reference's `--deadline=2020-01-01` got this message.
  if (spec.deadline() != 0 && spec.deadline() <= now) {
    return refuse("Requested time limit is invalid (missing or exceeds some limit)",
                  "the deadline has passed");
  }

  // QOS: the account's default, or the one named, which must exist and be one the account
  // may use (root and operators may use any, as they may charge any account).
  const config::QosConfig* qos = config::qosFor(config_, account, spec.qos(), isAdmin(caller));
  if (!qos) {
    return refuse("Invalid qos specification",
                  "no QOS " + spec.qos() + " that account " + account + " may use");
  }
  spec.set_qos(qos->name);
  if (!spec.mem_set() && spec.mem_per_cpu_mb() == 0 && spec.mem_per_gpu_mb() == 0 &&
      config_.scheduler.default_mem_per_cpu_mb > 0) {
    spec.set_mem_per_cpu_mb(config_.scheduler.default_mem_per_cpu_mb);
  }

  // A target the controller does not know (never submitted, or purged after MinJobAge) is
  // accepted and counts as met, as the reference took `afterok:99999999` and ran the job.
  std::optional<jobspec::DependencySpec> dependency;
  if (!spec.dependency().empty()) {
    auto dep = jobspec::parseDependencySpec(spec.dependency());
    if (!dep) return refuse("Job dependency problem", dep.error());
    dependency = *dep;
  }

  std::vector<std::uint32_t> task_ids;
  std::uint32_t max_running = 0;
  if (!spec.array().empty()) {
    auto array = jobspec::parseArraySpec(spec.array());
    if (!array) return refuse("Invalid job array specification", array.error());
    task_ids = array->taskIds();
    if (task_ids.empty()) return refuse("Invalid job array specification", "no task ids");
    max_running = array->max_running.value_or(0);
  }

  // The record every task starts from.
  v1::JobInfo base;
  std::string script = spec.script();
  std::map<std::string, std::string> env(spec.environment().begin(), spec.environment().end());
  spec.clear_script();
  spec.clear_environment();
  base.set_name(spec.name().empty() ? "sbatch" : spec.name());
  base.set_uid(caller.uid);
  base.set_gid(caller.gid);
  base.set_user(caller.user);
  base.set_group(caller.group);
  base.set_account(account);
  // A list stays a list while the job waits (squeue shows `gpu,debug`, as the reference's);
  // its start names the partition it runs in.
  const std::string shown = partitionList(spec.partition());
  base.set_partition(shown.empty() ? part->name : shown);
  base.set_qos(spec.qos());
  base.set_state(v1::JOB_PENDING);
  base.set_nice(spec.nice());
  base.set_submit_time(now);
  base.set_time_limit_min(limit);
  base.set_batch(spec.batch());
  base.set_requeue(spec.requeue_set() ? spec.requeue() : config_.jobs.requeue);  // JobRequeue
  base.set_held_user(spec.hold());
  base.set_work_dir(spec.work_dir());
  base.set_command(spec.command());
  base.set_features(spec.constraint());
  base.set_req_nodes(spec.nodelist());
  base.set_exc_nodes(spec.exclude());
  base.set_array_max_running(max_running);
  if (dependency) base.set_dependency(jobspec::formatDependency(*dependency));
  *base.mutable_spec() = spec;
  base.set_array_task_id(-1);

  sched::JobRequest request = requestOf(base);
  base.set_num_nodes(static_cast<std::uint32_t>(std::max(1, request.minNodes)));
  base.set_num_tasks(static_cast<std::uint32_t>(request.ntasks));
  const std::int64_t req_cpus = requestedCpus(request, std::max(1, request.minNodes));
  base.set_num_cpus(static_cast<std::uint32_t>(req_cpus));
  base.set_req_tres(requestedTres(base, request));

  // Limits Slurm checks against the partitions before placement (every listed one's nodes
  // and CPUs; the largest node of any of them for the per-node figures below).
  std::int64_t largest_mem = 0;
  int largest_cpus = 0;
  for (const auto* p : listed) {
    std::int64_t part_cpus = 0;
    int part_nodes = 0;
    for (const auto& n : config_nodes_) {
      if (!contains(n.partitions, p->name)) continue;
      part_cpus += n.cpus;
      largest_mem = std::max(largest_mem, n.memoryMb);
      largest_cpus = std::max(largest_cpus, n.cpus);
      ++part_nodes;
    }
    if (request.minNodes > part_nodes ||
        (p->max_nodes != config::kUnlimited && request.minNodes > p->max_nodes)) {
      return refuse("Node count specification invalid",
                    std::to_string(request.minNodes) + " nodes asked, partition " + p->name +
                        " has " + std::to_string(part_nodes));
    }
    if (req_cpus > part_cpus) {
      return refuse("More processors requested than permitted",
                    std::to_string(req_cpus) + " CPUs asked, partition " + p->name + " has " +
                        std::to_string(part_cpus));
    }
  }
  {
    // Without -N, as many nodes as the scheduler gives the tasks (`-n 20` on 16-CPU nodes: 2);
    // with -N min-max at least as many as the tasks need (computeDemand).
    int nodes = sched::computeDemand(request, largest_cpus).nodes;
    int cpus_per_node = static_cast<int>((req_cpus + nodes - 1) / nodes);
    int gpus_per_node = static_cast<int>((requestedGpus(request, nodes) + nodes - 1) / nodes);
    std::int64_t mem = requestedMemPerNodeMb(request, cpus_per_node, gpus_per_node);
    if (mem > largest_mem && !spec.hold()) {
      return refuse("Requested node configuration is not available",
                    std::to_string(mem) + " MB per node asked, the largest node has " +
                        std::to_string(largest_mem),
                    {"Memory specification can not be satisfied"});
    }
  }
  sched::Validation v = validateListed(request);
  // Submitted held, a job no node could hold is taken, as the reference took `-H
  // --gres=gpu:9` on 8-GPU nodes; released, it waits with BadConstraints
  // (JobRequest::unrunnable, set by requestOf).
  if (spec.hold() && v.code == sched::RejectCode::NodeConfigUnavailable) v = {};
  // --prefer names features of the job's nodes as -C does, and the job must be able to run on
  // nodes that have them: the reference refused `--prefer=nosuch` ("Invalid preferred feature
  // specification") and `-N4 --prefer=fast` with one fast node ("Requested node configuration
  // is not available").
  if (v.ok() && !request.prefer.empty()) {
    sched::JobRequest preferring = request;
    preferring.constraint = request.prefer;
    v = validateListed(preferring);
    if (v.code == sched::RejectCode::InvalidFeature) {
      return refuse("Invalid preferred feature specification", v.message);
    }
  }
  if (!v.ok()) {
    std::string text = v.message.substr(0, v.message.find(": "));
    std::string detail = v.message.size() > text.size() + 2 ? v.message.substr(text.size() + 2) : "";
    return refuse(text, detail, {}, v.code != sched::RejectCode::InvalidGres);
  }
  // QOS limits checked at submission, as the reference's: its reason as a note, then Slurm's
  // policy text; no job id is taken.
  const auto tasks = static_cast<std::uint32_t>(std::max<std::size_t>(1, task_ids.size()));
  if (auto over = qosSubmitRefusal(base, request, tasks)) {
    return refuse(std::string(kQosPolicyViolation), "QOS " + base.qos() + " limit",
                  {std::string(*over)});
  }

  if (spec.test_only()) {
    sched::Snapshot snap = buildSnapshot({});
    sched::Job probe;
    probe.id = store_.nextJobId();
    probe.request = request;
    // Several partitions are tried as listed here: the reference's --test-only named gpu for
    // `-p gpu,debug` and debug for `-p debug,gpu` (where its real start took debug for both).
    if (!request.partitions.empty()) {
      probe.request.partitions = splitCommas(base.partition());
      probe.request.partition = probe.request.partitions.front();
    }
    snap.pending.push_back(probe);
    sched::Plan plan = sched::schedule(snap, schedulerParams(), now);
    Submitted out;
    out.job_id = probe.id;
    out.test_only_partition = part->name;
    out.test_only_cpus = base.num_cpus();
    for (const auto& s : plan.starts) {
      if (s.id != probe.id) continue;
      out.expected_start = now;
      if (!s.partition.empty()) out.test_only_partition = s.partition;
      std::vector<std::string> names;
      int cpus = 0;
      for (const auto& a : s.allocation.nodes) {
        names.push_back(a.node);
        cpus += a.cpus;
      }
      out.test_only_nodes = hostlist::compress(names);
      // What the allocation would hold (whole nodes for --exclusive), as Slurm counts it.
      if (cpus > 0) out.test_only_cpus = static_cast<std::uint32_t>(cpus);
    }
    for (const auto& p : plan.pending) {
      if (p.id != probe.id) continue;
      // A reservation's start, else the estimate (whose nodes plannedNodes holds too).
      out.expected_start = p.shownStart();
      out.test_only_nodes = hostlist::compress(p.plannedNodes);
    }
    SubmitResult r;
    r.ok = out;
    return r;
  }

  // One job id for the whole array (Slurm): its tasks wait under internal keys (job.h) and
  // take ids of their own as they start (splitStarted).
  const std::uint32_t count = task_ids.empty() ? 1 : static_cast<std::uint32_t>(task_ids.size());
  const JobId first = store_.allocateIds(1);
  std::vector<JobId> keys;
  keys.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    Job job;
    job.info = base;
    job.info.set_job_id(first);
    if (!task_ids.empty()) {
      job.key = taskKey(first, i);
      job.info.set_array_job_id(first);
      job.info.set_array_task_id(task_ids[i]);
    }
    expandJobPaths(job.info, "");
    job.dependency = dependency;
    job.request = request;
    job.request.rankId = job.info.array_job_id();
    job.request.dependency =
        dependency ? sched::DependencyState::Pending : sched::DependencyState::Satisfied;
    keys.push_back(job.id());
    auto it = jobs_.emplace(job.id(), std::move(job)).first;
    index(it->second);
  }
  // sacct -B / --env-vars (controller.accounting_store_flags): kept once, under the job's (the
  // array's) first id, as the job was submitted.
  const auto& keep = config_.controller;
  if (spec.batch() && (keep.store_job_script || keep.store_job_env)) {
    acct::JobScript kept;
    kept.job_id = first;
    if (keep.store_job_script) kept.script = script;
    if (keep.store_job_env) {
      std::string text;
      for (const auto& [name, value] : env) text += name + "=" + value + "\n";
      kept.environment = std::move(text);
    }
    accounting_.scripts.push_back(std::move(kept));
  }
  if (!task_ids.empty()) {
    unsplit_pending_[first] = count;
    // One copy of the script and environment for all the tasks.
    store_.stageArrayPayload(first, JobPayload{std::move(script), std::move(env)});
  }
  reevaluateDependenciesOf(keys);
  for (JobId key : keys) {
    Job& job = jobs_.at(key);
    refreshEligibility(job, now);
    job.info.set_reason(std::string(sched::reasonName(initialReason(job))));
    noteWaitReason(job.info);
    // A --begin job expects to start no earlier than then, from its submission on (the
    // scheduler's next pass may add its own estimate): scontrol and squeue --start show it at
    // once, not Unknown until that pass.
    if (job.request.beginTime > now) job.info.set_start_time(job.request.beginTime);
    if (task_ids.empty()) store_.stageInsert(job, JobPayload{script, env});
    else store_.stageInsertTask(job);
    record(job);
    // The maintained scheduler finds new jobs above its watermark of ids; task keys lie above
    // every id, so it hears of them this way (incremental_pass.cpp).
    if (job.unsplit()) touched_.push_back(key);
  }
  changed();
  ++lifecycle_.submitted;
  Submitted out;
  out.job_id = first;
  out.warnings = std::move(warnings);
  SubmitResult r;
  r.ok = out;
  return r;
}

}  // namespace drover::jobs
