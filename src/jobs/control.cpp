// What users and admins do to jobs: scancel, scontrol hold/release/requeue/suspend/top/update.
#include <algorithm>
#include <charconv>
#include <csignal>
#include <optional>

#include "drover/hostlist.h"
#include "common/slurm_errors.h"
#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "drover/time_spec.h"
#include "config/association_tree.h"
#include "jobs/job_manager.h"
#include "jobs/request.h"
#include "jobspec/array_spec.h"
#include "jobspec/dependency_spec.h"
#include "jobspec/gres_spec.h"
#include "jobstate/job_update_keys.h"

namespace drover::jobs {

namespace {

constexpr const char* kDenied = "Access/permission denied";
// What Slurm's scontrol update, hold and release say of a job the caller does not own (scancel
// says kDenied, golden 066).
constexpr const char* kNotOwner = "Invalid user id";
constexpr const char* kNotPending = "Job is no longer pending execution";
// What Slurm's scontrol update says of a job (or array task) that ended.
constexpr const char* kFinished = "Job has already finished";
constexpr const char* kPending = "Job is pending execution";
constexpr const char* kNotSuspended = "Job is not suspended";
constexpr const char* kNotRunning = "Job is not running";

std::optional<std::uint64_t> parseNumber(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

v1::CancelResult result(const std::string& id, const char* error = nullptr) {
  v1::CancelResult r;
  r.set_job_id(id);
  r.set_ok(error == nullptr);
  if (error) r.set_error(error);
  return r;
}

std::string displayId(const Job& job) {
  if (!job.isArrayTask()) return std::to_string(job.id());
  return std::to_string(job.info.array_job_id()) + "_" + std::to_string(job.info.array_task_id());
}

// scontrol update's node selection keys, on the spec (what the scheduler reads) and on the
// info fields show job prints (ReqNodeList=, ExcNodeList=, Features=).
void setNodeSelection(v1::JobInfo& info, const std::string& key, const std::string& value) {
  if (key == "excnodelist") {
    info.mutable_spec()->set_exclude(value);
    info.set_exc_nodes(value);
  } else if (key == "features") {
    info.mutable_spec()->set_constraint(value);
    info.set_features(value);
  } else {
    info.mutable_spec()->set_nodelist(value);
    info.set_req_nodes(value);
  }
}

// scontrol update's keys for what a pending job asks for (tasks, CPUs per task, memory,
// GPUs per node), applied to `info`'s spec; an error text for a value that does not read.
std::optional<std::string> setResourceRequest(v1::JobInfo& info, const std::string& key,
                                              const std::string& value) {
  v1::JobSpec& spec = *info.mutable_spec();
  if (key == "gres" || key == "trespernode") {
    std::string_view text = value;
    if (text.substr(0, 5) == "gres:") text.remove_prefix(5);
    auto list = jobspec::parseGresList(text);
    if (!list) return "Invalid generic resource (gres) specification";
    spec.clear_gres();
    spec.clear_gpus_per_node();
    for (const auto& g : *list) {
      if (g.name != "gpu") return "Invalid generic resource (gres) specification";
      auto* out = spec.add_gres();
      out->set_name(g.name);
      if (g.type) out->set_type(*g.type);
      out->set_count(static_cast<std::uint32_t>(g.count));
    }
    return std::nullopt;
  }
  auto n = parseNumber(value);
  if (!n || *n > UINT32_MAX || (*n == 0 && key != "minmemorycpu" && key != "minmemorynode")) {
    return "Invalid " + key + " value: " + value;
  }
  const auto count = static_cast<std::uint32_t>(*n);
  if (key == "numtasks") {
    spec.set_ntasks(count);
    info.set_num_tasks(count);
  } else if (key == "cpuspertask") {
    spec.set_cpus_per_task(count);
  } else if (key == "minmemorycpu") {
    spec.set_mem_per_cpu_mb(*n);
    spec.set_mem_per_node_mb(0);
    spec.set_mem_set(false);
  } else {  // minmemorynode
    spec.set_mem_per_node_mb(*n);
    spec.set_mem_per_cpu_mb(0);
    spec.set_mem_set(true);
  }
  return std::nullopt;
}

bool isResourceKey(const std::string& key) {
  return key == "numtasks" || key == "cpuspertask" || key == "minmemorycpu" || key == "minmemorynode" ||
         key == "gres" || key == "trespernode";
}

}  // namespace

Result<std::vector<JobId>> JobManager::resolveIds(const std::string& text) const {
  std::string_view t = text;
  std::size_t us = t.find('_');
  auto id = parseNumber(t.substr(0, us));
  if (!id || isTaskKey(*id)) return makeError(kInvalidJobId);  // task keys are never ids
  if (us == std::string_view::npos) {
    if (auto arr = arrays_.find(*id); arr != arrays_.end()) return arr->second;
    if (jobs_.count(*id)) return std::vector<JobId>{*id};
    return makeError(kInvalidJobId);
  }
  auto arr = arrays_.find(*id);
  if (arr == arrays_.end()) return makeError(kInvalidJobId);
  std::string_view tasks = t.substr(us + 1);
  if (tasks == "*") return arr->second;
  if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']') {
    tasks = tasks.substr(1, tasks.size() - 2);
  }
  auto spec = jobspec::parseArraySpec(tasks, 4'000'000'000u);
  if (!spec) return makeError(kInvalidJobId);
  std::vector<std::uint32_t> wanted = spec->taskIds();
  std::vector<JobId> out;
  for (JobId tid : arr->second) {
    auto task = static_cast<std::uint32_t>(jobs_.at(tid).info.array_task_id());
    if (std::binary_search(wanted.begin(), wanted.end(), task)) out.push_back(tid);
  }
  if (out.empty()) return makeError(kInvalidJobId);
  return out;
}

std::vector<v1::CancelResult> JobManager::cancel(const Caller& caller,
                                                 const v1::CancelJobsRequest& req) {
  std::vector<v1::CancelResult> results;
  // Each job as the caller named it, or a result already known (a step, an unknown id), in the
  // order of the request, so scancel reports in that order however many ids one call carries.
  struct Target {
    JobId id = 0;
    std::string shown;
    std::optional<v1::CancelResult> known;
  };
  std::vector<Target> targets;
  targets.reserve(static_cast<std::size_t>(req.job_ids_size()));
  bool filtered = !req.user().empty() || !req.name().empty() || req.states_size() > 0 ||
                  !req.partition().empty() || !req.nodes().empty() || !req.account().empty() ||
                  !req.qos().empty() || !req.reservation().empty() || !req.wckey().empty();
  std::vector<std::string> filter_nodes;
  if (!req.nodes().empty()) {
    auto hosts = hostlist::expand(req.nodes());
    if (hosts) filter_nodes = *hosts;
  }
  auto matches = [&](const Job& job) {
    const v1::JobInfo& i = job.info;
    if (!req.user().empty() && i.user() != req.user() && std::to_string(i.uid()) != req.user())
      return false;
    if (!req.name().empty() && i.name() != req.name()) return false;
    if (!req.partition().empty() && i.partition() != req.partition()) return false;
    if (!req.account().empty() && i.account() != req.account()) return false;
    // As the reference's: `-q NORMAL` took the jobs of QOS normal.
    if (!req.qos().empty() && !equalsIgnoreCase(req.qos(), i.qos().empty() ? "normal" : i.qos()))
      return false;
    if (!req.reservation().empty() && i.spec().reservation() != req.reservation()) return false;
    if (!req.wckey().empty()) return false;  // no Drover job has a wckey
    if (req.states_size() > 0) {
      bool any = false;
      for (const auto& s : req.states()) any = any || parseJobStateName(s) == i.state();
      if (!any) return false;
    }
    if (!filter_nodes.empty()) {
      auto nodes = nodesOf(job);
      bool any = false;
      for (const auto& n : nodes)
        any = any || std::find(filter_nodes.begin(), filter_nodes.end(), n) != filter_nodes.end();
      if (!any) return false;
    }
    return true;
  };
  if (req.job_ids_size() == 0) {
    for (const auto& [id, job] : jobs_) {
      // Filters select live jobs only; and without -u a user's filters cover their own jobs.
      if (!filtered || isFinal(job.state()) || !matches(job)) continue;
      if (req.user().empty() && !isAdmin(caller) && job.info.uid() != caller.uid) continue;
      targets.push_back({id, displayId(job), std::nullopt});
    }
  }
  for (const std::string& text : req.job_ids()) {
    if (text.find('.') != std::string::npos) {
      if (req.dry_run()) {
        // The job the step belongs to names the prompt; what the step itself allows is the
        // real call's to say.
        const auto job_ids = resolveIds(text.substr(0, text.find('.')));
        if (job_ids && job_ids->size() == 1) {
          targets.push_back({job_ids->front(), text, std::nullopt});
        } else {
          targets.push_back({0, text, result(text, kInvalidJobId)});
        }
        continue;
      }
      targets.push_back({0, text, cancelStep(caller, text, req.signal())});  // steps.cpp
      continue;
    }
    auto ids = resolveIds(text);
    if (!ids) {
      targets.push_back({0, text, result(text, kInvalidJobId)});
      continue;
    }
    for (JobId id : *ids) {
      if (!filtered || matches(jobs_.at(id))) {
        targets.push_back({id, ids->size() == 1 ? text : displayId(jobs_.at(id)), std::nullopt});
      }
    }
  }

  results.reserve(targets.size());
  for (auto& [id, shown, known] : targets) {
    if (known) {
      results.push_back(std::move(*known));
      continue;
    }
    Job& job = jobs_.at(id);
    if (!owns(caller, job)) {
      results.push_back(result(shown, kDenied));
      continue;
    }
    if (ended(job)) {
      results.push_back(result(shown, kAlreadyDone));
      continue;
    }
    const bool signalling = req.signal() != 0 && req.signal() != SIGKILL;
    if (signalling && !holdsResources(job.state())) {
      results.push_back(result(shown, kPending));
      continue;
    }
    if (req.dry_run()) {
      v1::CancelResult would = result(shown);
      would.set_name(job.info.name());
      would.set_partition(job.info.partition());
      results.push_back(std::move(would));
      continue;
    }
    if (signalling) {
      // scancel(1): without --batch or --full a signal other than SIGKILL reaches only the
      // job's numbered (srun) steps, never the batch shell; --batch signals the shell alone;
      // --full the batch step's every process and the steps (which it wins over --batch).
      const bool batch_shell = req.batch_only() && !req.full();
      if (req.full() || batch_shell) {
        SignalAction a;
        a.job_id = id;
        a.nodes = std::vector<std::string>{job.info.batch_host()};
        nameStep(a.request.mutable_step(), job, acct::kBatchStep);
        a.request.set_signal(req.signal());
        a.request.set_batch_shell_only(batch_shell);
        signals_.push_back(std::move(a));
      }
      if (!batch_shell) signalSteps(job, req.signal());  // steps.cpp
      results.push_back(result(shown));
      continue;
    }
    job.info.set_cancelled_by(std::to_string(caller.uid));
    if (!job.info.batch() && holdsResources(job.state())) {
      // An interactive allocation has no batch step to wait for: it ends now, its steps killed.
      finish(job, v1::JOB_CANCELLED, 0, 0, nullptr);
      results.push_back(result(shown));
      continue;
    }
    if (!holdsResources(job.state())) {
      finish(job, v1::JOB_CANCELLED, 0, 0, nullptr);
    } else if (requeueing(job)) {
      // Pending again for Slurm while its processes are killed (that kill is under way): its
      // run stays REQUEUED and the job it went back to is cancelled (lifecycle.cpp).
      job.pending_end = PendingEnd::kRequeueCancel;
      stage(job);
    } else {
      // Slurm marks the job CANCELLED at once and COMPLETING while its processes are killed;
      // the end (and so the elapsed time) is now, not when the step reports.
      job.pending_end = PendingEnd::kCancel;
      job.info.set_end_time(clock_.now());
      stage(job);
      record(job);
      killBatchStep(job, req.batch_only() ? std::vector<std::string>{job.info.batch_host()} : nodesOf(job),
                    v1::SignalStepRequest::CANCELLED, req.batch_only());
    }
    results.push_back(result(shown));
  }
  return results;
}

void JobManager::moveToTop(Job& job) {
  // scontrol(1): to the top of the owner's pending jobs of the same partition, account and QOS,
  // "by adjusting job nice values", with a net effect on the user's throughput of "negligible
  // to slightly negative". Priority falls by one per point of nice: the job's nice drops by its
  // gap to the highest of them (plus one), and each job it passes gets that much more nice, so
  // the user gains nothing over other users.
  std::vector<Job*> ahead;
  std::int64_t highest = job.info.priority() - 1;
  for (auto& [oid, other] : jobs_) {
    const v1::JobInfo& o = other.info;
    if (oid == job.id() || other.state() != v1::JOB_PENDING || o.uid() != job.info.uid() ||
        o.partition() != job.info.partition() || o.account() != job.info.account() ||
        o.qos() != job.info.qos() || o.priority() < job.info.priority()) {
      continue;
    }
    ahead.push_back(&other);
    highest = std::max<std::int64_t>(highest, o.priority());
  }
  // Nice is an int; priorities reach 2^32, so a gap past what nice holds is cut there.
  const std::int64_t wanted = highest - job.info.priority() + 1;
  if (wanted <= 0) return;
  const int gap = static_cast<int>(std::min<std::int64_t>(wanted, 1 << 30));
  job.info.set_nice(job.info.nice() - gap);
  job.info.set_priority(job.info.priority() + gap);
  for (Job* other : ahead) {
    other->info.set_nice(other->info.nice() + gap);
    other->info.set_priority(std::max<std::int64_t>(0, other->info.priority() - gap));
    rebuildRequest(*other);
    stage(*other);
    record(*other);
  }
}

std::vector<v1::CancelResult> JobManager::control(const Caller& caller,
                                                  const v1::JobControlRequest& req) {
  std::vector<v1::CancelResult> results;
  const std::string& action = req.action();
  const bool admin = isAdmin(caller);
  if (action == "top" && !admin && !config_.scheduler.enable_user_top) {
    // Top is not for users here at all: the reference refused the list as one, named as given.
    std::string list;
    for (const std::string& text : req.job_ids()) list += (list.empty() ? "" : ",") + text;
    return {result(list, kDenied)};
  }
  if ((action == "suspend" || action == "resume") && !admin) {
    // Operators' only: the reference refused a user each id as given before looking at its
    // tasks (a whole array in one line, a task the array lacks too), once its job was known.
    for (const std::string& text : req.job_ids()) {
      const bool known = resolveIds(text.substr(0, text.find('_'))).ok();
      results.push_back(result(text, known ? kDenied : kInvalidJobId));
    }
    return results;
  }
  // Another user's job: hold, uhold and release say they are not the owner's, as the
  // reference's; requeue and a user's top (where users may use it) are refused outright (its
  // "Access/permission denied", as for scancel).
  const bool owners_word = action == "hold" || action == "uhold" || action == "release";
  for (const std::string& text : req.job_ids()) {
    auto ids = resolveIds(text);
    if (!ids) {
      results.push_back(result(text, kInvalidJobId));
      continue;
    }
    for (JobId id : *ids) {
      Job& job = jobs_.at(id);
      std::string shown = ids->size() == 1 ? text : displayId(job);
      if (!owns(caller, job)) {
        results.push_back(result(shown, owners_word ? kNotOwner : kDenied));
        continue;
      }
      const char* error = nullptr;
      v1::JobState st = job.state();
      // hold, uhold and release of a job that ended: the reference's "Job has already
      // finished" (kAlreadyDone is what scancel and suspend/resume say).
      // A running (or suspended) job may be held too, as the reference's: it goes on running,
      // shown with priority 0 and the held reason, and a requeue then leaves it held.
      if (action == "hold" || action == "uhold") {
        if (ended(job)) {
          error = kFinished;
        } else {
          if (action == "hold" && admin) job.info.set_held_admin(true);
          else job.info.set_held_user(true);
          job.info.clear_reason_description();  // a requeuehold's: the hold's own code now
        }
      } else if (action == "release") {
        if (ended(job)) {
          error = kFinished;
        } else if (job.info.held_admin() && !admin) {
          error = kDenied;
        } else {
          job.info.set_held_admin(false);
          job.info.set_held_user(false);
          job.info.clear_reason_description();
        }
      } else if (action == "requeue" || action == "requeuehold") {
        bool hold = action == "requeuehold";
        if (!job.info.batch()) {
          error = "Operation not permitted for a non-batch job";
        } else if (st == v1::JOB_PENDING || requeueing(job)) {
          error = kPending;  // requeuehold too, held or not, root too: as the reference
        } else if (holdsResources(st)) {
          // As the reference's: REQUEUED in accounting, ended now, while its processes are
          // killed (a job being cancelled keeps the end scancel gave it, and is requeued).
          if (!beingKilled(job)) job.info.set_end_time(clock_.now());
          job.pending_end = hold ? PendingEnd::kRequeueHold : PendingEnd::kRequeue;
          stage(job);
          record(job);
          killBatchStep(job, nodesOf(job), v1::SignalStepRequest::REQUEUED);
        } else {
          requeue(job, hold);
        }
      } else if (action == "suspend" || action == "resume") {
        bool suspend = action == "suspend";
        if (suspend && st != v1::JOB_RUNNING) {
          error = st == v1::JOB_PENDING ? kPending : isFinal(st) ? kAlreadyDone : kNotRunning;
        } else if (!suspend && st != v1::JOB_SUSPENDED) {
          error = isFinal(st) ? kAlreadyDone : kNotSuspended;
        } else {
          const std::int64_t now = clock_.now();
          if (suspend) {
            job.info.set_state(v1::JOB_SUSPENDED);
            job.info.set_suspend_time(now);
          } else {
            // The time limit does not run while suspended.
            job.info.set_end_time(job.info.end_time() + (now - job.info.suspend_time()));
            job.info.set_state(v1::JOB_RUNNING);
            job.info.set_suspend_time(now);
          }
          SignalAction a;
          a.job_id = id;
          a.nodes = nodesOf(job);
          nameStep(a.request.mutable_step(), job, acct::kBatchStep);
          a.request.set_signal(suspend ? SIGSTOP : SIGCONT);
          signals_.push_back(std::move(a));
        }
      } else if (action == "top") {
        if (st != v1::JOB_PENDING) {
          error = kNotPending;
        } else {
          moveToTop(job);
        }
      } else {
        results.push_back(result(shown, "Invalid job control action"));
        continue;
      }
      if (!error) {
        rebuildRequest(job);
        if (st == v1::JOB_PENDING && job.state() == v1::JOB_PENDING) {
          job.info.set_reason(std::string(sched::reasonName(initialReason(job))));
          refreshEligibility(job, clock_.now());
        }
        stage(job);
        record(job);
        changed();
      }
      results.push_back(result(shown, error));
    }
  }
  return results;
}

Status JobManager::updateJob(Job& job, const v1::UpdateJobRequest& req, bool admin, bool apply) {
  const JobId id = job.id();
  v1::JobInfo& i = job.info;
  const bool pending = job.state() == v1::JOB_PENDING || requeueing(job);
  for (const auto& [raw_key, value] : req.fields()) {
    const std::string key = toLowerAscii(raw_key);
    if (key == "timelimit") {
      auto minutes = parseTimeLimitMinutes(value);
      if (!minutes) return makeError("Invalid time limit specification");
      bool longer = *minutes < 0 ? i.time_limit_min() >= 0
                                 : i.time_limit_min() >= 0 && *minutes > i.time_limit_min();
      // A user may lengthen a pending job's limit up to its partition's MaxTime (each one's,
      // for a job of several), never a started one's (the reference: 1:00:00 -> 3:00:00 and
      // 1-00:00:00 taken while pending, 2-00:00:00 over MaxTime "Access/permission denied").
      bool over_partition = false;
      for (const auto* part : partitionsOf(i)) {
        over_partition = over_partition || (part->max_time_min != config::kUnlimited &&
                                            (*minutes < 0 || *minutes > part->max_time_min));
      }
      if (longer && !admin && (!pending || over_partition)) return makeError(kDenied);
      if (!admin && over_partition) {
        return makeError("Requested time limit is invalid (missing or exceeds some limit)");
      }
      if (apply) {
        if (holdsResources(job.state())) {
          i.set_end_time(*minutes < 0 ? i.start_time() + 365LL * 24 * 3600
                                      : i.start_time() + *minutes * 60);
        }
        i.set_time_limit_min(*minutes);
        i.mutable_spec()->set_time_limit_min(*minutes);
      }
    } else if (key == "partition") {
      // A running job already there keeps it: Slurm took Partition=<its own> without a word.
      if (!pending && value == i.partition()) continue;
      if (!pending) return makeError(kNotPending);
      // One partition or several (`Partition=gpu,debug`), each of which must exist.
      std::vector<std::string> names = splitCommas(value);
      if (names.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
            return config_.findPartition(n) == nullptr;
          })) {
        return makeError("Invalid partition name specified");
      }
      // As at submission: DRAIN and INACTIVE partitions take no job (the reference refused
      // Partition=<drained> with these words); a list keeps the others.
      std::erase_if(names, [&](const std::string& n) {
        return !takesNewJobs(*config_.findPartition(n));
      });
      if (names.empty()) return makeError("Required partition not available (inactive or drain)");
      if (apply) {
        const std::string kept = joinCommas(names);
        i.set_partition(partitionList(kept));
        i.mutable_spec()->set_partition(kept);
      }
    } else if (key == "numnodes" || key == "minnodes") {
      if (!pending) return makeError(kNotPending);
      std::string lo = value.substr(0, value.find('-'));
      auto n = parseNumber(lo);
      if (!n || *n == 0) return makeError("Invalid node count specified");
      // More nodes than the partition has (or lets a job have): the reference's refusal, where
      // Drover took the count and the job waited for ever.
      for (const auto* part : partitionsOf(i)) {
        std::uint64_t part_nodes = 0;
        for (const auto& node : config_nodes_) {
          if (std::find(node.partitions.begin(), node.partitions.end(), part->name) != node.partitions.end())
            ++part_nodes;
        }
        if (*n > part_nodes || (part->max_nodes != config::kUnlimited &&
                                *n > static_cast<std::uint64_t>(part->max_nodes))) {
          return makeError("Requested partition configuration not available now");
        }
      }
      if (apply) {
        i.mutable_spec()->set_min_nodes(static_cast<std::uint32_t>(*n));
        if (value.find('-') != std::string::npos) {
          auto hi = parseNumber(std::string_view(value).substr(value.find('-') + 1));
          i.mutable_spec()->set_max_nodes(hi ? static_cast<std::uint32_t>(*hi) : 0);
        }
        i.set_num_nodes(static_cast<std::uint32_t>(*n));
      }
    } else if (key == "dependency") {
      if (!pending) return makeError(kNotPending);
      std::optional<jobspec::DependencySpec> dep;
      if (!value.empty()) {
        auto parsed = jobspec::parseDependencySpec(value);
        if (!parsed) return makeError("Job dependency problem");
        dep = *parsed;
      }
      if (apply) {
        unindexDependents(job);
        job.dependency = dep;
        i.set_dependency(dep ? jobspec::formatDependency(*dep) : "");
        job.request.dependency =
            dep ? sched::DependencyState::Pending : sched::DependencyState::Satisfied;
        i.set_eligible_time(0);
        if (dep) with_dependencies_.insert(id);
        indexDependents(job);
      }
    } else if (key == "nice") {
      auto n = parseNumber(value[0] == '-' ? value.substr(1) : value);
      if (!n) return makeError("Invalid nice value");
      int nice = value[0] == '-' ? -static_cast<int>(*n) : static_cast<int>(*n);
      if (nice < 0 && !admin) return makeError(kDenied);
      if (apply) i.set_nice(nice);
    } else if (key == "name" || key == "jobname") {
      if (apply) {
        i.set_name(value);
        i.mutable_spec()->set_name(value);
      }
    } else if (key == "comment") {
      if (apply) i.mutable_spec()->set_comment(value);
    } else if (key == "account") {
      if (!pending) return makeError(kNotPending);
      if (!config_.accounts.empty()) {
        auto it = std::find_if(config_.accounts.begin(), config_.accounts.end(),
                               [&](const config::AccountConfig& a) { return a.name == value; });
        if (it == config_.accounts.end() ||
            (!admin && std::find(it->users.begin(), it->users.end(), i.user()) == it->users.end()))
          return makeError("Invalid account or account/partition combination specified");
      }
      if (apply) {
        i.set_account(value);
        i.mutable_spec()->set_account(value);
      }
    } else if (key == "excnodelist" || key == "reqnodelist" || key == "nodelist" ||
               key == "features") {
      // Where the job may run: checked as at submission (names that exist, features some
      // node of the partition has, enough nodes left to hold it); "" clears the list.
      if (!pending) return makeError(kNotPending);
      v1::JobInfo candidate = i;
      setNodeSelection(candidate, key, value);
      const sched::Validation v =
          sched::validateRequest(requestOf(candidate), config_nodes_, partitions_);
      if (!v.ok()) return makeError(v.message.substr(0, v.message.find(": ")));
      if (apply) setNodeSelection(i, key, value);
    } else if (key == "arraytaskthrottle") {
      // The whole array's limit on tasks running at once (0: none); it bounds only the
      // starts still to come, so it applies while tasks run too.
      if (!job.isArrayTask()) return makeError("Job is not an array job");
      auto n = parseNumber(value);
      if (!n || *n > UINT32_MAX) return makeError("Invalid ArrayTaskThrottle value");
      if (apply) i.set_array_max_running(static_cast<std::uint32_t>(*n));
    } else if (key == "qos") {
      // Of a pending job: a QOS of cluster.conf's table that the job's account may use (root
      // and operators may give any), as at submission; empty: the account's default, as the
      // reference's `QOS=` (2026-12-04).
      if (!pending) return makeError(kNotPending);
      const config::QosConfig* qos = config::qosFor(config_, i.account(), value, admin);
      if (!qos) return makeError("Invalid qos specification");
      if (apply) {
        i.set_qos(qos->name);
        i.mutable_spec()->set_qos(qos->name);
      }
    } else if (isResourceKey(key)) {
      // What the job asks for, checked as at submission: enough of it on some nodes of its
      // partition (the job would otherwise wait for ever).
      if (!pending) return makeError(kNotPending);
      v1::JobInfo candidate = i;
      if (auto why = setResourceRequest(candidate, key, value)) return makeError(*why);
      const sched::Validation v =
          sched::validateRequest(requestOf(candidate), config_nodes_, partitions_);
      if (!v.ok()) return makeError(v.message.substr(0, v.message.find(": ")));
      if (apply) setResourceRequest(i, key, value);
    } else if (key == "timemin") {
      auto minutes = parseTimeLimitMinutes(value);
      if (!minutes) return makeError("Invalid TimeMin specification");
      if (apply) i.mutable_spec()->set_time_min_min(*minutes);
    } else if (key == "requeue") {
      if (value != "0" && value != "1") return makeError("Invalid Requeue value");
      if (apply) {
        i.set_requeue(value == "1");
        i.mutable_spec()->set_requeue(value == "1");
        i.mutable_spec()->set_requeue_set(true);
      }
    } else if (key == "workdir" || key == "stdout") {
      // Where the job runs and writes: a pending job's only, its output paths expanded anew
      // (a relative StdOut= under the work directory, as at submission).
      if (!pending) return makeError(kNotPending);
      if (value.empty() || (key == "workdir" && value.front() != '/')) {
        return makeError("Invalid " + raw_key + " value: " + value);
      }
      if (apply) {
        if (key == "workdir") {
          i.set_work_dir(value);
          i.mutable_spec()->set_work_dir(value);
        } else {
          i.mutable_spec()->set_std_out(value);
        }
        expandJobPaths(i, "");
      }
    } else if (key == "starttime" || key == "begintime" || key == "eligibletime") {
      if (!pending) return makeError(kNotPending);
      auto t = parseNumber(value);
      if (!t) return makeError("Invalid time specification");
      if (apply) {
        i.mutable_spec()->set_begin_time(static_cast<std::int64_t>(*t));
        i.set_eligible_time(0);
      }
    } else if (key == "deadline") {
      // As the reference: a time already past is refused before the caller's rights are
      // looked at; then root and operators only; a started job's deadline stays as it was,
      // without a word (its limit was cut to it when it started).
      auto t = parseNumber(value);
      if (!t) return makeError("Invalid time specification");
      if (static_cast<std::int64_t>(*t) <= clock_.now()) return makeError("Invalid time specified");
      if (!admin) return makeError(kDenied);
      if (apply && pending) i.mutable_spec()->set_deadline(static_cast<std::int64_t>(*t));
    } else {
      return makeError("Update of this parameter is not supported: " + raw_key);
    }
  }
  if (apply) {
    live_.sync(job);  // QOS=, Account= and JobName= move it in the index
    rebuildRequest(job);
    job.info.set_req_tres(requestedTres(job.info, job.request));
    if (pending) job.info.set_reason(std::string(sched::reasonName(initialReason(job))));
  }
  return okStatus();
}

