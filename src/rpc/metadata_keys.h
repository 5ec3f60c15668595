#pragma once
// Metadata keys shared by the client and server halves of RPC authentication.
#include <string_view>

namespace drover::rpc {

// The MUNGE credential, sent by the client.
inline constexpr std::string_view kMungeMetadataKey = "x-drover-munge";

// The full method name, added on the server by methodRecorderFactory(). Upper-case letters are
// illegal in metadata keys on the wire, so no client can send this key itself.
inline constexpr std::string_view kRecordedMethodKey = "X-Drover-Method";

}  // namespace drover::rpc
