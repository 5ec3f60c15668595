#include "common/sha256.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

namespace drover {
namespace {

struct Vector {
  std::string input;
  std::string hex;
};

// FIPS 180-4 examples and the usual extra vectors.
TEST(Sha256, KnownVectors) {
  const std::vector<Vector> cases = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const auto& c : cases) EXPECT_EQ(sha256Hex(c.input), c.hex) << c.input.size() << " bytes";
}

std::string opensslHex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex.push_back(kHex[md[i] >> 4]);
    hex.push_back(kHex[md[i] & 0xf]);
  }
  return hex;
}

// Every length around the block and padding boundaries, fed in random pieces, agrees with
// OpenSSL.
TEST(Sha256, MatchesOpenSslForEveryLengthAndSplit) {
  std::mt19937 rng(42);
  for (std::size_t len = 0; len < 300; ++len) {
    std::string data(len, '\0');
    for (char& ch : data) ch = char(rng());
    Sha256 hash;
    std::size_t at = 0;
    while (at < len) {
      const std::size_t piece = std::min<std::size_t>(len - at, rng() % 70 + 1);
      hash.update(std::string_view(data).substr(at, piece));
      at += piece;
    }
    std::string hex;
    for (std::uint8_t byte : hash.finish()) {
      static constexpr char kHex[] = "0123456789abcdef";
      hex.push_back(kHex[byte >> 4]);
      hex.push_back(kHex[byte & 0xf]);
    }
    EXPECT_EQ(hex, opensslHex(data)) << len << " bytes";
  }
}

}  // namespace
}  // namespace drover
