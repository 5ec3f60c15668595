#include "auth/request_binding.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <openssl/evp.h>

#include <array>
#include <cstdlib>

namespace drover::auth {
namespace {

std::string serializeDeterministically(const google::protobuf::Message& request) {
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

std::string requestDigest(const google::protobuf::Message& request) {
  request.ByteSizeLong();  // fills the cached sizes SerializeWithCachedSizes relies on
  const std::string bytes = serializeDeterministically(request);
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int md_len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md.data(), &md_len, EVP_sha256(), nullptr) != 1) {
    std::abort();  // SHA-256 cannot fail on a healthy OpenSSL; continuing would bind nothing
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * md_len);
  for (unsigned int i = 0; i < md_len; ++i) {
    hex.push_back(kHex[md[i] >> 4]);
    hex.push_back(kHex[md[i] & 0xf]);
  }
  return hex;
}

std::string bindingPayload(std::string_view method, const google::protobuf::Message& request) {
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
                                                const google::protobuf::Message& request,
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
