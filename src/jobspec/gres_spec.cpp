#include "jobspec/gres_spec.h"

#include <cctype>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

bool validName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

// Counts may carry a K/M/G suffix (powers of 1024), as for mps shares.
std::optional<std::uint64_t> parseCount(std::string_view s) {
  std::uint64_t mult = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'k': case 'K': mult = 1024ULL; break;
      case 'm': case 'M': mult = 1024ULL * 1024; break;
      case 'g': case 'G': mult = 1024ULL * 1024 * 1024; break;
      default: break;
    }
    if (mult != 1) s.remove_suffix(1);
  }
  auto v = detail::parseUnsigned(s, UINT64_MAX / (1024ULL * 1024 * 1024));
  if (!v) return std::nullopt;
  return *v * mult;
}

}  // namespace

Result<std::vector<GresRequest>> parseGresList(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return makeError("invalid gres specification '" + std::string(text) + "': " + why +
                     " (accepted: name[:type][:count], comma separated, e.g. gpu:h100:2)");
  };
  std::vector<GresRequest> out;
  if (equalsIgnoreCase(text, "none")) return out;
  if (text.empty()) return fail("empty");
  for (std::string_view item : splitFields(text, ',')) {
    if (item.starts_with("gres/")) item.remove_prefix(5);
    auto parts = splitFields(item, ':');
    if (parts.size() > 3) return fail("too many ':' in '" + std::string(item) + "'");
    GresRequest g;
    if (!validName(parts[0])) return fail("bad name in '" + std::string(item) + "'");
    g.name = std::string(parts[0]);
    if (parts.size() == 2) {
      if (auto c = parseCount(parts[1])) {
        g.count = *c;
      } else if (validName(parts[1])) {
        g.type = std::string(parts[1]);
      } else {
        return fail("bad type or count in '" + std::string(item) + "'");
      }
    } else if (parts.size() == 3) {
      if (!validName(parts[1])) return fail("bad type in '" + std::string(item) + "'");
      g.type = std::string(parts[1]);
      auto c = parseCount(parts[2]);
      if (!c) return fail("bad count in '" + std::string(item) + "'");
      g.count = *c;
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::string formatGres(const GresRequest& gres) {
  std::string out = gres.name;
  if (gres.type) out += ':' + *gres.type;
  out += ':' + std::to_string(gres.count);
  return out;
}

Result<GpuCount> parseGpuCount(std::string_view text) {
  auto fail = [&]() {
    return makeError("invalid GPU count '" + std::string(text) +
                     "' (accepted: [type:]count, e.g. 2 or h100:2)");
  };
  GpuCount g;
  std::string_view count = text;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    std::string_view type = text.substr(0, colon);
    if (!validName(type)) return fail();
    g.type = std::string(type);
    count = text.substr(colon + 1);
  }
  auto c = detail::parseUnsigned(count, UINT32_MAX);
  if (!c) return fail();
  g.count = *c;
  return g;
}

}  // namespace drover::jobspec
