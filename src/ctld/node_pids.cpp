#include "ctld/node_pids.h"

#include <algorithm>

#include "drover/accounting.h"

namespace drover::ctld {

std::vector<NodeStep> stepsOnNode(const std::vector<v1::JobInfo>& jobs, const std::string& node,
                                  const v1::ListPidsRequest& request) {
  std::vector<NodeStep> out;
  const auto wanted = [&](std::int64_t step_id) {
    return !request.has_step_id() || request.step_id() == step_id;
  };
  for (const auto& job : jobs) {
    if (job.state() != v1::JOB_RUNNING && job.state() != v1::JOB_SUSPENDED) continue;
    if (request.job_id() != 0 && job.job_id() != request.job_id()) continue;
    const std::int64_t end = job.end_time();
    const std::uint32_t run = job.restart_count();
    if (job.batch() && job.batch_host() == node && wanted(acct::kBatchStep)) {
      out.push_back({job.job_id(), acct::kBatchStep, end, run});
    }
    for (const auto& s : job.steps()) {
      if (!wanted(s.step_id())) continue;
      // A node that reported its part over has no processes of it left.
      const bool here = std::any_of(s.nodes().begin(), s.nodes().end(),
                                    [&](const auto& n) { return n.node() == node; }) &&
                        std::find(s.reported_nodes().begin(), s.reported_nodes().end(), node) ==
                            s.reported_nodes().end();
      if (here) out.push_back({job.job_id(), s.step_id(), end, run});
    }
  }
  std::sort(out.begin(), out.end(), [](const NodeStep& a, const NodeStep& b) {
    return a.job_id != b.job_id ? a.job_id < b.job_id : a.step_id < b.step_id;
  });
  return out;
}

v1::StepPids stepPids(const NodeStep& step, const v1::StepUsage& usage, const std::string& error) {
  v1::StepPids row;
  row.set_job_id(step.job_id);
  row.set_step_id(step.step_id);
  row.set_job_end_time(step.job_end_time);
  if (!error.empty()) {
    row.set_error(error);
    return row;
  }
  for (const auto& t : usage.task_processes()) *row.add_tasks() = t;
  std::sort(row.mutable_tasks()->begin(), row.mutable_tasks()->end(),
            [](const v1::TaskProcesses& a, const v1::TaskProcesses& b) { return a.task() < b.task(); });
  return row;
}

}  // namespace drover::ctld
