#pragma once
// Thin, thread-safe wrapper over libmunge: every call creates its own munge context, so calls
// from many threads never share state and need no lock.
#include <cstdint>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover::auth {

struct DecodedCredential {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string payload;
};

// Asks munged (at `socket`, or libmunge's default socket when empty) for a credential
// carrying `payload`.
Result<std::string> encodeCredential(std::string_view payload, const std::string& socket);

// Asks munged to verify `credential`. Fails for malformed, forged or altered credentials, ones
// made with another key, expired, rewound (future) and replayed ones; the error says which.
Result<DecodedCredential> decodeCredential(const std::string& credential,
                                           const std::string& socket);

}  // namespace drover::auth
