#pragma once
// The sbatch command: options and script handling from src/jobspec, submission over the
// controller client, Slurm's replies and exit codes (slurm-reference/golden 007-019, 024-027).
#include <string>
#include <vector>

#include "drover/v1/jobs.pb.h"

namespace drover::cli {

// "Submitted batch job 7\n"; with --parsable "7\n" (or "7;cluster\n" when -M named a cluster).
std::string formatSubmitted(const v1::SubmitJobReply& reply, bool parsable, bool with_cluster);

// --test-only: "sbatch: Job 3 to start at 2026-11-30T12:38:43 using 4 processors on nodes
// node[01-04] in partition gpu\n" (stderr in Slurm).
std::string formatTestOnly(const v1::SubmitJobReply& reply);

// A refused submission as Slurm words it: lines after "sbatch: error: ", the reason prefixed
// with "Batch job submission failed: " unless the controller's text already says so (or is one of
// the few errors Slurm prints bare).
std::string formatSubmitFailure(const std::string& controller_message, bool test_only = false);

// sbatch --wait: the exit status sbatch ends with for a finished job (its exit code, or 128+signal
// when it was killed by a signal; 1 for a job that never ran cleanly without a code).
int waitExitStatus(const v1::JobInfo& job);

int runSbatch(int argc, char** argv);

}  // namespace drover::cli
