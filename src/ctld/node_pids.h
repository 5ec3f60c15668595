#pragma once
// scontrol listpids and pidinfo, the controller's pure part: which running steps have tasks
// on a node (of every job, one job or one step), and each step's answer from the node's
// supervisor as a ListPids row. JobService asks the agent (job_service_pids.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "drover/v1/controller.pb.h"
#include "drover/v1/jobs.pb.h"

namespace drover::ctld {

struct NodeStep {
  std::uint64_t job_id = 0;
  std::int64_t step_id = 0;        // -5 = batch
  std::int64_t job_end_time = 0;   // the job's expected end; 0 = none
  std::uint32_t restart_count = 0; // the job's run, named to the agent (common/step_run.h)
};

// The steps of the running or suspended `jobs` that run on `node` and that `request` names,
// by job id and then step id (the batch step first, as Slurm's listpids).
std::vector<NodeStep> stepsOnNode(const std::vector<v1::JobInfo>& jobs, const std::string& node,
                                  const v1::ListPidsRequest& request);

// The row of one step: its tasks' processes from the supervisor's answer (in rank order), or
// `error` when the agent or the supervisor gave none.
v1::StepPids stepPids(const NodeStep& step, const v1::StepUsage& usage, const std::string& error);

}  // namespace drover::ctld
