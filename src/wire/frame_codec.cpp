#include "wire/frame_codec.h"

namespace drover::wire {

std::string encodeHeader(std::uint32_t length) {
  std::string header(kHeaderBytes, '\0');
  for (std::size_t i = 0; i < kHeaderBytes; ++i)
    header[i] = static_cast<char>((length >> (8 * (kHeaderBytes - 1 - i))) & 0xff);
  return header;
}

std::uint32_t decodeHeader(const unsigned char* header) {
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kHeaderBytes; ++i) length = (length << 8) | header[i];
  return length;
}

}  // namespace drover::wire
