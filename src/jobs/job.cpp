#include "jobs/job.h"

namespace drover::jobs {

bool isFinal(v1::JobState state) {
  switch (state) {
    case v1::JOB_PENDING:
    case v1::JOB_RUNNING:
    case v1::JOB_SUSPENDED:
    case v1::JOB_COMPLETING:
    case v1::JOB_REQUEUED:
      return false;
    default:
      return true;
  }
}

bool holdsResources(v1::JobState state) {
  return state == v1::JOB_RUNNING || state == v1::JOB_SUSPENDED || state == v1::JOB_COMPLETING;
}

std::optional<v1::JobState> killedInto(const Job& job) {
  if (!holdsResources(job.state())) return std::nullopt;
  switch (job.pending_end) {
    case PendingEnd::kCancel:
    case PendingEnd::kRequeueCancel: return v1::JOB_CANCELLED;
    case PendingEnd::kTimeout: return v1::JOB_TIMEOUT;
    case PendingEnd::kNodeFail: return v1::JOB_NODE_FAIL;
    case PendingEnd::kRequeue:
    case PendingEnd::kRequeueHold: return v1::JOB_PENDING;
    case PendingEnd::kPreemptCancel:
    case PendingEnd::kPreemptRequeue:
      // Accounting shows PREEMPTED for both until the step reports (requeue()).
      if (job.info.preempt_kill_time() != 0) return std::nullopt;  // its GraceTime
      return v1::JOB_PREEMPTED;
    case PendingEnd::kNone: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace drover::jobs
