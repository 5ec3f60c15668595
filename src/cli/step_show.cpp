#include "cli/step_show.h"

#include <vector>

#include "cli/job_values.h"
#include "cli/node_values.h"
#include "cli/scontrol_view.h"

namespace drover::cli {

std::string formatStepRecord(const StepRow& row, bool oneliner) {
  const v1::JobInfo& j = *row.job;
  const std::int64_t start = stepStartTime(row);
  std::vector<std::string> lines;
  lines.push_back("StepId=" + stepIdText(row) + " UserId=" + std::to_string(j.uid()) +
                  " StartTime=" + (start > 0 ? formatIsoTime(start) : "Unknown") +
                  " TimeLimit=" + formatScontrolLimit(stepTimeLimitMin(row)));
  lines.push_back(std::string("State=") + stepStateName(row) + " Partition=" + j.partition() +
                  " NodeList=" + stepNodes(row));
  lines.push_back("Nodes=" + std::to_string(stepNodeCount(row)) + " CPUs=" + std::to_string(stepCpus(row)) +
                  " Tasks=" + std::to_string(stepTasks(row)) + " Name=" + stepName(row) +
                  " Network=(null)");
  lines.push_back("TRES=" + stepTres(row));
  lines.push_back("ResvPorts=(null)");
  // The batch step has no task distribution (Slurm prints no Dist= for it).
  lines.push_back(std::string("CPUFreqReq=Default") +
                  (row.step ? " Dist=" + (row.step->layout().empty() ? std::string("Block") : row.step->layout())
                            : std::string()));
  // The srun that created the step; the batch step has none.
  const bool srun = row.step && !row.step->srun_host().empty();
  lines.push_back("SrunHost:Pid=" + (srun ? row.step->srun_host() : std::string("(null)")) + ":" +
                  std::to_string(srun ? row.step->srun_pid() : 0));
  return joinRecord(lines, oneliner);
}

}  // namespace drover::cli
