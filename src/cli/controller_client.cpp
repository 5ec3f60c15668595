#include "cli/controller_client.h"

#include <grpcpp/grpcpp.h>

#include "drover/config.h"
#include "drover/v1/controller.grpc.pb.h"
#include "rpc/client.h"

namespace drover::cli {
namespace {

FailureKind kindOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return FailureKind::kNone;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED: return FailureKind::kUnreachable;
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED: return FailureKind::kDenied;
    case grpc::StatusCode::NOT_FOUND: return FailureKind::kNotFound;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION: return FailureKind::kInvalid;
    default: return FailureKind::kOther;
  }
}

}  // namespace

Result<ControllerClient> ControllerClient::fromConfig() {
  const std::string path = config::defaultConfigPath();
  auto cfg = config::loadClusterConfig(path);
  if (!cfg.ok()) return makeError(cfg.error());
  ControllerAddress address;
  address.host = cfg->controller.host;
  address.target = cfg->controller.host + ":" + std::to_string(cfg->controller.port);
  address.munge_socket = cfg->munge_socket;
  address.timeout_ms = static_cast<int>(cfg->timeouts.message_s) * 1000;
  return ControllerClient(std::move(address));
}

ControllerClient::ControllerClient(ControllerAddress address) : address_(std::move(address)) {}

template <typename Reply, typename Request, typename Method>
Result<Reply> ControllerClient::call(const char* name, const Request& request, Method method) {
  rpc::ClientOptions opts;
  opts.target = address_.target;
  opts.munge_socket = address_.munge_socket;
  opts.timeout_ms = address_.timeout_ms;
  if (!channel_) channel_ = rpc::makeChannel(opts.target);
  grpc::ClientContext ctx;
  auto prepared = rpc::prepareCall(ctx, std::string("/drover.v1.Controller/") + name, request, opts);
  if (!prepared.ok()) {
    last_failure_ = FailureKind::kDenied;
    return makeError(prepared.error());
  }
  auto stub = v1::Controller::NewStub(channel_);
  Reply reply;
  const grpc::Status status = ((*stub).*method)(&ctx, request, &reply);
  last_failure_ = kindOf(status.error_code());
  if (!status.ok()) {
    if (last_failure_ == FailureKind::kNotFound || last_failure_ == FailureKind::kInvalid) {
      return makeError(status.error_message());
    }
    return makeError(rpc::describeFailure(status, opts));
  }
  return reply;
}

Result<v1::PingReply> ControllerClient::ping() {
  return call<v1::PingReply>("Ping", v1::PingRequest{}, &v1::Controller::Stub::Ping);
}

Result<v1::GetNodesReply> ControllerClient::getNodes(const v1::GetNodesRequest& request) {
  return call<v1::GetNodesReply>("GetNodes", request, &v1::Controller::Stub::GetNodes);
}

Result<v1::GetPartitionsReply> ControllerClient::getPartitions(const v1::GetPartitionsRequest& request) {
  return call<v1::GetPartitionsReply>("GetPartitions", request, &v1::Controller::Stub::GetPartitions);
}

Result<v1::UpdateNodeReply> ControllerClient::updateNode(const v1::UpdateNodeRequest& request) {
  return call<v1::UpdateNodeReply>("UpdateNode", request, &v1::Controller::Stub::UpdateNode);
}

Result<v1::ReconfigureReply> ControllerClient::reconfigure(const v1::ReconfigureRequest& request) {
  return call<v1::ReconfigureReply>("Reconfigure", request, &v1::Controller::Stub::Reconfigure);
}

}  // namespace drover::cli
