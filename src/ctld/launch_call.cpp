#include "ctld/launch_call.h"

#include <grpcpp/grpcpp.h>

#include "drover/v1/agent.grpc.pb.h"

namespace drover::ctld {

LaunchCallResult callLaunchStep(const std::shared_ptr<grpc::Channel>& channel,
                                const v1::LaunchStepRequest& request,
                                const rpc::ClientOptions& options, bool wait_for_ready) {
  grpc::ClientContext ctx;
  ctx.set_wait_for_ready(wait_for_ready);
  LaunchCallResult result;
  auto prepared = rpc::prepareCall(ctx, "/drover.v1.Agent/LaunchStep", request, options);
  if (!prepared) {
    result.why = prepared.error();
    return result;
  }
  v1::LaunchStepReply reply;
  const grpc::Status st = v1::Agent::NewStub(channel)->LaunchStep(&ctx, request, &reply);
  if (!st.ok() && st.error_code() != grpc::StatusCode::ALREADY_EXISTS) {
    result.why = st.error_message().empty() ? "agent unreachable" : st.error_message();
  }
  result.unreachable = st.error_code() == grpc::StatusCode::UNAVAILABLE ||
                       st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
  return result;
}

}  // namespace drover::ctld
