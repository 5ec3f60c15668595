#pragma once
// The client of the frame transport (proto/drover/v1/frame.proto): the CLIs' to the controller,
// the controller's to the agents on the job path (ctld/launch_call.h). One blocking TCP exchange
// per call, bounded by a deadline, authenticated with a MUNGE credential bound to the method
// and the request. Links protobuf and libmunge only, never gRPC; the CLIs link its lite variant
// (MessageLite, cmake/DroverLite.cmake).
#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <string>

#include "drover/result.h"

namespace drover::wire {

struct ClientOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string munge_socket;        // empty = libmunge's default
  int timeout_ms = 10000;
};

// gRPC-numbered status of a failed call, with the controller's message.
struct CallError {
  int code = 0;                    // 14 = UNAVAILABLE (could not connect), 4 = DEADLINE, 7 = DENIED
  std::string message;
  bool sent = false;               // the request went out: the server may have acted on it
};

// Sends `request` as `method` and parses the reply into `reply`. On failure returns false and
// fills `error`.
bool call(const ClientOptions& opts, const std::string& method,
          const google::protobuf::MessageLite& request, google::protobuf::MessageLite* reply,
          CallError* error);

// The text a CLI prints for a failed call, e.g. "Unable to contact drover controller at
// 127.0.0.1:7818 (connect failure)".
std::string describe(const CallError& error, const ClientOptions& opts);

}  // namespace drover::wire
