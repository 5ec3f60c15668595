#include "jobspec/parse_util.h"

#include <cctype>

namespace drover::jobspec::detail {

std::optional<std::uint64_t> parseUnsigned(std::string_view s, std::uint64_t max) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<std::int64_t> parseSigned(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  auto v = parseUnsigned(s, static_cast<std::uint64_t>(INT64_MAX));
  if (!v) return std::nullopt;
  std::int64_t r = static_cast<std::int64_t>(*v);
  return neg ? -r : r;
}

}  // namespace drover::jobspec::detail
