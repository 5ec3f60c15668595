#pragma once
// sbcast's view of a job, pure: whether the caller may broadcast into it now, and which nodes
// get the file (the job's, or one running step's). Errors are Slurm's texts, which sbcast
// prints as "Slurm job ID <id> lookup error: <text>" (kInvalidJobId and kAlreadyDone too).
#include <optional>
#include <string>
#include <vector>

#include "common/slurm_errors.h"
#include "drover/result.h"
#include "drover/v1/jobs.pb.h"

namespace drover::ctld {

// Another user's job: what the reference's sbcast printed after "lookup error: ".
inline constexpr const char* kBcastDenied = "Invalid user id";
inline constexpr const char* kBcastPending = "Job is pending execution";

// `owner_or_admin`: the caller is the job's user, root or an operator (checked by the caller,
// which knows the operators). The nodes in allocation order (a step's in step order).
Result<std::vector<std::string>> bcastNodes(const v1::JobInfo& job, bool owner_or_admin,
                                            std::optional<std::int64_t> step_id);

}  // namespace drover::ctld
