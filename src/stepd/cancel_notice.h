#pragma once
// The line Slurm's step daemon wrote on a step's stderr when the step was ended for a user's,
// an admin's or the clock's reason, as the reference Slurm 22.05 printed them (2026-12-04):
//   slurmstepd-node01: error: *** JOB 157 ON node01 CANCELLED AT 2026-12-04T00:14:35 ***
//   ... *** JOB 158 ON node01 CANCELLED AT 2026-12-04T00:15:48 DUE TO TIME LIMIT ***
//   ... *** JOB 161 ON node01 CANCELLED AT 2026-12-04T00:16:19 DUE TO JOB REQUEUE ***
//   ... *** JOB 246 ON node03 CANCELLED AT 2026-12-04T08:40:28 DUE TO PREEMPTION ***
//   0: slurmstepd-node01: error: *** STEP 159.0 ON node01 CANCELLED AT ... ***   (srun -l)
// Users and scripts grep their output files for these. Drover's daemon names itself
// drover-stepd-NODE, as its other lines do.
#include <cstdint>
#include <string>

#include "drover/v1/jobs.pb.h"

namespace drover::stepd {

// The whole line with its newline; "" for SignalStepRequest::QUIET or a reason it does not
// know. `step_id` is acct::kBatchStep (-5) for the batch step ("JOB N"), else "STEP N.S".
std::string cancelNotice(const std::string& daemon, std::uint64_t job_id, std::int64_t step_id,
                         const std::string& node, std::int64_t now,
                         v1::SignalStepRequest::KillReason reason);

}  // namespace drover::stepd
