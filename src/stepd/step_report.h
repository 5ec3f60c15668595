#pragma once
// How drover-stepd reports a step's end: a StepEvent to the controller over the frame
// transport (src/wire, controller.cli_port), retried until the controller acknowledges it, so
// a restart of the agent or the controller never loses a step's end. The frame transport
// rather than gRPC because drover-stepd starts once per step: a binary linked against gRPC
// costs several ms of CPU to start and its channel more (docs/performance.md, "Cost of running
// a trivial job").
#include <chrono>
#include <string>

#include "drover/result.h"
#include "drover/v1/agent_control.pb.h"
#include "stepd/supervisor.h"
#include "wire/frame_client.h"

namespace drover::stepd {

// The frame method the controller serves StepEvent under.
inline constexpr const char* kStepEventMethod = "/drover.v1.AgentControl/StepEvent";

// The report for a step that ran (or failed to start) on `node`.
drover::v1::StepEventRequest stepEvent(const drover::v1::LaunchStepRequest& request,
                                       const StepOutcome& outcome, const std::string& node);

// One task's figures as the wire carries them (StepEvent at the end, StepUsage for sstat).
void setTaskUsage(drover::v1::TaskUsage* out, const TaskFigures& f, const std::string& node);

// "HOST:PORT" (a bracketed IPv6 host too) -> frame client options, or why not.
Result<wire::ClientOptions> reportTarget(const std::string& host_port,
                                         const std::string& munge_socket);

// Sends `event` until the controller acknowledges it or `give_up` has passed; between tries
// waits 100 ms, doubling up to 30 s. Failed tries are told on stderr (the step's log).
bool reportStepEvent(const drover::v1::StepEventRequest& event, const wire::ClientOptions& target,
                     std::chrono::seconds give_up = std::chrono::hours(24));

}  // namespace drover::stepd
