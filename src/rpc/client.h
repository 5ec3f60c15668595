#pragma once
// Client side of RPC authentication: every call is prepared with prepareCall(), which sets the
// deadline and attaches a MUNGE credential bound to the method and the request.
#include <google/protobuf/message.h>
#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/status.h>

#include <memory>
#include <string>

#include "drover/result.h"

namespace drover::rpc {

struct ClientOptions {
  std::string target;  // host:port
  std::string munge_socket;  // empty = libmunge's default socket
  int timeout_ms = 10000;
};

std::shared_ptr<grpc::Channel> makeChannel(const std::string& target);

// Prepares ctx for calling `method` with `request`: deadline from opts.timeout_ms and the MUNGE
// credential. Fails when munge cannot encode (e.g. munged not running; the error names the
// socket).
Result<void_t> prepareCall(grpc::ClientContext& ctx, const std::string& method,
                           const google::protobuf::Message& request, const ClientOptions& opts);

// Turns a failed call into the message a CLI prints, Slurm style:
// UNAVAILABLE / DEADLINE_EXCEEDED -> "Unable to contact drover controller at HOST:PORT (connect
// failure)", PERMISSION_DENIED / UNAUTHENTICATED -> "Access/permission denied: <detail>",
// anything else -> the status message.
std::string describeFailure(const grpc::Status& status, const ClientOptions& opts);

}  // namespace drover::rpc
