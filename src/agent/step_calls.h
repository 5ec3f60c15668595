#pragma once
// LaunchStep and SignalStep as the agent answers them, whichever transport brought them: the
// frame transport runs them on the agent's state thread directly (agent/shared_port.h), the
// gRPC service posts them there. Outcomes carry gRPC's status codes.
#include <cstdint>
#include <string>

#include "agent/step_table.h"
#include "drover/v1/agent.pb.h"
#include "wire/method_table.h"

namespace drover::agent {

// Only the controller launches and signals steps: root, or the user droverd runs as (the
// controller of a cluster run by one unprivileged user, as in tests).
wire::Outcome controllerOnly(std::uint32_t caller_uid, const std::string& node_name);

// On the state thread. ALREADY_EXISTS: this run of the step already ran here and ended.
wire::Outcome launchStep(StepTable& steps, const std::string& node_name,
                         const v1::LaunchStepRequest& request, v1::LaunchStepReply* reply);
wire::Outcome signalStep(StepTable& steps, const v1::SignalStepRequest& request);

// The frame methods droverd serves: /drover.v1.Agent/LaunchStep and SignalStep.
void addFrameMethods(wire::MethodTable& table, StepTable& steps, const std::string& node_name);

}  // namespace drover::agent
