#pragma once
// Framing for the step I/O stream (proto/drover/v1/step_io.proto), shared by the supervisor
// and srun's StepIoServer (src/stepio). Header-only so srun needs drover_wire_client only,
// not the supervisor's libraries.
#include <google/protobuf/message_lite.h>

#include <cstddef>
#include <string>

#include "pmi/wire.h"
#include "wire/frame_codec.h"

namespace drover::stepd {

// Appends one frame (length header + serialized message) to `out`.
inline void appendFrame(const google::protobuf::MessageLite& message, std::string& out) {
  const std::size_t size = message.ByteSizeLong();
  out += wire::encodeHeader(static_cast<std::uint32_t>(size));
  const std::size_t at = out.size();
  out.resize(at + size);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<unsigned char*>(out.data() + at));
}

// PMI pairs (pmi/wire.h) to and from a message's `repeated PmiPair` (step_io.proto), for the
// supervisor and srun alike.
template <typename RepeatedPairs>
void putPmiPairs(const pmi::Pairs& pairs, RepeatedPairs* out) {
  for (const auto& [key, value] : pairs) {
    auto* pair = out->Add();
    pair->set_key(key);
    pair->set_value(value);
  }
}
template <typename RepeatedPairs>
pmi::Pairs pmiPairsOf(const RepeatedPairs& in) {
  pmi::Pairs out;
  out.reserve(static_cast<std::size_t>(in.size()));
  for (const auto& p : in) out.emplace_back(p.key(), p.value());
  return out;
}

// Collects bytes from a stream socket and hands out complete frames.
class FrameReader {
 public:
  enum class Next { kFrame, kNeedMore, kTooLarge };

  void append(const char* data, std::size_t n) { buffer_.append(data, n); }

  // On kFrame, `payload` holds the next frame's message bytes.
  Next next(std::string& payload) {
    const std::size_t available = buffer_.size() - start_;
    if (available < wire::kHeaderBytes) return compact(), Next::kNeedMore;
    const auto length = wire::decodeHeader(
        reinterpret_cast<const unsigned char*>(buffer_.data() + start_));
    if (length > wire::kMaxFrameBytes) return Next::kTooLarge;
    if (available < wire::kHeaderBytes + length) return compact(), Next::kNeedMore;
    payload.assign(buffer_, start_ + wire::kHeaderBytes, length);
    start_ += wire::kHeaderBytes + length;
    return Next::kFrame;
  }

 private:
  void compact() {
    if (start_ == 0) return;
    buffer_.erase(0, start_);
    start_ = 0;
  }
  std::string buffer_;
  std::size_t start_ = 0;
};

}  // namespace drover::stepd
