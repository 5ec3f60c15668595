#pragma once
// Small string helpers shared by the jobspec parsers (not part of the public API).
#include <cstdint>
#include <optional>
#include <string_view>

namespace drover::jobspec::detail {

// Whole-string unsigned decimal parse; nullopt on empty, sign, junk or overflow past max.
std::optional<std::uint64_t> parseUnsigned(std::string_view s,
                                           std::uint64_t max = UINT64_MAX);
// Whole-string signed decimal parse with optional leading '+'/'-'.
std::optional<std::int64_t> parseSigned(std::string_view s);

}  // namespace drover::jobspec::detail
