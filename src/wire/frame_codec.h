#pragma once
// Length-prefixed frames: a 4-byte big-endian length, then that many bytes of a serialized
// protobuf message. Frames above kMaxFrameBytes are refused so a bad peer cannot make us
// allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace drover::wire {

inline constexpr std::size_t kHeaderBytes = 4;
inline constexpr std::uint32_t kMaxFrameBytes = 64u << 20;

std::string encodeHeader(std::uint32_t length);
std::uint32_t decodeHeader(const unsigned char* header);

}  // namespace drover::wire
