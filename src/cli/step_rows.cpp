#include "cli/step_rows.h"

#include <algorithm>
#include <charconv>

#include "cli/job_values.h"
#include "common/ascii_case.h"
#include "drover/accounting.h"
#include "drover/hostlist.h"

namespace drover::cli {
namespace {

// A job id as the step lists take it: "28" or an array task "29_3".
bool validJobPart(std::string_view s) {
  const auto underscore = s.find('_');
  if (underscore == std::string_view::npos) return allAsciiDigits(s);
  return allAsciiDigits(s.substr(0, underscore)) && allAsciiDigits(s.substr(underscore + 1));
}

bool holdsSteps(v1::JobState state) {
  return state == v1::JOB_RUNNING || state == v1::JOB_SUSPENDED || state == v1::JOB_COMPLETING;
}

}  // namespace

void requestJobsHoldingSteps(v1::GetJobsRequest* request) {
  for (const char* state : {"RUNNING", "SUSPENDED", "COMPLETING"}) request->add_states(state);
}

std::vector<StepRow> jobStepRows(const v1::JobInfo& job) {
  std::vector<StepRow> rows;
  if (!holdsSteps(job.state())) return rows;
  if (job.batch() && !job.batch_host().empty()) rows.push_back({&job, nullptr});
  for (const auto& step : job.steps()) rows.push_back({&job, &step});
  return rows;
}

std::string stepIdText(const StepRow& row) {
  return jobIdText(*row.job) + "." + (row.step ? std::to_string(row.step->step_id()) : "batch");
}

std::uint64_t stepSortKey(const StepRow& row) {
  return row.step ? static_cast<std::uint64_t>(row.step->step_id()) : 0xfffffffbULL;
}

std::string stepName(const StepRow& row) { return row.step ? row.step->name() : "batch"; }

std::vector<std::string> stepNodeNames(const StepRow& row) {
  if (!row.step) return {row.job->batch_host()};
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(row.step->nodes_size()));
  for (const auto& n : row.step->nodes()) names.push_back(n.node());
  return names;
}

std::string stepNodes(const StepRow& row) {
  return row.step ? hostlist::compress(stepNodeNames(row)) : row.job->batch_host();
}

std::uint32_t stepNodeCount(const StepRow& row) {
  return row.step ? static_cast<std::uint32_t>(row.step->nodes_size()) : 1;
}

std::uint32_t stepTasks(const StepRow& row) { return row.step ? row.step->ntasks() : 1; }

std::uint32_t stepCpus(const StepRow& row) {
  if (!row.step) return 0;
  std::uint32_t cpus = 0;
  for (const auto& n : row.step->nodes()) cpus += n.cpus();
  return cpus;
}

std::int64_t stepStartTime(const StepRow& row) {
  return row.step ? row.step->start_time() : row.job->start_time();
}

std::int64_t stepElapsed(const StepRow& row, std::int64_t now) {
  if (!row.step) return jobRunTime(*row.job, now);
  return std::max<std::int64_t>(0, now - row.step->start_time());
}

std::int64_t stepTimeLimitMin(const StepRow& row) {
  return row.step && row.step->time_limit_min() > 0 ? row.step->time_limit_min() : -1;
}

const char* stepStateName(const StepRow& row) {
  switch (row.job->state()) {
    case v1::JOB_SUSPENDED: return "SUSPENDED";
    case v1::JOB_COMPLETING: return "COMPLETING";
    default: return "RUNNING";
  }
}

std::string stepTres(const StepRow& row) {
  if (!row.step) return "(null)";
  // The step's memory is its --mem per node, else the job's memory on each of its nodes.
  std::uint64_t cpus = 0, gpus = 0, mem_mb = 0;
  for (const auto& n : row.step->nodes()) {
    cpus += n.cpus();
    gpus += static_cast<std::uint64_t>(n.gpu_indices_size());
    std::uint64_t node_mem = row.step->mem_per_node_mb();
    if (node_mem == 0) {
      for (const auto& a : row.job->allocation())
        if (a.node() == n.node()) node_mem = a.memory_mb();
    }
    mem_mb += node_mem;
  }
  // In Slurm's order for steps: by name (cpu, gres/gpu, mem, node).
  std::string out = "cpu=" + std::to_string(cpus);
  if (gpus > 0) out += ",gres/gpu=" + std::to_string(gpus);
  if (mem_mb > 0) out += ",mem=" + std::to_string(mem_mb) + "M";
  return out + ",node=" + std::to_string(row.step->nodes_size());
}

Result<StepIdFilter> parseStepId(std::string_view text, bool job_alone_ok) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) {
    if (!job_alone_ok || !validJobPart(text))
      return makeError("Invalid job_step id: " + std::string(text) + ".??");
    return StepIdFilter{std::string(text), std::nullopt};
  }
  const std::string_view job = text.substr(0, dot), step = text.substr(dot + 1);
  if (!validJobPart(job)) return makeError("Invalid job_step id: " + std::string(text));
  if (step == "batch") return StepIdFilter{std::string(job), acct::kBatchStep};
  std::int64_t id = 0;
  if (!allAsciiDigits(step) ||
      std::from_chars(step.data(), step.data() + step.size(), id).ec != std::errc())
    return makeError("Invalid job_step id: " + std::string(text));
  return StepIdFilter{std::string(job), id};
}

bool stepMatches(const StepRow& row, const StepIdFilter& filter) {
  if (!jobMatchesId(*row.job, filter.job)) return false;
  if (!filter.step) return true;
  return *filter.step == (row.step ? row.step->step_id() : acct::kBatchStep);
}

}  // namespace drover::cli
