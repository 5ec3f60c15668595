#pragma once
// The request-echo variables of a job's environment (SLURM_NTASKS, SLURM_CPUS_PER_TASK,
// SLURM_MEM_PER_NODE, SLURM_GPUS_PER_NODE, ...): Slurm sets each only when the user gave that
// option, so they come from the job's spec rather than from its allocation.
#include "drover/v1/jobs.pb.h"
#include "launch/job_env.h"

namespace drover::launch {

// Fills ctx's request fields from `spec` (the job's, as submitted).
void addRequestedOptions(const v1::JobSpec& spec, JobEnvContext& ctx);

}  // namespace drover::launch
