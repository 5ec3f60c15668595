#pragma once
// squeue -s/--steps: one line per running step (a batch job's `JOB.batch` and its srun steps),
// as Slurm 22.05 prints them (tests/unit/cli/golden 121-125). Pure: jobs in, text out.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/squeue_view.h"
#include "drover/result.h"

namespace drover::cli {

// The JobInfo fields the step view reads (GetJobsRequest.fields): the jobs' steps and what
// the batch step is made of, nothing of the job's request.
SqueueFields squeueStepFields();

// Appends the output to *out. Format codes and -O fields that are not valid for steps are
// printed as Slurm does (`%t` literally, an -O field left out) and each named in *warnings
// ("Invalid job step format specification: t"), which squeue prints as errors (exit 0).
// -j, -u, -p, -w and the step list (-sLIST) select; -n, -A, -t, -r and --start do not apply
// to steps and are ignored, as in Slurm 22.05. The default sort is "P,i".
Status renderSqueueStepsTo(const SqueueOptions& options, const std::vector<const v1::JobInfo*>& jobs,
                           std::int64_t now, std::string* out, std::vector<std::string>* warnings);

}  // namespace drover::cli
