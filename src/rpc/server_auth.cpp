#include "rpc/server_auth.h"

#include <google/protobuf/descriptor.h>

#include <iterator>
#include <string_view>

#include "auth/munge_credential.h"
#include "auth/request_binding.h"
#include "rpc/metadata_keys.h"

namespace drover::rpc {
namespace {

grpc::Status denied(const std::string& why) {
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "authentication failed: " + why);
}

// The method taking this request type, when exactly one method of the request's .proto file does.
std::string methodForRequestType(const google::protobuf::Message& request) {
  const google::protobuf::Descriptor* type = request.GetDescriptor();
  std::string found;
  int matches = 0;
  const google::protobuf::FileDescriptor* file = type->file();
  for (int s = 0; s < file->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      if (service->method(m)->input_type() == type) {
        ++matches;
        found = "/" + service->full_name() + "/" + service->method(m)->name();
      }
    }
  }
  return matches == 1 ? found : std::string();
}

}  // namespace

grpc::Status authenticate(const grpc::ServerContext& ctx, const google::protobuf::Message& request,
                          const std::string& munge_socket, Caller* caller) {
  const auto& metadata = ctx.client_metadata();
  const auto recorded = metadata.find(grpc::string_ref(kRecordedMethodKey.data(), kRecordedMethodKey.size()));
  std::string method = recorded != metadata.end()
                           ? std::string(recorded->second.data(), recorded->second.size())
                           : methodForRequestType(request);
  if (method.empty()) {
    return denied("server cannot tell which method " + request.GetDescriptor()->full_name() +
                  " belongs to (install drover::rpc::methodRecorderFactory or pass the method)");
  }
  return authenticate(ctx, method, request, munge_socket, caller);
}

grpc::Status authenticate(const grpc::ServerContext& ctx, const std::string& method,
                          const google::protobuf::Message& request, const std::string& munge_socket,
                          Caller* caller) {
  const auto& metadata = ctx.client_metadata();
  const grpc::string_ref key(kMungeMetadataKey.data(), kMungeMetadataKey.size());
  const auto range = metadata.equal_range(key);
  if (range.first == range.second) {
    return denied("no MUNGE credential in the call (metadata key " + std::string(kMungeMetadataKey) + ")");
  }
  if (std::next(range.first) != range.second) return denied("more than one MUNGE credential in the call");
  const std::string credential(range.first->second.data(), range.first->second.size());

  auto decoded = auth::verifyBoundCredential(credential, method, request, munge_socket);
  if (!decoded) return denied(decoded.error());
  caller->uid = decoded->uid;
  caller->gid = decoded->gid;
  return grpc::Status::OK;
}

}  // namespace drover::rpc
