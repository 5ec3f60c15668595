#pragma once
// What droverd queues on a step supervisor's signals (sigqueue) and the supervisor reads back
// from its signalfd: the one contract both sides include.
//   SIGRTMIN: the signal to deliver to the step's tasks, with kBatchShellOnlyFlag when only the
//             batch shell gets it (scancel --batch);
//   SIGTERM:  a kill, its SignalStepRequest::KillReason (the line the supervisor writes on the
//             step's stderr), with kKillAtOnceFlag for SIGKILL at once (scancel JOB.STEP).
// A bare SIGTERM (no value: from anyone else) is a quiet kill.
namespace drover::stepd {

inline constexpr int kBatchShellOnlyFlag = 0x100;
inline constexpr int kKillAtOnceFlag = 0x100;

}  // namespace drover::stepd
