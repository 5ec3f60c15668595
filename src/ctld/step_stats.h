#pragma once
// sstat's view of a running job, pure: which of its steps a GetStepStats request names, and
// how the answers of those steps' nodes become one row per step (the usage folded over every
// task, as sacct's record of an ended step: acct::addTaskUsage). JobService does the asking
// (job_service_stats.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/controller.pb.h"
#include "drover/v1/jobs.pb.h"

namespace drover::ctld {

struct StatStep {
  std::int64_t step_id = 0;         // -5 = batch
  std::vector<std::string> nodes;   // in step order
  std::uint32_t ntasks = 0;
};

// Slurm's texts (sstat prints them as "sstat: error: <text>"): the job is unknown, runs no
// step (pending, ended) or does not run the step named.
std::string unknownJobText(std::uint64_t job_id);       // couldn't get steps for job 12
std::string noStepsRunningText(std::uint64_t job_id);   // No steps running for job 12
std::string stepNotRunningText(std::uint64_t job_id, std::int64_t step_id);  // StepId=12.3 not found running.

// The steps of `job` that `request` names, as Slurm 22.05's sstat picks them: a named step
// (batch included), else with all_steps the batch step and every numbered step, else the
// lowest numbered step (none when only the batch step runs: no row, no error). Errors are the
// texts above; the job must be RUNNING or SUSPENDED.
Result<std::vector<StatStep>> selectStatSteps(const v1::JobInfo& job,
                                              const v1::GetStepStatsRequest& request);

// One node's answer: its step usage, or why there is none.
struct NodeAnswer {
  std::string node;
  std::string error;        // empty = usage holds the node's figures
  v1::StepUsage usage;
};

// The row of `step`: the tasks of every node that answered folded into its usage, the pids in
// node order, and "node: why" for each node that did not.
v1::StepStats foldStepStats(std::uint64_t job_id, const StatStep& step,
                            const std::vector<NodeAnswer>& answers);

// The row of a step the caller may not see: its id and nodes only.
v1::StepStats deniedStepStats(std::uint64_t job_id, const StatStep& step);

}  // namespace drover::ctld
