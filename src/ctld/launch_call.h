#pragma once
// One LaunchStep to an agent, as the batch launches (JobService::sendLaunch) and the srun step
// launches (JobService::sendStepLaunch) send it, each attempt of their retries.
#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "drover/v1/agent.pb.h"
#include "rpc/client.h"

namespace drover::ctld {

struct LaunchCallResult {
  std::string why;           // empty: launched (or launched before: ALREADY_EXISTS)
  bool unreachable = false;  // no answer in time, or no connection: worth sending again
};

// Blocks for the call (run it on the agent RPC pool). ALREADY_EXISTS counts as launched: the
// agent ran this very run of the step already and it ended (an earlier attempt of ours,
// answered late), and its supervisor's report, not this reply, ends it. wait_for_ready: wait
// for a channel still in its reconnect backoff (a node that registered again a moment ago)
// up to the deadline, instead of failing at once; both callers ask for it (a launch to an agent
// that is really gone then costs its message timeout per attempt, not nothing).
LaunchCallResult callLaunchStep(const std::shared_ptr<grpc::Channel>& channel,
                                const v1::LaunchStepRequest& request,
                                const rpc::ClientOptions& options, bool wait_for_ready);

}  // namespace drover::ctld
