#include "ctld/bcast_targets.h"

namespace drover::ctld {

Result<std::vector<std::string>> bcastNodes(const v1::JobInfo& job, bool owner_or_admin,
                                            std::optional<std::int64_t> step_id) {
  if (!owner_or_admin) return makeError(kBcastDenied);
  switch (job.state()) {
    case v1::JOB_RUNNING:
    case v1::JOB_SUSPENDED: break;
    case v1::JOB_PENDING:
    case v1::JOB_REQUEUED: return makeError(kBcastPending);
    default: return makeError(kAlreadyDone);
  }
  std::vector<std::string> nodes;
  if (!step_id) {
    for (const auto& a : job.allocation()) nodes.push_back(a.node());
    if (nodes.empty()) return makeError(kAlreadyDone);
    return nodes;
  }
  for (const auto& s : job.steps()) {
    if (s.step_id() != *step_id) continue;
    for (const auto& n : s.nodes()) nodes.push_back(n.node());
    return nodes;
  }
  // Slurm looks the step up among the job's running steps and answers an unknown one so.
  return makeError(kInvalidJobId);
}

}  // namespace drover::ctld
