#include "common/bcast_compress.h"

#include <lz4.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>

#include "common/bcast_path.h"

namespace drover {

std::optional<BcastCodec> parseBcastCodec(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "lz4") return BcastCodec::kLz4;
  if (lower == "zlib") return BcastCodec::kZlib;
  if (lower == "none") return BcastCodec::kNone;
  return std::nullopt;
}

const char* bcastCodecName(BcastCodec codec) {
  switch (codec) {
    case BcastCodec::kLz4: return "lz4";
    case BcastCodec::kZlib: return "zlib";
    case BcastCodec::kNone: break;
  }
  return "none";
}

CompressedBlock compressBlock(BcastCodec codec, std::string_view raw) {
  CompressedBlock out;
  if (raw.empty() || raw.size() > kMaxBroadcastBlock) codec = BcastCodec::kNone;
  if (codec == BcastCodec::kLz4) {
    const int raw_size = static_cast<int>(raw.size());
    out.data.resize(static_cast<std::size_t>(LZ4_compressBound(raw_size)));
    const int n = LZ4_compress_default(raw.data(), out.data.data(), raw_size,
                                       static_cast<int>(out.data.size()));
    if (n > 0) out.data.resize(static_cast<std::size_t>(n));
    else out.data.clear();
  } else if (codec == BcastCodec::kZlib) {
    uLongf n = compressBound(static_cast<uLong>(raw.size()));
    out.data.resize(n);
    if (compress2(reinterpret_cast<Bytef*>(out.data.data()), &n,
                  reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                  Z_BEST_SPEED) == Z_OK) {
      out.data.resize(n);
    } else {
      out.data.clear();
    }
  }
  if (codec != BcastCodec::kNone && !out.data.empty() && out.data.size() < raw.size()) {
    out.codec = codec;
    return out;
  }
  out.codec = BcastCodec::kNone;
  out.data.assign(raw);
  return out;
}

Result<std::string> expandBlock(BcastCodec codec, std::string_view data, std::uint64_t raw_size) {
  if (raw_size > kMaxBroadcastBlock) {
    return makeError("expanded block of " + std::to_string(raw_size) +
                     " bytes is larger than the largest block");
  }
  std::string out;
  switch (codec) {
    case BcastCodec::kNone:
      if (data.size() != raw_size) break;
      return std::string(data);
    case BcastCodec::kLz4: {
      out.resize(static_cast<std::size_t>(raw_size));
      const int n = LZ4_decompress_safe(data.data(), out.data(), static_cast<int>(data.size()),
                                        static_cast<int>(out.size()));
      if (n < 0) return makeError("corrupt lz4 block");
      if (static_cast<std::uint64_t>(n) != raw_size) break;
      return out;
    }
    case BcastCodec::kZlib: {
      out.resize(static_cast<std::size_t>(raw_size));
      uLongf n = static_cast<uLongf>(out.size());
      if (uncompress(reinterpret_cast<Bytef*>(out.data()), &n,
                     reinterpret_cast<const Bytef*>(data.data()),
                     static_cast<uLong>(data.size())) != Z_OK) {
        return makeError("corrupt zlib block");
      }
      if (n != raw_size) break;
      return out;
    }
    default:
      return makeError("unknown compression " + std::to_string(static_cast<int>(codec)));
  }
  return makeError("block does not expand to its " + std::to_string(raw_size) + " bytes");
}

}  // namespace drover
