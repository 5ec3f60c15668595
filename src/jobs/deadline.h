#pragma once
// Slurm's --deadline: a job that can no longer end by its deadline is not started but ends
// DEADLINE; one that can, but not with its whole time limit (it has a --time-min below it),
// starts with its limit cut to end by the deadline.
#include <cstdint>
#include <optional>

#include "drover/v1/jobs.pb.h"

namespace drover::jobs {

// The last second at which the job can start and still end by its deadline, running its
// --time-min, else its time limit (an unlimited limit without --time-min: one minute); none
// when it has no deadline.
std::optional<std::int64_t> latestStart(const v1::JobInfo& job);

// The time limit (minutes, -1 unlimited) of the job starting at `now`: its own, or where that
// would end after its deadline, the whole minutes left until it (the reference started a
// `-t 10 --time-min=2` job 4 min 57 s before its deadline with TimeLimit=00:04:00).
std::int64_t limitWithinDeadline(const v1::JobInfo& job, std::int64_t now);

}  // namespace drover::jobs
