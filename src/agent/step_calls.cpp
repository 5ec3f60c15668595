#include "agent/step_calls.h"

#include <unistd.h>

#include "wire/status_codes.h"

namespace drover::agent {
namespace {

using namespace wire::status;

wire::Outcome fail(int code, std::string message) { return {code, std::move(message)}; }

}  // namespace

wire::Outcome controllerOnly(std::uint32_t caller_uid, const std::string& node_name) {
  if (caller_uid == 0 || caller_uid == ::getuid()) return wire::Outcome::ok();
  const std::string allowed = ::getuid() == 0 ? "uid 0" : "uid 0 or " + std::to_string(::getuid());
  return fail(kPermissionDenied, "uid " + std::to_string(caller_uid) +
                                     " may not launch or signal steps on node " + node_name +
                                     " (only the controller may: " + allowed + ")");
}

wire::Outcome launchStep(StepTable& steps, const std::string& node_name,
                         const v1::LaunchStepRequest& request, v1::LaunchStepReply* reply) {
  const Result<Launched> launched = steps.launch(request);
  if (!launched) return fail(kInternal, launched.error());
  if (launched->ended) {
    return fail(kAlreadyExists, "step " + std::to_string(request.step().job_id()) + "." +
                                    std::to_string(request.step().step_id()) + " of run " +
                                    std::to_string(request.step().restart_count()) +
                                    " already ran on node " + node_name + " and ended");
  }
  reply->set_supervisor_pid(launched->pid);
  return wire::Outcome::ok();
}

wire::Outcome signalStep(StepTable& steps, const v1::SignalStepRequest& request) {
  if (!request.kill() && (request.signal() <= 0 || request.signal() > 0xff)) {
    return fail(kInvalidArgument, "signal " + std::to_string(request.signal()) +
                                      " is not a signal number (1-255), and kill is not set");
  }
  std::string error;
  switch (steps.signal(request.step(), request.signal(), request.batch_shell_only(),
                       request.kill(), &error,
                       request.kill_reason() | (request.at_once() ? stepd::kKillAtOnceFlag : 0))) {
    case SignalOutcome::kSent: return wire::Outcome::ok();
    case SignalOutcome::kNotFound:
    case SignalOutcome::kStale: return fail(kNotFound, error);
    case SignalOutcome::kFailed: break;
  }
  return fail(kInternal, error);
}

void addFrameMethods(wire::MethodTable& table, StepTable& steps, const std::string& node_name) {
  table.add<v1::LaunchStepRequest, v1::LaunchStepReply>(
      "/drover.v1.Agent/LaunchStep",
      [&steps, node_name](const rpc::Caller& caller, const v1::LaunchStepRequest& request,
                          wire::Reply_<v1::LaunchStepReply> done) {
        v1::LaunchStepReply reply;
        wire::Outcome outcome = controllerOnly(caller.uid, node_name);
        if (outcome.code == 0) outcome = launchStep(steps, node_name, request, &reply);
        done(outcome, reply);
      });
  table.add<v1::SignalStepRequest, v1::SignalStepReply>(
      "/drover.v1.Agent/SignalStep",
      [&steps, node_name](const rpc::Caller& caller, const v1::SignalStepRequest& request,
                          wire::Reply_<v1::SignalStepReply> done) {
        wire::Outcome outcome = controllerOnly(caller.uid, node_name);
        if (outcome.code == 0) outcome = signalStep(steps, request);
        done(outcome, v1::SignalStepReply{});
      });
}

}  // namespace drover::agent
