// Job steps (srun inside an allocation) and interactive allocations (srun/salloc outside one):
// step creation on the job's resources, the step table kept in the job (so it survives a
// restart), step ends from the supervisors' reports, step accounting, scancel JOB.STEP, and
// the release of interactive allocations (their time limit: time_bounds.cpp).
#include <algorithm>
#include <charconv>
#include <csignal>

#include "common/bcast_path.h"
#include "common/slurm_errors.h"
#include "drover/hostlist.h"
#include "jobs/job_manager.h"
#include "jobs/request.h"
#include "jobs/step_layout.h"
#include "jobs/task_usage_wire.h"
#include "jobspec/multi_prog.h"
#include "jobstate/gres_text.h"
#include "jobstate/wait_status.h"
#include "launch/step_env.h"

namespace drover::jobs {
namespace {

constexpr const char* kDenied = "Access/permission denied";
constexpr const char* kPending = "Job is pending execution";
constexpr const char* kSuspended = "Job is suspended";

v1::CancelResult cancelResult(const std::string& id, const char* error = nullptr) {
  v1::CancelResult r;
  r.set_job_id(id);
  r.set_ok(error == nullptr);
  if (error) r.set_error(error);
  return r;
}

// "host:port" -> host ("[::1]:5" -> "::1").
std::string hostOf(const std::string& address) {
  auto colon = address.rfind(':');
  std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host;
}

std::string portOf(const std::string& address) {
  auto colon = address.rfind(':');
  return colon == std::string::npos ? std::string() : address.substr(colon + 1);
}

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string absolutePattern(const std::string& pattern, const std::string& work_dir) {
  if (pattern.empty() || pattern.front() == '/' || work_dir.empty()) return pattern;
  return work_dir + (work_dir.back() == '/' ? "" : "/") + pattern;
}

Result<jobspec::MultiProgAssignment> multiProgAssignment(const v1::MultiProgram& file,
                                                         std::uint32_t ntasks) {
  auto config = jobspec::parseMultiProg(file.text(), file.file());
  if (!config) return Error{config.error()};
  return jobspec::MultiProgAssignment::assign(std::move(*config), ntasks);
}

// Removes `step_id` from the job's reserved ids; false when it was not one of them.
bool takeReservedStep(v1::JobInfo& info, std::int64_t step_id) {
  auto* ids = info.mutable_reserved_step_ids();
  const auto it = std::find(ids->begin(), ids->end(), step_id);
  if (it == ids->end()) return false;
  ids->erase(it);
  return true;
}

int stepIndex(const Job& job, std::int64_t step_id) {
  for (int k = 0; k < job.info.steps_size(); ++k)
    if (job.info.steps(k).step_id() == step_id) return k;
  return -1;
}

}  // namespace

std::int64_t JobManager::reserveStepId(JobId id) {
  Job* job = mutableJob(id);
  if (job == nullptr) return -1;
  const auto step_id = static_cast<std::int64_t>(job->info.next_step_id());
  job->info.set_next_step_id(job->info.next_step_id() + 1);
  // In the job's info, so the job store keeps it: a restarted controller hands it out again
  // to no other step.
  job->info.add_reserved_step_ids(step_id);
  stage(*job);
  return step_id;
}

Result<JobManager::CreatedStep> JobManager::createStep(
    const Caller& caller, const v1::StepSpec& spec,
    const std::map<std::string, std::string>& addresses) {
  Job* job = mutableJob(spec.job_id());
  if (job == nullptr) return makeError(kInvalidJobId);
  if (!owns(caller, *job)) return makeError(kDenied);
  const v1::JobState state = job->state();
  if (isFinal(state) || state == v1::JOB_COMPLETING || beingKilled(*job)) {
    return makeError(kAlreadyDone);
  }
  if (state == v1::JOB_PENDING || state == v1::JOB_REQUEUED) return makeError(kPending);
  if (state == v1::JOB_SUSPENDED) return makeError(kSuspended);
  if (spec.argv_size() == 0 || spec.argv(0).empty()) {
    return makeError("No command given for the step (StepSpec.argv is empty)");
  }
  v1::JobInfo& info = job->info;

  std::vector<StepAllocNode> alloc;
  for (const auto& a : info.allocation()) {
    alloc.push_back({a.node(), a.cpus(), {a.gpu_indices().begin(), a.gpu_indices().end()}, a.tasks()});
  }
  std::map<std::string, StepNodeUse> used;
  for (const auto& st : info.steps()) {
    if (!st.exclusive()) continue;
    for (const auto& n : st.nodes()) {
      StepNodeUse& u = used[n.node()];
      u.cpus += n.cpus();
      u.gpus.insert(n.gpu_indices().begin(), n.gpu_indices().end());
    }
  }
  auto layout = layoutStep(alloc, spec, used);
  if (!layout) return makeError(layout.error());
  // srun checked the file, but only against -n when it had one: the layout decides the count.
  std::optional<jobspec::MultiProgAssignment> programs;
  // --multi-prog: srun's arguments after the file name go to every task.
  std::vector<std::string> extra_args;
  if (spec.has_multi_prog()) {
    auto assigned = multiProgAssignment(spec.multi_prog(), layout->ntasks);
    if (!assigned) return makeError(assigned.error());
    programs = std::move(*assigned);
    extra_args.assign(spec.argv().begin() + 1, spec.argv().end());   // argv(0) checked above
  }

  const std::int64_t now = clock_.now();
  std::int64_t step_id = static_cast<std::int64_t>(info.next_step_id());
  if (spec.has_reserved_step_id() && takeReservedStep(info, spec.reserved_step_id())) {
    step_id = spec.reserved_step_id();   // srun --bcast named its copies with it
  } else {
    info.set_next_step_id(info.next_step_id() + 1);
  }

  // The step ends at its own limit or the job's, whichever comes first.
  std::int64_t limit_s = spec.time_limit_min() > 0 ? spec.time_limit_min() * 60 : 0;
  if (info.time_limit_min() >= 0 && info.end_time() > 0) {
    const std::int64_t left = std::max<std::int64_t>(1, info.end_time() - now);
    limit_s = limit_s > 0 ? std::min(limit_s, left) : left;
  }

  v1::JobStep step;
  step.set_step_id(step_id);
  step.set_name(spec.name().empty() ? baseName(spec.argv(0)) : spec.name());
  for (const auto& n : layout->nodes) *step.add_nodes() = n;
  step.set_ntasks(layout->ntasks);
  step.set_cpus_per_task(layout->cpus_per_task);
  step.set_layout(layout->layout_name());
  step.set_exclusive(spec.exclusive() && !spec.overlap());
  step.set_start_time(now);
  step.set_time_limit_s(limit_s);
  step.set_time_limit_min(std::max<std::int64_t>(0, spec.time_limit_min()));
  step.set_tres_per_node(tresPerNodeText(spec));
  step.set_srun_host(spec.srun_host());
  step.set_srun_pid(spec.srun_pid());
  step.set_mem_per_node_mb(spec.mem_per_node_mb());
  step.set_submit_line(spec.submit_line());
  step.set_kill_on_bad_exit(spec.kill_on_bad_exit());
  *info.add_steps() = step;
  stage(*job);
  recordStep(*job, step, false);

  CreatedStep out;
  v1::CreateStepReply& reply = out.reply;
  reply.set_job_id(info.job_id());
  reply.set_step_id(step_id);
  reply.set_ntasks(layout->ntasks);
  std::vector<std::string> names;
  std::vector<std::uint32_t> tasks_per_node;
  for (const auto& n : layout->nodes) {
    *reply.add_nodes() = n;
    names.push_back(n.node());
    tasks_per_node.push_back(static_cast<std::uint32_t>(n.ranks_size()));
  }
  reply.set_nodelist(hostlist::compress(names));

  const bool pytorch = config_.steps.pytorch_env && !spec.no_pytorch_env();
  std::string master_addr = names.front();
  if (auto it = addresses.find(names.front()); it != addresses.end() && !it->second.empty()) {
    master_addr = it->second;
  }
  const launch::Environment user_env(spec.environment().begin(), spec.environment().end());
  const std::string work_dir = spec.work_dir().empty() ? info.work_dir() : spec.work_dir();
  std::optional<std::uint32_t> cpus_per_task;
  if (spec.cpus_per_task() > 0) cpus_per_task = spec.cpus_per_task();
  else if (info.spec().cpus_per_task() > 0) cpus_per_task = info.spec().cpus_per_task();

  for (std::size_t k = 0; k < layout->nodes.size(); ++k) {
    const v1::StepNode& sn = layout->nodes[k];
    const std::size_t job_index = layout->job_index[k];
    launch::StepEnvContext sctx;
    sctx.job_id = info.job_id();
    sctx.step_id = step_id;
    sctx.nodes = names;
    sctx.tasks_per_node = tasks_per_node;
    sctx.node_index = k;
    sctx.ntasks = layout->ntasks;
    sctx.cpus_per_task = cpus_per_task;
    sctx.gpu_indices.assign(sn.gpu_indices().begin(), sn.gpu_indices().end());
    // SLURM_DISTRIBUTION when srun was given -m, or runs inside an allocation it did not make
    // (goldens 041/042: block there without -m; an srun outside a job sets none, 049-051).
    if (!spec.distribution().empty() || spec.in_allocation()) {
      sctx.distribution = layout->distribution;
    }
    sctx.batch_job = info.batch();
    sctx.gpu_freq = spec.gpu_freq();
    sctx.plane_size = layout->plane_size;
    if (!spec.io_address().empty()) {
      sctx.launch_host = hostOf(spec.io_address());
      sctx.srun_port = portOf(spec.io_address());
    }
    sctx.pytorch = pytorch;
    sctx.master_addr = master_addr;
    launch::Environment env =
        launch::stepEnvironment(user_env, jobEnvContext(*job, config_, job_index), sctx);

    v1::LaunchStepRequest r;
    nameStep(r.mutable_step(), *job, step_id);
    r.set_uid(info.uid());
    r.set_gid(info.gid());
    r.set_user(info.user());
    r.set_work_dir(work_dir);
    r.mutable_environment()->insert(env.begin(), env.end());
    if (programs) {
      // argv stays empty: an agent that does not know task_argv refuses the step instead of
      // running the configuration file.
      for (const std::uint32_t rank : sn.ranks()) {
        auto* task = r.add_task_argv();
        for (auto& a : programs->argvOf(rank, extra_args)) task->add_argv(std::move(a));
      }
    } else {
      for (const auto& a : spec.argv()) r.add_argv(a);
      // srun --bcast into a directory: each node runs the copy named for it.
      if (!spec.bcast_dir().empty()) {
        const std::string copy_step =
            std::to_string(spec.has_reserved_step_id() ? spec.reserved_step_id() : step_id);
        r.set_argv(0, bcastPath(spec.bcast_dir(), info.job_id(), copy_step, sn.node()));
      }
      // srun --bcast --send-libs: the libraries went beside this node's copy (man srun: "The
      // LD_LIBRARY_PATH is automatically updated to include this cache directory").
      if (spec.bcast_send_libs()) {
        auto& vars = *r.mutable_environment();
        const auto old_path = vars.find("LD_LIBRARY_PATH");
        std::string path = r.argv(0) + "_libs";
        if (old_path != vars.end() && !old_path->second.empty()) path += ":" + old_path->second;
        vars["LD_LIBRARY_PATH"] = std::move(path);
      }
    }
    r.set_std_out(absolutePattern(spec.std_out(), work_dir));
    r.set_std_err(absolutePattern(spec.std_err(), work_dir));
    r.set_std_in(absolutePattern(spec.std_in(), work_dir));
    r.set_open_append(spec.open_append());
    r.set_time_limit_s(limit_s);
    r.set_kill_wait_s(config_.timeouts.kill_wait_s);
    v1::NodeAllocation* a = r.mutable_allocation();
    a->set_node(sn.node());
    a->set_cpus(sn.cpus());
    a->set_memory_mb(spec.mem_per_node_mb() > 0
                         ? spec.mem_per_node_mb()
                         : info.allocation(static_cast<int>(job_index)).memory_mb());
    *a->mutable_gpu_indices() = sn.gpu_indices();
    a->set_tasks(static_cast<std::uint32_t>(sn.ranks_size()));
    r.set_node_id(static_cast<std::uint32_t>(k));
    r.set_first_task(sn.ranks_size() > 0 ? sn.ranks(0) : 0);
    r.set_num_tasks(static_cast<std::uint32_t>(sn.ranks_size()));
    r.set_controller(config_.controller.host + ":" + std::to_string(config_.controller.port));
    r.set_io_address(spec.io_address());
    r.set_io_key(spec.io_key());
    *r.mutable_task_ranks() = sn.ranks();
    r.set_step_num_tasks(layout->ntasks);
    r.set_pytorch_env(pytorch);
    r.set_gpus_per_task(spec.gpus_per_task().count());
    r.set_gpu_bind(spec.gpu_bind());
    r.set_pty(spec.pty());
    r.set_mpi(spec.mpi());
    r.set_pty_rows(spec.pty_rows());
    r.set_pty_cols(spec.pty_cols());
    out.launches.push_back(Launch{info.job_id(), sn.node(), std::move(r)});
  }
  return out;
}

void JobManager::numberedStepEvent(Job& job, const v1::StepEventRequest& event) {
  if (event.kind() == v1::StepEventRequest::STARTED) return;
  const int index = stepIndex(job, event.step().step_id());
  if (index < 0) return;  // already ended (killed with its job, or a duplicate report)
  v1::JobStep& step = *job.info.mutable_steps(index);
  bool on_step = false;
  for (const auto& n : step.nodes()) on_step = on_step || n.node() == event.node();
  const auto& reported = step.reported_nodes();
  if (!on_step || std::find(reported.begin(), reported.end(), event.node()) != reported.end()) {
    return;
  }
  step.add_reported_nodes(event.node());
  if (event.kind() == v1::StepEventRequest::FAILED_TO_START) {
    step.set_failed_to_start(true);
    step.set_exit_code(std::max(step.exit_code(), event.exit_code() != 0 ? event.exit_code() : 1));
  } else {
    step.set_exit_code(std::max(step.exit_code(), event.exit_code()));
    step.set_exit_signal(std::max(step.exit_signal(), event.exit_signal()));
    step.set_timed_out(step.timed_out() || event.timed_out());
    step.set_out_of_memory(step.out_of_memory() || event.out_of_memory());
  }
  step.set_user_cpu_ms(step.user_cpu_ms() + event.user_cpu_ms());
  step.set_system_cpu_ms(step.system_cpu_ms() + event.system_cpu_ms());
  if (event.max_rss_kb() > step.max_rss_kb()) {
    step.set_max_rss_kb(event.max_rss_kb());
    step.set_max_rss_node(event.node());
  }
  step.set_ave_rss_kb_sum(step.ave_rss_kb_sum() + event.ave_rss_kb());
  for (const auto& t : event.tasks()) {
    auto& kept = *step.add_task_usage();
    kept = t;
    kept.set_node(event.node());
  }
  if (step.reported_nodes_size() == step.nodes_size()) {
    finishStep(job, index);
    return;
  }
  const bool bad = event.kind() == v1::StepEventRequest::FAILED_TO_START ||
                   event.exit_code() != 0 || event.exit_signal() != 0;
  if (bad && step.kill_on_bad_exit()) {
    // srun -K: the tasks elsewhere are killed; the step keeps this node's exit code.
    SignalAction kill;
    kill.job_id = job.id();
    for (const auto& n : step.nodes()) {
      const auto& done = step.reported_nodes();
      if (std::find(done.begin(), done.end(), n.node()) == done.end()) kill.nodes.push_back(n.node());
    }
    nameStep(kill.request.mutable_step(), job, step.step_id());
    kill.request.set_signal(SIGKILL);
    kill.request.set_kill(true);
    signals_.push_back(std::move(kill));
  }
  stage(job);
}

bool JobManager::stepLaunchWanted(const v1::StepId& step, const std::string& node) const {
  const Job* job = find(step.job_id());
  if (job == nullptr || job->state() != v1::JOB_RUNNING ||
      job->pending_end != PendingEnd::kNone || ofOtherRun(step)) {
    return false;
  }
  const int index = stepIndex(*job, step.step_id());
  if (index < 0) return false;
  const v1::JobStep& s = job->info.steps(index);
  const auto& reported = s.reported_nodes();
  return !s.cancelled() && std::find(reported.begin(), reported.end(), node) == reported.end();
}

void JobManager::stepLaunchFailed(JobId id, std::int64_t step_id, const std::string& node,
                                  const std::string& why) {
  Job* job = mutableJob(id);
  if (job == nullptr || !holdsResources(job->state())) return;
  v1::StepEventRequest event;
  nameStep(event.mutable_step(), *job, step_id);
  event.set_node(node);
  event.set_kind(v1::StepEventRequest::FAILED_TO_START);
  event.set_error(why);
  numberedStepEvent(*job, event);
}

void JobManager::finishStep(Job& job, int index) {
  const v1::JobStep& step = job.info.steps(index);
  // DerivedExitCode: the highest wait status of the numbered steps, as Slurm keeps it (the
  // reference's `srun false; true` job: COMPLETED 0:0, DerivedExitCode 1:0).
  if (step.step_id() >= 0 && waitStatus(step.exit_code(), step.exit_signal()) >
                                waitStatus(job.info.derived_exit_code(), job.info.derived_exit_signal())) {
    job.info.set_derived_exit_code(step.exit_code());
    job.info.set_derived_exit_signal(step.exit_signal());
  }
  recordStep(job, step, true);
  job.info.mutable_steps()->DeleteSubrange(index, 1);
  stage(job);
}

void JobManager::recordStep(const Job& job, const v1::JobStep& step, bool final) {
  acct::StepRecord s;
  s.job_id = job.id();
  s.step_id = step.step_id();
  s.run = job.info.restart_count();
  s.name = step.name();
  s.start = step.start_time();
  s.nnodes = static_cast<std::uint32_t>(step.nodes_size());
  s.ntasks = step.ntasks();
  std::vector<std::string> names;
  std::int64_t cpus = 0, gpus = 0, mem = 0;
  for (const auto& n : step.nodes()) {
    names.push_back(n.node());
    cpus += n.cpus();
    gpus += n.gpu_indices_size();
    std::uint64_t node_mem = step.mem_per_node_mb();
    if (node_mem == 0) {
      for (const auto& a : job.info.allocation())
        if (a.node() == n.node()) node_mem = a.memory_mb();
    }
    mem += static_cast<std::int64_t>(node_mem);
  }
  s.ncpus = static_cast<std::uint32_t>(cpus);
  s.node_list = hostlist::compress(names);
  s.alloc_tres = stepTres(cpus, mem, s.nnodes, gpus);
  // ReqTRES stays empty: Slurm's step records have none (golden 117).
  s.layout = step.layout();
  s.submit_line = step.submit_line();
  s.state = acct::JobState::kRunning;
  if (final) {
    s.end = clock_.now();
    // A step reported after its job ended ended no later than the job.
    if (isFinal(job.state()) && job.info.end_time() > 0) s.end = std::min(s.end, job.info.end_time());
    s.exit = {step.exit_code(), step.exit_signal()};
    // Killed (scancel JOB.STEP, or the job ended under it) unless every task had already
    // ended on its own: no signal in the reports.
    if (step.cancelled() && (step.exit_signal() != 0 || step.reported_nodes_size() < step.nodes_size()))
      s.state = acct::JobState::kCancelled;
    else if (step.timed_out()) s.state = acct::JobState::kTimeout;
    else if (step.failed_to_start()) s.state = acct::JobState::kFailed;
    else if (step.out_of_memory()) s.state = acct::JobState::kOutOfMemory;
    else if (step.exit_code() != 0) s.state = acct::JobState::kFailed;
    // Tasks killed by a signal and none failing: CANCELLED with the signal, as Slurm (golden
    // 109: `srun bash -c 'kill -9 $$'` is CANCELLED 0:9).
    else if (step.exit_signal() != 0) s.state = acct::JobState::kCancelled;
    else s.state = acct::JobState::kCompleted;
    s.usage.user_cpu_usec = static_cast<std::int64_t>(step.user_cpu_ms()) * 1000;
    s.usage.system_cpu_usec = static_cast<std::int64_t>(step.system_cpu_ms()) * 1000;
    if (step.max_rss_kb() > 0) {
      s.usage.max_rss_kb = static_cast<std::int64_t>(step.max_rss_kb());
      s.usage.max_rss_node = step.max_rss_node();
      s.usage.max_rss_task = 0;
    }
    if (step.ave_rss_kb_sum() > 0 && step.reported_nodes_size() > 0) {
      s.usage.ave_rss_kb =
          static_cast<std::int64_t>(step.ave_rss_kb_sum() / static_cast<std::uint64_t>(step.reported_nodes_size()));
    }
    // Per-task figures, where the supervisors sent them, give every Max/Min/Ave field.
    acct::addTaskUsage(taskUsageFromWire(step.task_usage()), &s.usage);
  }
  stageStepRecord(std::move(s));
}

void JobManager::endSteps(Job& job, v1::SignalStepRequest::KillReason reason) {
  if (job.info.steps_size() == 0) return;
  for (auto& step : *job.info.mutable_steps()) {
    SignalAction kill;
    kill.job_id = job.id();
    for (const auto& n : step.nodes()) {
      const auto& reported = step.reported_nodes();
      if (std::find(reported.begin(), reported.end(), n.node()) == reported.end()) {
        kill.nodes.push_back(n.node());
      }
    }
    nameStep(kill.request.mutable_step(), job, step.step_id());
    kill.request.set_signal(SIGKILL);
    kill.request.set_kill(true);
    kill.request.set_kill_reason(reason);
    if (!kill.nodes.empty()) signals_.push_back(std::move(kill));
    step.set_cancelled(true);
    recordStep(job, step, true);
  }
  // A finished job keeps them: srun may have seen its tasks end before their supervisors'
  // reports arrived here; a late report then corrects the record (numberedStepEvent).
  if (!isFinal(job.state())) job.info.clear_steps();
}

void JobManager::killBatchStep(const Job& job, std::vector<std::string> nodes,
                               v1::SignalStepRequest::KillReason reason, bool batch_shell_only) {
  SignalAction kill;
  kill.job_id = job.id();
  kill.nodes = std::move(nodes);
  nameStep(kill.request.mutable_step(), job, acct::kBatchStep);
  kill.request.set_signal(SIGKILL);
  kill.request.set_batch_shell_only(batch_shell_only);
  kill.request.set_kill(true);
  kill.request.set_kill_reason(reason);
  signals_.push_back(std::move(kill));
}

void JobManager::signalSteps(const Job& job, int signal) {
  for (const auto& step : job.info.steps()) {
    SignalAction a;
    a.job_id = job.id();
    for (const auto& n : step.nodes()) a.nodes.push_back(n.node());
    nameStep(a.request.mutable_step(), job, step.step_id());
    a.request.set_signal(signal);
    signals_.push_back(std::move(a));
  }
}

v1::CancelResult JobManager::cancelStep(const Caller& caller, const std::string& text, int signal) {
  const auto dot = text.find('.');
  std::string_view step_text = std::string_view(text).substr(dot + 1);
  std::int64_t step_id = 0;
  auto [p, ec] = std::from_chars(step_text.data(), step_text.data() + step_text.size(), step_id);
  auto ids = resolveIds(text.substr(0, dot));
  if (ec != std::errc() || p != step_text.data() + step_text.size() || step_id < 0 || !ids ||
      ids->size() != 1) {
    return cancelResult(text, kInvalidJobId);
  }
  Job& job = jobs_.at(ids->front());
  if (!owns(caller, job)) return cancelResult(text, kDenied);
  // A step that is not running, whether it ended, its job ended or it never was: the
  // reference's "Invalid job id specified" (a pending job's: "Job is pending execution").
  if (isFinal(job.state())) return cancelResult(text, kInvalidJobId);
  if (!holdsResources(job.state())) return cancelResult(text, kPending);
  const int index = stepIndex(job, step_id);
  if (index < 0) return cancelResult(text, kInvalidJobId);
  v1::JobStep& step = *job.info.mutable_steps(index);
  SignalAction a;
  a.job_id = job.id();
  for (const auto& n : step.nodes()) a.nodes.push_back(n.node());
  nameStep(a.request.mutable_step(), job, step_id);
  if (signal == 0 || signal == SIGKILL) {
    a.request.set_signal(SIGKILL);
    a.request.set_kill(true);
    a.request.set_kill_reason(v1::SignalStepRequest::CANCELLED);
    a.request.set_at_once(true);
    step.set_cancelled(true);
    stage(job);
  } else {
    a.request.set_signal(signal);
  }
  signals_.push_back(std::move(a));
  return cancelResult(text);
}

Status JobManager::completeAllocation(const Caller& caller,
                                      const v1::CompleteAllocationRequest& request) {
  Job* job = mutableJob(request.job_id());
  if (job == nullptr) return makeError(kInvalidJobId);
  if (!owns(caller, *job)) return makeError(kDenied);
  if (job->info.batch()) {
    return makeError("Job " + std::to_string(job->id()) +
                     " is a batch job, not an interactive allocation (srun/salloc)");
  }
  if (isFinal(job->state())) return makeError(kAlreadyDone);
  if (!holdsResources(job->state())) {
    // Released before it ran (salloc interrupted while waiting).
    job->info.set_cancelled_by(std::to_string(caller.uid));
    finish(*job, v1::JOB_CANCELLED, 0, 0, nullptr);
    return okStatus();
  }
  const bool failed = request.exit_code() != 0 || request.exit_signal() != 0;
  finish(*job, failed ? v1::JOB_FAILED : v1::JOB_COMPLETED, request.exit_code(),
         request.exit_signal(), nullptr);
  return okStatus();
}

}  // namespace drover::jobs
