#pragma once
// sbcast -C: each broadcast block travels compressed on its own (so the agents can write it at
// its offset without the blocks before it) and is expanded by the node's agent before writing.
// lz4 is Slurm's default library; zlib is kept for Slurm's older "zlib" value. A block that
// would not shrink travels as it is (kNone), so a block never grows past kMaxBroadcastBlock.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover {

// The same numbers as v1::BroadcastCompression (common does not depend on the protos).
enum class BcastCodec : int { kNone = 0, kLz4 = 1, kZlib = 2 };

// -C's argument ("lz4", "zlib", "none", any case); nullopt for another.
std::optional<BcastCodec> parseBcastCodec(std::string_view name);
const char* bcastCodecName(BcastCodec codec);

struct CompressedBlock {
  BcastCodec codec = BcastCodec::kNone;   // kNone when compressing did not make it smaller
  std::string data;
};
CompressedBlock compressBlock(BcastCodec codec, std::string_view raw);

// `data` expanded to exactly `raw_size` bytes (at most kMaxBroadcastBlock); an error for data
// that is corrupt or of another size.
Result<std::string> expandBlock(BcastCodec codec, std::string_view data, std::uint64_t raw_size);

}  // namespace drover
