#include "wire/frame_codec.h"

#include <algorithm>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "drover/v1/frame.pb.h"
#include "wire/status_codes.h"

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

std::string encodeReplyFrame(std::int32_t code, std::string_view message,
                             const google::protobuf::MessageLite* payload) {
  using google::protobuf::io::CodedOutputStream;
  using google::protobuf::internal::WireFormatLite;
  using Reply = drover::v1::FrameReply;
  // Each field as proto3 writes it: left out when it holds its default.
  const std::size_t payload_bytes = payload != nullptr ? payload->ByteSizeLong() : 0;
  std::size_t body = 0;
  if (code != 0) body += 1 + WireFormatLite::Int32Size(code);
  if (!message.empty()) body += 1 + CodedOutputStream::VarintSize64(message.size()) + message.size();
  if (payload_bytes != 0) body += 1 + CodedOutputStream::VarintSize64(payload_bytes) + payload_bytes;
  if (body > kMaxFrameBytes) {
    return encodeReplyFrame(status::kInternal, "reply too large for one frame", nullptr);
  }
  std::string frame = encodeHeader(static_cast<std::uint32_t>(body));
  frame.resize(kHeaderBytes + body);
  auto* at = reinterpret_cast<std::uint8_t*>(frame.data()) + kHeaderBytes;
  if (code != 0) at = WireFormatLite::WriteInt32ToArray(Reply::kCodeFieldNumber, code, at);
  if (!message.empty()) {
    at = WireFormatLite::WriteTagToArray(Reply::kMessageFieldNumber,
                                         WireFormatLite::WIRETYPE_LENGTH_DELIMITED, at);
    at = CodedOutputStream::WriteVarint64ToArray(message.size(), at);
    at = std::copy(message.begin(), message.end(), at);
  }
  if (payload_bytes != 0) {
    at = WireFormatLite::WriteTagToArray(Reply::kPayloadFieldNumber,
                                         WireFormatLite::WIRETYPE_LENGTH_DELIMITED, at);
    at = CodedOutputStream::WriteVarint64ToArray(payload_bytes, at);
    payload->SerializeWithCachedSizesToArray(at);  // the sizes ByteSizeLong cached above
  }
  return frame;
}

bool parseFrameReply(std::string_view frame, FrameReplyView* out) {
  using google::protobuf::internal::WireFormatLite;
  using Reply = drover::v1::FrameReply;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(frame.data()),
                                            static_cast<int>(frame.size()));
  *out = FrameReplyView{};
  while (const std::uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const auto type = WireFormatLite::GetTagWireType(tag);
    const bool varint = type == WireFormatLite::WIRETYPE_VARINT;
    const bool bytes = type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    std::uint32_t value = 0;
    if (field == Reply::kCodeFieldNumber && varint) {
      if (!in.ReadVarint32(&value)) return false;
      out->code = static_cast<std::int32_t>(value);
    } else if (field == Reply::kMessageFieldNumber && bytes) {
      if (!in.ReadVarint32(&value) || !in.ReadString(&out->message, static_cast<int>(value))) return false;
    } else if (field == Reply::kPayloadFieldNumber && bytes) {
      if (!in.ReadVarint32(&value)) return false;
      const auto at = static_cast<std::size_t>(in.CurrentPosition());
      if (value > frame.size() - at || !in.Skip(static_cast<int>(value))) return false;
      out->payload = frame.substr(at, value);
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
  }
  // ReadTag answers 0 at the end and for a malformed tag alike.
  return static_cast<std::size_t>(in.CurrentPosition()) == frame.size();
}

}  // namespace drover::wire
