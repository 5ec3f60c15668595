#include "common/debug_level.h"

#include <array>
#include <charconv>

#include "common/ascii_case.h"

namespace drover {
namespace {

constexpr std::array<std::string_view, 10> kNames = {
    "quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4", "debug5"};

}  // namespace

std::optional<int> parseDebugLevel(std::string_view text) {
  int number = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc() && end == text.data() + text.size()) {
    if (number >= 0 && number < static_cast<int>(kNames.size())) return number;
    return std::nullopt;
  }
  const std::string lower = toLowerAscii(std::string(text));
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (lower == kNames[i]) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string_view debugLevelName(int level) {
  if (level < 0 || level >= static_cast<int>(kNames.size())) return kNames[kDebugInfo];
  return kNames[static_cast<std::size_t>(level)];
}

}  // namespace drover