Result<v1::UpdateJobReply> JobManager::update(const Caller& caller, const v1::UpdateJobRequest& req) {
  auto ids = resolveIds(req.job_id());
  if (!ids) return makeError(kInvalidJobId);
  const bool admin = isAdmin(caller);
  for (JobId id : *ids) {
    if (!owns(caller, jobs_.at(id))) return makeError(kNotOwner);
  }
  for (const auto& [raw_key, value] : req.fields()) {
    if (!isUpdatableJobKey(toLowerAscii(raw_key))) {
      return makeError("Update of this parameter is not supported: " + raw_key);
    }
  }
  v1::UpdateJobReply reply;
  std::vector<JobId> updated;
  // Each job takes the whole update or none of it: every key checked before any is applied.
  auto updateWhole = [&](Job& job) -> Status {
    if (Status s = updateJob(job, req, admin, false); !s) return s;
    updateJob(job, req, admin, true);
    updated.push_back(job.id());
    return okStatus();
  };
  if (!jobs_.at(ids->front()).isArrayTask()) {
    Job& job = jobs_.at(ids->front());
    if (ended(job)) return makeError(kFinished);
    if (Status s = updateWhole(job); !s) return makeError(s.error());
  } else {
    // An array's tasks answer one by one, as Slurm's do (scontrol prints them by groups): the
    // pending tasks take a key only a pending job takes while the running ones refuse it, and
    // tasks that ended say so (the array's throttle, kept on every task, still changes there).
    reply.set_array_job_id(jobs_.at(ids->front()).info.array_job_id());
    std::vector<JobId> order = *ids;
    std::sort(order.begin(), order.end(), [&](JobId a, JobId b) {
      return jobs_.at(a).info.array_task_id() < jobs_.at(b).info.array_task_id();
    });
    for (JobId id : order) {
      Job& job = jobs_.at(id);
      v1::ArrayTaskUpdateResult* r = reply.add_tasks();
      r->set_task_id(static_cast<std::uint32_t>(job.info.array_task_id()));
      if (ended(job)) {
        r->set_error(kFinished);
        continue;
      }
      if (Status s = updateWhole(job); !s) r->set_error(s.error());
    }
    // The array's throttle is read from its first task, which may have ended: every task
    // keeps the one its open tasks took.
    bool throttle = false;
    for (const auto& [raw_key, value] : req.fields()) {
      throttle = throttle || toLowerAscii(raw_key) == "arraytaskthrottle";
    }
    if (throttle && !updated.empty()) {
      const std::uint32_t limit = jobs_.at(updated.front()).info.array_max_running();
      for (JobId id : order) {
        Job& job = jobs_.at(id);
        if (!ended(job)) continue;
        job.info.set_array_max_running(limit);
        updated.push_back(id);
      }
    }
  }
  if (!updated.empty()) {
    reevaluateDependencies();
    for (JobId id : updated) {
      Job& job = jobs_.at(id);
      refreshEligibility(job, clock_.now());
      stage(job);
      record(job);
    }
    changed();
  }
  return reply;
}

}  // namespace drover::jobs
