#pragma once
// The srun command: inside a job (SLURM_JOB_ID or --jobid) one step of it; outside, an
// interactive allocation of its own first (srun_allocation.h), the step, and the allocation
// released with the step's exit code.
namespace drover::cli {

int runSrun(int argc, char** argv);

}  // namespace drover::cli
