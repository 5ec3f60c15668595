#pragma once
// The job path's calls to an agent, LaunchStep (the batch launches, JobService::sendLaunch, and
// the srun step launches, JobService::sendStepLaunch, each attempt of their retries) and
// SignalStep, over the frame transport on the agent's own port (agent/shared_port.h): no gRPC
// thread hops on either side. Each blocks: run it on the agent RPC pool.
#include <cstdint>
#include <string>

#include "drover/v1/agent.pb.h"
#include "rpc/client.h"

namespace drover::ctld {

// Where an agent listens, as it registered.
struct AgentEndpoint {
  std::string host;
  std::uint16_t port = 0;
};

struct LaunchCallResult {
  std::string why;           // empty: launched (or launched before: ALREADY_EXISTS)
  bool unreachable = false;  // no answer in time, or no connection: worth sending again
};

// ALREADY_EXISTS counts as launched: the agent ran this very run of the step already and it
// ended (an earlier attempt of ours, answered late), and its supervisor's report, not this
// reply, ends it. A connection refused is tried again every 100 ms up to the message timeout
// (an agent restarting on its port, as gRPC's wait_for_ready waited for a channel in its
// reconnect backoff); a launch to an agent that is really gone then costs that timeout.
LaunchCallResult callLaunchStep(const AgentEndpoint& agent, const v1::LaunchStepRequest& request,
                                const rpc::ClientOptions& options);

// "" once sent and taken, else why not. A refused connection fails at once, as before over
// gRPC: a cancel of many jobs on a node that is gone must not hold the agent RPC pool for a
// message timeout per job (the node's steps are dealt with when it registers again).
std::string callSignalStep(const AgentEndpoint& agent, const v1::SignalStepRequest& request,
                           const rpc::ClientOptions& options);

}  // namespace drover::ctld
