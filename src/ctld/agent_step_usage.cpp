#include "ctld/agent_step_usage.h"

#include <grpcpp/grpcpp.h>

#include "drover/v1/agent.grpc.pb.h"

namespace drover::ctld {

NodeAnswer askStepUsage(const std::shared_ptr<grpc::Channel>& channel, const std::string& node,
                        const v1::GetStepUsageRequest& request, const rpc::ClientOptions& options) {
  NodeAnswer answer;
  answer.node = node;
  grpc::ClientContext ctx;
  auto prepared = rpc::prepareCall(ctx, "/drover.v1.Agent/GetStepUsage", request, options);
  if (!prepared) {
    answer.error = prepared.error();
    return answer;
  }
  v1::GetStepUsageReply reply;
  const grpc::Status st = v1::Agent::NewStub(channel)->GetStepUsage(&ctx, request, &reply);
  if (!st.ok()) {
    answer.error = st.error_message().empty() ? "agent unreachable" : st.error_message();
    return answer;
  }
  answer.usage = std::move(*reply.mutable_usage());
  return answer;
}

}  // namespace drover::ctld
