#pragma once
// The eligible time Slurm shows for a job (scontrol's EligibleTime and AccrueTime, sacct's
// Eligible, squeue --json): when it became eligible; for a pending job not eligible yet, the
// --begin time it waits for, held or not (a requeued job's is the end of its requeue wait), as
// the reference printed them; 0 (Unknown) otherwise.
#include <cstdint>

#include "drover/v1/jobs.pb.h"

namespace drover {

inline std::int64_t shownEligibleTime(const v1::JobInfo& job) {
  if (job.eligible_time() != 0) return job.eligible_time();
  return job.state() == v1::JOB_PENDING ? job.spec().begin_time() : 0;
}

}  // namespace drover
