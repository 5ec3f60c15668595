#pragma once
// Length-prefixed frames: a 4-byte big-endian length, then that many bytes of a serialized
// protobuf message. Frames above kMaxFrameBytes are refused so a bad peer cannot make us
// allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace google::protobuf {
class MessageLite;
}

namespace drover::wire {

inline constexpr std::size_t kHeaderBytes = 4;
inline constexpr std::uint32_t kMaxFrameBytes = 64u << 20;

std::string encodeHeader(std::uint32_t length);
std::uint32_t decodeHeader(const unsigned char* header);

// A whole reply frame, its header included: a FrameReply (proto/drover/v1/frame.proto) whose
// payload, when given, is serialized straight into the frame's buffer. Serializing it into
// FrameReply.payload, then the FrameReply, then prefixing the header, was three passes over
// a listing's megabyte.
std::string encodeReplyFrame(std::int32_t code, std::string_view message,
                             const google::protobuf::MessageLite* payload);

// A FrameReply (proto/drover/v1/frame.proto) read where it lies: the payload is a view into
// the frame's bytes, not a copy. A listing of thousands of jobs is a megabyte of payload, and
// copying it out of the frame was a pass over that much fresh memory in every squeue.
struct FrameReplyView {
  std::int32_t code = 0;
  std::string message;
  std::string_view payload;
};

// False for bytes that are not a well-formed FrameReply.
bool parseFrameReply(std::string_view frame, FrameReplyView* out);

}  // namespace drover::wire
