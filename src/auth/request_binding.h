#pragma once
// What a MUNGE credential for one RPC carries: the protocol tag, the full method name and a
// digest of the request, so a credential captured for one call is useless for any other.
// Takes MessageLite: the daemons pass full messages, the CLIs lite ones (cmake/DroverLite.cmake),
// and serialization is all a digest needs.
#include <google/protobuf/message_lite.h>

#include <string>
#include <string_view>

#include "auth/munge_credential.h"
#include "drover/result.h"

namespace drover::auth {

inline constexpr std::string_view kProtocolTag = "drover/v1";

// Hex SHA-256 of the request serialized deterministically (map entries in key order).
std::string requestDigest(const google::protobuf::MessageLite& request);

// "drover/v1\n<method>\n<requestDigest(request)>".
std::string bindingPayload(std::string_view method, const google::protobuf::MessageLite& request);

// Decodes `credential` and checks it is bound to exactly this method and request. Every
// transport (gRPC metadata, the CLI frame transport) authenticates through this one function;
// the error text says why a credential was refused.
Result<DecodedCredential> verifyBoundCredential(const std::string& credential,
                                                std::string_view method,
                                                const google::protobuf::MessageLite& request,
                                                const std::string& munge_socket);

}  // namespace drover::auth
