#pragma once
// The running steps of jobs as squeue -s and scontrol show step list them: a batch job's batch
// step (`28.batch`, which the controller does not keep as a JobStep: it is the job's script on
// its batch host) and its numbered srun steps (JobInfo.steps). Pure: JobInfo in, values out.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"
#include "drover/v1/jobs.pb.h"

namespace drover::cli {

// One step of a job; `step` is null for the batch step.
struct StepRow {
  const v1::JobInfo* job = nullptr;
  const v1::JobStep* step = nullptr;
};

// Asks only for the jobs that can hold steps (running, suspended, completing): those whose
// steps jobStepRows lists.
void requestJobsHoldingSteps(v1::GetJobsRequest* request);

// The job's steps in Slurm's order (scontrol show step lists the batch step first): none for a
// job that holds no resources.
std::vector<StepRow> jobStepRows(const v1::JobInfo& job);

// "28.0", "28.batch", "29_3.1" (an array task's id as squeue shows it).
std::string stepIdText(const StepRow& row);
// Sorts batch after the numbered steps, as Slurm's step ids do (its batch id is 0xfffffffb).
std::uint64_t stepSortKey(const StepRow& row);
std::string stepName(const StepRow& row);           // "batch" for the batch step
std::string stepNodes(const StepRow& row);          // compressed hostlist
std::vector<std::string> stepNodeNames(const StepRow& row);
std::uint32_t stepNodeCount(const StepRow& row);
std::uint32_t stepTasks(const StepRow& row);        // the batch step runs one task
std::uint32_t stepCpus(const StepRow& row);         // 0 for the batch step, as Slurm 22.05
std::int64_t stepStartTime(const StepRow& row);
std::int64_t stepElapsed(const StepRow& row, std::int64_t now);
std::int64_t stepTimeLimitMin(const StepRow& row);  // -1 = UNLIMITED (no limit of its own)
const char* stepStateName(const StepRow& row);      // RUNNING, SUSPENDED, COMPLETING
// scontrol's TRES=: "cpu=2,mem=8000M,node=2", "(null)" for the batch step.
std::string stepTres(const StepRow& row);

// One item of a step list (squeue -s LIST, scontrol show step ID): "28.0", "28.batch", "29_3.0";
// scontrol also takes a bare job id ("28": every step of the job).
struct StepIdFilter {
  std::string job;                   // as written: "28", "29_3"
  std::optional<std::int64_t> step;  // none = every step; -5 = batch
};
Result<StepIdFilter> parseStepId(std::string_view text, bool job_alone_ok);
bool stepMatches(const StepRow& row, const StepIdFilter& filter);

}  // namespace drover::cli
