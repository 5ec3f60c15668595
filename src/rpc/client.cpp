#include "rpc/client.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <chrono>

#include "auth/munge_credential.h"
#include "auth/request_binding.h"
#include "rpc/metadata_keys.h"

namespace drover::rpc {

std::shared_ptr<grpc::Channel> makeChannel(const std::string& target) {
  grpc::ChannelArguments args;
  // Controllers and agents are reached directly; an http_proxy in the user's environment must
  // not reroute them.
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  // The daemons keep their channels to each other for good (the controller one per agent, each
  // agent one to the controller). gRPC's reconnect backoff grows 1.6x per failed connect up to
  // two minutes, so a peer that was down for a while (an agent or controller restart) would stay
  // unreachable long after it is back: a launch to an agent that registered again a moment ago
  // failed for that. One second at most between tries costs a refused connect per second
  // while a peer is down, and finds it within a second once it is up.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

Result<void_t> prepareCall(grpc::ClientContext& ctx, const std::string& method,
                           const google::protobuf::Message& request, const ClientOptions& opts) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(opts.timeout_ms));
  auto credential = auth::encodeCredential(auth::bindingPayload(method, request), opts.munge_socket);
  if (!credential) return makeError(credential.error());
  ctx.AddMetadata(std::string(kMungeMetadataKey), *credential);
  return void_t{};
}

std::string describeFailure(const grpc::Status& status, const ClientOptions& opts) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "Unable to contact drover controller at " + opts.target + " (connect failure)";
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
      return "Access/permission denied: " + status.error_message();
    default:
      return status.error_message();
  }
}

}  // namespace drover::rpc
