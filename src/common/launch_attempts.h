#pragma once
// How often the controller sends one launch (a batch job's, or one node's part of an srun
// step) whose agent did not answer within the message timeout. An agent that does not answer
// may be busy rather than gone, and may have started the step after all: LaunchStep of one run
// is idempotent there (a repeat gets the running supervisor's pid, or ALREADY_EXISTS once that
// run ended), so the launch is sent again before the job or step is failed for it.
#include <cstdint>

namespace drover {

inline constexpr int kLaunchAttempts = 3;

// How long srun waits for CreateStep, whose reply waits for the step's launches: every
// attempt's message timeout, and one more for the rest of the call.
constexpr std::int64_t createStepTimeoutMs(std::int64_t message_timeout_ms) {
  return (kLaunchAttempts + 1) * message_timeout_ms;
}

}  // namespace drover
