#pragma once
// One Agent.GetStepUsage call, blocking (run it on the agent RPC pool): what sstat and
// scontrol listpids ask a node about one of its steps.
#include <memory>
#include <string>

#include "ctld/step_stats.h"
#include "drover/v1/agent.pb.h"
#include "rpc/client.h"

namespace grpc {
class Channel;
}

namespace drover::ctld {

NodeAnswer askStepUsage(const std::shared_ptr<grpc::Channel>& channel, const std::string& node,
                        const v1::GetStepUsageRequest& request, const rpc::ClientOptions& options);

}  // namespace drover::ctld
