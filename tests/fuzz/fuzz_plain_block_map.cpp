// Differential check of the CLIs' cluster.conf fast path (src/config/plain_block_map.h): on any
// input it accepts, yaml-cpp must read the same text without error into the same tree (maps
// with the same keys, scalars with the same text). Inputs it declines are yaml-cpp's alone.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "config/plain_block_map.h"
#include "fuzz_check.h"

namespace {

bool sameTree(const YAML::Node& a, const YAML::Node& b) {
  if (a.Type() != b.Type()) return false;
  if (a.IsScalar()) return a.Scalar() == b.Scalar();
  if (!a.IsMap() || a.size() != b.size()) return false;
  for (const auto& entry : a) {
    const std::string key = entry.first.Scalar();
    const YAML::Node other = b[key];
    if (!other.IsDefined() || !sameTree(entry.second, other)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto plain = drover::config::loadPlainBlockMap(text);
  if (!plain) return 0;
  YAML::Node full;
  try {
    full = YAML::Load(text);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "accepted text yaml-cpp refuses (%s):\n%s", e.what(), text.c_str());
  }
  FUZZ_CHECK(sameTree(*plain, full), "tree differs from yaml-cpp's for:\n%s", text.c_str());
  return 0;
}
