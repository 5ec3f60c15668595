#pragma once
// SHA-256 (FIPS 180-4), for binding a MUNGE credential to the request it signs. Written here
// rather than taken from OpenSSL so the CLIs need not load libcrypto: loading and initialising
// it (it reads openssl.cnf) costs a CLI more start-up time than the rest of a submission.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace drover {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  void update(std::string_view data);
  Digest finish();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lower-case hex of SHA-256(data).
std::string sha256Hex(std::string_view data);

}  // namespace drover
