#pragma once
// Tasks' usage as the supervisors report it (v1::TaskUsage) -> accounting's acct::TaskUsage,
// for the batch step (one report) and numbered steps (kept in JobStep until every node
// reported).
#include <vector>

#include "acct/task_usage.h"
#include "drover/v1/jobs.pb.h"

namespace drover::jobs {

std::vector<acct::TaskUsage> taskUsageFromWire(
    const google::protobuf::RepeatedPtrField<drover::v1::TaskUsage>& tasks);

}  // namespace drover::jobs
