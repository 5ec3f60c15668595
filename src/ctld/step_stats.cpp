#include "ctld/step_stats.h"

#include <algorithm>

#include "acct/task_usage.h"
#include "ctld/acct_wire.h"
#include "drover/accounting.h"
#include "drover/hostlist.h"
#include "jobs/task_usage_wire.h"

namespace drover::ctld {
namespace {

acct::StepRecord stepRecord(std::uint64_t job_id, const StatStep& step) {
  acct::StepRecord r;
  r.job_id = job_id;
  r.step_id = step.step_id;
  r.name = acct::stepIdName(step.step_id);
  r.nnodes = static_cast<std::uint32_t>(step.nodes.size());
  r.ntasks = step.ntasks;
  r.node_list = hostlist::compress(step.nodes);
  // As Slurm's sstat: the batch step's requested CPU frequencies are 0, an srun step's
  // Unknown (none asked for).
  if (step.step_id == acct::kBatchStep) r.req_cpu_freq_min = r.req_cpu_freq_max = r.req_cpu_freq_gov = 0;
  return r;
}

}  // namespace

std::string unknownJobText(std::uint64_t job_id) {
  return "couldn't get steps for job " + std::to_string(job_id);
}

std::string noStepsRunningText(std::uint64_t job_id) {
  return "No steps running for job " + std::to_string(job_id);
}

std::string stepNotRunningText(std::uint64_t job_id, std::int64_t step_id) {
  return "StepId=" + std::to_string(job_id) + "." + acct::stepIdName(step_id) +
         " not found running.";
}

Result<std::vector<StatStep>> selectStatSteps(const v1::JobInfo& job,
                                              const v1::GetStepStatsRequest& request) {
  if (job.state() != v1::JOB_RUNNING && job.state() != v1::JOB_SUSPENDED) {
    return makeError(noStepsRunningText(job.job_id()));
  }
  std::vector<StatStep> numbered;
  for (const auto& s : job.steps()) {
    StatStep step{s.step_id(), {}, s.ntasks()};
    for (const auto& n : s.nodes()) step.nodes.push_back(n.node());
    numbered.push_back(std::move(step));
  }
  std::sort(numbered.begin(), numbered.end(),
            [](const StatStep& a, const StatStep& b) { return a.step_id < b.step_id; });
  std::vector<StatStep> out;
  const bool has_batch = job.batch() && !job.batch_host().empty();
  if (request.has_step_id()) {
    if (request.step_id() == acct::kBatchStep && has_batch) {
      out.push_back(StatStep{acct::kBatchStep, {job.batch_host()}, 1});
      return out;
    }
    for (auto& s : numbered) {
      if (s.step_id == request.step_id()) return std::vector<StatStep>{std::move(s)};
    }
    return makeError(stepNotRunningText(job.job_id(), request.step_id()));
  }
  if (request.all_steps()) {
    if (has_batch) out.push_back(StatStep{acct::kBatchStep, {job.batch_host()}, 1});
    for (auto& s : numbered) out.push_back(std::move(s));
    return out;
  }
  if (!numbered.empty()) out.push_back(std::move(numbered.front()));
  return out;
}

v1::StepStats foldStepStats(std::uint64_t job_id, const StatStep& step,
                            const std::vector<NodeAnswer>& answers) {
  acct::StepRecord record = stepRecord(job_id, step);
  v1::StepStats stats;
  google::protobuf::RepeatedPtrField<v1::TaskUsage> tasks;
  for (const auto& a : answers) {
    if (!a.error.empty()) {
      stats.add_node_errors(a.node + ": " + a.error);
      continue;
    }
    for (const auto& t : a.usage.tasks()) *tasks.Add() = t;
    for (int pid : a.usage.pids()) stats.add_pids(pid);
  }
  acct::addTaskUsage(jobs::taskUsageFromWire(tasks), &record.usage);
  *stats.mutable_step() = toWire(record);
  // The task that wrote least (ties: the lowest task, as addTaskUsage's extremes).
  const v1::TaskUsage* least = nullptr;
  for (const auto& t : tasks) {
    if (!least || t.write_bytes() < least->write_bytes() ||
        (t.write_bytes() == least->write_bytes() && t.task() < least->task()))
      least = &t;
  }
  if (least) {
    stats.set_tres_usage_out_min("energy=0,fs/disk=" + std::to_string(least->write_bytes()));
    stats.set_tres_usage_out_min_node("energy=" + least->node() + ",fs/disk=" + least->node());
    stats.set_tres_usage_out_min_task("fs/disk=" + std::to_string(least->task()));
  }
  return stats;
}

v1::StepStats deniedStepStats(std::uint64_t job_id, const StatStep& step) {
  v1::StepStats stats;
  *stats.mutable_step() = toWire(stepRecord(job_id, step));
  stats.set_permission_denied(true);
  return stats;
}

}  // namespace drover::ctld
