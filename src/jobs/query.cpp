// squeue / scontrol show job: the table as v1::JobInfo, filtered, with pending array tasks
// folded into one row ("29_[2-9%2]") unless -r asks for one row per task.
#include <algorithm>
#include <iterator>
#include <set>

#include "common/comma_list.h"
#include "drover/hostlist.h"
#include "jobs/job_fields.h"
#include "jobspec/array_spec.h"
#include "jobs/job_manager.h"

namespace drover::jobs {

namespace {

// squeue -p: a waiting job of several partitions ("gpu,debug") matches any of them, as the
// reference's `squeue -p debug` listed it.
bool inAnyPartition(const google::protobuf::RepeatedPtrField<std::string>& wanted,
                    const std::string& partitions) {
  auto named = [&](const std::string& name) {
    return std::find(wanted.begin(), wanted.end(), name) != wanted.end();
  };
  if (partitions.find(',') == std::string::npos) return named(partitions);
  const std::vector<std::string> listed = splitCommas(partitions);
  return std::any_of(listed.begin(), listed.end(), named);
}

}  // namespace

std::vector<v1::JobInfo> JobManager::query(const v1::GetJobsRequest& req) const {
  google::protobuf::RepeatedPtrField<v1::JobInfo> rows;
  query(req, &rows);
  return {std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end())};
}

void JobManager::query(const v1::GetJobsRequest& req,
                       google::protobuf::RepeatedPtrField<v1::JobInfo>* out) const {
  const std::int64_t now = clock_.now();
  std::set<JobId> wanted;
  bool by_id = req.job_ids_size() > 0;
  for (const std::string& text : req.job_ids()) {
    auto ids = resolveIds(text);
    if (ids) wanted.insert(ids->begin(), ids->end());
  }
  std::vector<std::string> nodes;
  if (!req.nodes().empty()) {
    auto hosts = hostlist::expand(req.nodes());
    if (hosts) nodes = *hosts;
  }
  std::vector<v1::JobState> states;
  for (const auto& s : req.states()) {
    if (auto st = parseJobStateName(s)) states.push_back(*st);
  }
  bool all_states = std::any_of(req.states().begin(), req.states().end(),
                                [](const std::string& s) { return s == "all" || s == "ALL"; });
  auto in = [](const auto& list, const std::string& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };

  const JobFieldMask mask = JobFieldMask::fromRequest(req);
  const bool preempt_eligible = mask.wants(v1::JobInfo::kPreemptEligibleTimeFieldNumber);
  // Pending tasks of each array, folded when -r is not given.
  std::map<JobId, std::vector<const Job*>> folded;
  for (const auto& [id, job] : jobs_) {
    const v1::JobInfo& i = job.info;
    if (by_id && !wanted.count(id)) continue;
    bool final = isFinal(i.state());
    if (!states.empty() && !all_states) {
      // A job being cancelled is CANCELLED with the COMPLETING flag: -t matches either. One
      // being requeued is only COMPLETING (the reference's -t PD did not list it).
      auto listed = [&](v1::JobState s) {
        return std::find(states.begin(), states.end(), s) != states.end();
      };
      const auto into = killedInto(job);
      bool match = !into ? listed(i.state())
                         : listed(v1::JOB_COMPLETING) || (isFinal(*into) && listed(*into));
      if (!match) continue;
    } else if (final && !req.include_finished() && !all_states && !by_id) {
      continue;
    }
    if (req.users_size() > 0 && !in(req.users(), i.user()) &&
        !in(req.users(), std::to_string(i.uid())))
      continue;
    if (req.partitions_size() > 0 && !inAnyPartition(req.partitions(), i.partition())) continue;
    if (!in(req.names(), i.name())) continue;
    if (!in(req.accounts(), i.account())) continue;
    if (!nodes.empty()) {
      bool any = false;
      for (const auto& a : i.allocation())
        any = any || std::find(nodes.begin(), nodes.end(), a.node()) != nodes.end();
      if (!any) continue;
    }
    if (job.isArrayTask() && i.state() == v1::JOB_PENDING && !req.array_tasks_expanded()) {
      folded[i.array_job_id()].push_back(&job);
      continue;
    }
    v1::JobInfo& copy = *out->Add();
    mask.copy(i, &copy);
    if (preempt_eligible) copy.set_preempt_eligible_time(preemptEligibleTime(job));
    if (beingKilled(job)) {
      copy.set_state(v1::JOB_COMPLETING);
      copy.set_run_time_s(std::max<std::int64_t>(0, i.end_time() - i.start_time()));
    } else if (holdsResources(i.state())) {
      std::int64_t end = i.state() == v1::JOB_SUSPENDED ? i.suspend_time() : now;
      copy.set_run_time_s(std::max<std::int64_t>(0, end - i.start_time()));
    }
  }
  for (const auto& [array_id, tasks] : folded) {
    if (tasks.size() == 1) {
      mask.copy(tasks.front()->info, out->Add());
      continue;
    }
    std::vector<std::uint32_t> ids;
    for (const Job* t : tasks) ids.push_back(static_cast<std::uint32_t>(t->info.array_task_id()));
    std::sort(ids.begin(), ids.end());
    v1::JobInfo& row = *out->Add();
    mask.copy(tasks.front()->info, &row);
    row.set_job_id(array_id);
    row.set_array_task_id(-1);
    std::string pending = jobspec::compressIds(ids);
    // From the task, not the row: the row holds only the fields the caller asked for.
    const std::uint32_t max_running = tasks.front()->info.array_max_running();
    if (max_running > 0) pending += "%" + std::to_string(max_running);
    row.set_array_task_pending(pending);
  }
}

}  // namespace drover::jobs
