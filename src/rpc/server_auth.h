#pragma once
// Server side of RPC authentication (docs/architecture.md, "Authentication"): every handler
// calls authenticate() first and returns its status when it is not OK.
#include <google/protobuf/message.h>
#include <grpcpp/server_context.h>

#include <string>
#include <vector>

#include "rpc/caller.h"

namespace drover::rpc {

// Authenticates one incoming call. On failure returns a PERMISSION_DENIED status to return to
// the client. The method the credential must be bound to is the one recorded by
// methodRecorderFactory() when the server installed it, otherwise the one method of the
// request's .proto file that takes the request's type (ambiguous -> denied; then install the
// recorder or use the overload below).
grpc::Status authenticate(const grpc::ServerContext& ctx, const google::protobuf::Message& request,
                          const std::string& munge_socket, Caller* caller);

// Same, with the full method name ("/drover.v1.Controller/Ping") given by the handler.
grpc::Status authenticate(const grpc::ServerContext& ctx, const std::string& method,
                          const google::protobuf::Message& request,
                          const std::string& munge_socket, Caller* caller);

}  // namespace drover::rpc
