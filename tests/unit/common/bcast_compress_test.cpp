// sbcast -C's block codecs: a compressible block shrinks and expands back byte for byte, a
// block that would grow travels as it is, and an agent refuses a block that is corrupt or of
// another size than announced.
#include "common/bcast_compress.h"

#include <gtest/gtest.h>

#include <random>

#include "common/bcast_path.h"

namespace drover {
namespace {

std::string compressible() {
  std::string s;
  for (int i = 0; s.size() < 200000; ++i) s += "line " + std::to_string(i % 97) + " of text\n";
  return s;
}

std::string randomBytes(std::size_t n) {
  std::mt19937 gen(42);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(gen());
  return s;
}

TEST(BcastCompress, CodecNames) {
  EXPECT_EQ(parseBcastCodec("lz4"), BcastCodec::kLz4);
  EXPECT_EQ(parseBcastCodec("LZ4"), BcastCodec::kLz4);
  EXPECT_EQ(parseBcastCodec("zlib"), BcastCodec::kZlib);
  EXPECT_EQ(parseBcastCodec("none"), BcastCodec::kNone);
  EXPECT_EQ(parseBcastCodec("gzip"), std::nullopt);
  EXPECT_STREQ(bcastCodecName(BcastCodec::kLz4), "lz4");
}

TEST(BcastCompress, CompressibleBlocksShrinkAndRoundTrip) {
  const std::string raw = compressible();
  for (BcastCodec codec : {BcastCodec::kLz4, BcastCodec::kZlib}) {
    const CompressedBlock block = compressBlock(codec, raw);
    EXPECT_EQ(block.codec, codec);
    EXPECT_LT(block.data.size(), raw.size() / 4) << bcastCodecName(codec);
    auto back = expandBlock(block.codec, block.data, raw.size());
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, raw);
  }
}

TEST(BcastCompress, IncompressibleAndEmptyBlocksTravelAsTheyAre) {
  const std::string raw = randomBytes(65536);
  const CompressedBlock block = compressBlock(BcastCodec::kLz4, raw);
  EXPECT_EQ(block.codec, BcastCodec::kNone);
  EXPECT_EQ(block.data, raw);
  EXPECT_EQ(compressBlock(BcastCodec::kZlib, "").codec, BcastCodec::kNone);
  auto back = expandBlock(BcastCodec::kNone, raw, raw.size());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, raw);
}

TEST(BcastCompress, WrongSizeCorruptOrHugeBlocksAreRefused) {
  const std::string raw = compressible();
  for (BcastCodec codec : {BcastCodec::kLz4, BcastCodec::kZlib}) {
    const CompressedBlock block = compressBlock(codec, raw);
    EXPECT_FALSE(expandBlock(codec, block.data, raw.size() - 1).ok());
    EXPECT_FALSE(expandBlock(codec, block.data, raw.size() + 1).ok());
    EXPECT_FALSE(expandBlock(codec, block.data.substr(0, block.data.size() / 2), raw.size()).ok());
    EXPECT_FALSE(expandBlock(codec, block.data, kMaxBroadcastBlock + 1).ok());
  }
  EXPECT_FALSE(expandBlock(BcastCodec::kNone, "abc", 4).ok());
  EXPECT_FALSE(expandBlock(static_cast<BcastCodec>(9), "abc", 3).ok());
}

}  // namespace
}  // namespace drover
