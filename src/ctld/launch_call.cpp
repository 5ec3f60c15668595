#include "ctld/launch_call.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "wire/frame_client.h"
#include "wire/status_codes.h"

namespace drover::ctld {
namespace {

using wire::status::kAlreadyExists;
using wire::status::kDeadlineExceeded;
using wire::status::kUnavailable;
constexpr auto kConnectRetry = std::chrono::milliseconds(100);

// One call; with `retry_refused` its connection is tried again while the agent refuses it and
// time is left.
bool callAgent(const AgentEndpoint& agent, const std::string& method,
               const google::protobuf::MessageLite& request, google::protobuf::MessageLite* reply,
               const rpc::ClientOptions& options, bool retry_refused, wire::CallError* error) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
  wire::ClientOptions to;
  // A registered IPv6 address is bracketed, as gRPC's targets; getaddrinfo takes it bare.
  const std::string& host = agent.host;
  const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
  to.host = bracketed ? host.substr(1, host.size() - 2) : host;
  to.port = agent.port;
  to.munge_socket = options.munge_socket;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    to.timeout_ms = static_cast<int>(std::max<std::int64_t>(left.count(), 1));
    if (wire::call(to, method, request, reply, error)) return true;
    if (!retry_refused || error->sent || error->code != kUnavailable ||
        Clock::now() + kConnectRetry >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(kConnectRetry);
  }
}

}  // namespace

LaunchCallResult callLaunchStep(const AgentEndpoint& agent, const v1::LaunchStepRequest& request,
                                const rpc::ClientOptions& options) {
  LaunchCallResult result;
  v1::LaunchStepReply reply;
  wire::CallError error;
  if (callAgent(agent, "/drover.v1.Agent/LaunchStep", request, &reply, options, true, &error) ||
      error.code == kAlreadyExists) {
    return result;
  }
  result.why = error.message.empty() ? "agent unreachable" : error.message;
  result.unreachable = error.code == kUnavailable || error.code == kDeadlineExceeded;
  return result;
}

std::string callSignalStep(const AgentEndpoint& agent, const v1::SignalStepRequest& request,
                           const rpc::ClientOptions& options) {
  v1::SignalStepReply reply;
  wire::CallError error;
  if (callAgent(agent, "/drover.v1.Agent/SignalStep", request, &reply, options, false, &error)) {
    return "";
  }
  return error.message.empty() ? "agent unreachable" : error.message;
}

}  // namespace drover::ctld
