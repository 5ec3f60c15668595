#pragma once
// The messages between droverd and the pre-forked supervisor launcher (drover-stepd
// --launcher, launcher.h), over the socket pair that is the launcher's stdin.
//
// Every message is a frame: a 4-byte little-endian payload length, then the payload. A payload
// is a list of strings: a 4-byte little-endian count, then each string as a 4-byte
// little-endian length and its bytes. Nothing else (no protobuf: the launcher must stay small
// and its child must parse the step request exactly as an exec'd drover-stepd does).
//   order (droverd -> launcher): ["launch", log path, serialized LaunchStepRequest, argv...]
//   reply (launcher -> droverd): ["pid", "<decimal pid>"] or ["error", message]
// Before any order the launcher sends a reply with its own pid: it is ready.
// A frame that cannot be read (short, over kMaxLauncherFrame) desynchronises the stream: the
// reader says why and the connection is closed. A frame that reads but does not decode is
// answered with an error reply and the stream goes on.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::stepd {

// A batch script may be large (Slurm's default limit is 4 MB); the request carries it.
inline constexpr std::uint32_t kMaxLauncherFrame = 64u << 20;

struct LaunchOrder {
  std::string log_path;             // the supervisor's stdout and stderr (appended, 0600)
  std::string request;              // serialized LaunchStepRequest (an exec'd one's stdin)
  std::vector<std::string> argv;    // what an exec'd drover-stepd gets, argv[0] included
};

struct LaunchReply {
  pid_t pid = 0;                    // > 0: the supervisor runs
  std::string error;                // otherwise why it does not
};

std::string encodeLaunchOrder(const LaunchOrder& order);
Result<LaunchOrder> decodeLaunchOrder(std::string_view payload);
std::string encodeLaunchReply(const LaunchReply& reply);
Result<LaunchReply> decodeLaunchReply(std::string_view payload);

// The frame (length prefix + payload) of one message.
std::string frameMessage(std::string_view payload);

// Writes one frame (MSG_NOSIGNAL on sockets: a closed peer is EPIPE, not SIGPIPE).
Status writeFrame(int fd, std::string_view payload);

// Reads one frame's payload. nullopt: the peer closed the stream between frames (a clean end).
// timeout_ms < 0 waits as long as it takes; otherwise the whole frame must arrive in time.
Result<std::optional<std::string>> readFrame(int fd, int timeout_ms = -1);

}  // namespace drover::stepd
