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

}  // namespace drover::jobs
