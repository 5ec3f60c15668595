#include "stepd/cancel_notice.h"

#include "drover/accounting.h"
#include "drover/time_spec.h"

namespace drover::stepd {

std::string cancelNotice(const std::string& daemon, std::uint64_t job_id, std::int64_t step_id,
                         const std::string& node, std::int64_t now,
                         v1::SignalStepRequest::KillReason reason) {
  const char* why = nullptr;
  switch (reason) {
    case v1::SignalStepRequest::CANCELLED: why = ""; break;
    case v1::SignalStepRequest::TIME_LIMIT: why = " DUE TO TIME LIMIT"; break;
    case v1::SignalStepRequest::REQUEUED: why = " DUE TO JOB REQUEUE"; break;
    case v1::SignalStepRequest::PREEMPTED: why = " DUE TO PREEMPTION"; break;
    default: return "";
  }
  const std::string what = step_id == acct::kBatchStep
                               ? "JOB " + std::to_string(job_id)
                               : "STEP " + std::to_string(job_id) + "." + std::to_string(step_id);
  return daemon + ": error: *** " + what + " ON " + node + " CANCELLED AT " +
         formatLocalTime(now, kIsoLocalTime) + why + " ***\n";
}

}  // namespace drover::stepd
