#include "auth/request_binding.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "common/sha256.h"

namespace drover::auth {
namespace {

std::string serializeDeterministically(const google::protobuf::MessageLite& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeWithCachedSizes(&coded);
  }  // the coded stream flushes into `bytes` when it goes out of scope
  return bytes;
}

}  // namespace

std::string requestDigest(const google::protobuf::MessageLite& request) {
  request.ByteSizeLong();  // fills the cached sizes SerializeWithCachedSizes relies on
  return sha256Hex(serializeDeterministically(request));
}

std::string bindingPayload(std::string_view method, const google::protobuf::MessageLite& request) {
  std::string payload;
  payload.reserve(kProtocolTag.size() + method.size() + 66);
  payload.append(kProtocolTag).append("\n").append(method).append("\n");
  payload.append(requestDigest(request));
  return payload;
}

namespace {

std::string_view methodLine(std::string_view payload) {
  const size_t first = payload.find('\n');
  if (first == std::string_view::npos) return {};
  const size_t second = payload.find('\n', first + 1);
  if (second == std::string_view::npos) return {};
  return payload.substr(first + 1, second - first - 1);
}

}  // namespace

Result<DecodedCredential> verifyBoundCredential(const std::string& credential,
                                                std::string_view method,
                                                const google::protobuf::MessageLite& request,
                                                const std::string& munge_socket) {
  auto decoded = decodeCredential(credential, munge_socket);
  if (!decoded) return decoded;
  if (decoded->payload != bindingPayload(method, request)) {
    const std::string_view bound_method = methodLine(decoded->payload);
    if (!bound_method.empty() && bound_method != method) {
      return makeError("credential is bound to another method (" + std::string(bound_method) +
                       ", not " + std::string(method) + ")");
    }
    return makeError("credential is bound to another request");
  }
  return decoded;
}

}  // namespace drover::auth
