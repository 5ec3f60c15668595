#include "jobspec/array_spec.h"

#include <algorithm>

#include "common/comma_list.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

using detail::parseUnsigned;

std::vector<std::uint32_t> ArraySpec::taskIds() const {
  std::vector<std::uint32_t> ids;
  for (const auto& r : ranges) {
    for (std::uint64_t i = r.first; i <= r.last; i += r.step) ids.push_back(static_cast<std::uint32_t>(i));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

Result<ArraySpec> parseArraySpec(std::string_view text, std::uint32_t max_array_size) {
  auto fail = [&](const std::string& why) {
    return makeError("invalid job array specification '" + std::string(text) + "': " + why +
                     " (accepted: \"0-15\", \"1,3,5-7\", \"0-99:2%8\"; ids below " +
                     std::to_string(max_array_size) + ")");
  };
  ArraySpec spec;
  spec.text = std::string(text);
  std::string_view body = text;
  if (auto pct = body.find('%'); pct != std::string_view::npos) {
    auto limit = parseUnsigned(body.substr(pct + 1), UINT32_MAX);
    if (!limit) return fail("the %limit must be a number");
    // %0 is no limit: the reference ran every task of --array=1-10%0 and showed no throttle.
    if (*limit > 0) spec.max_running = static_cast<std::uint32_t>(*limit);
    body = body.substr(0, pct);
  }
  if (body.empty()) return fail("no task ids");
  for (std::string_view part : splitFields(body, ',')) {
    if (part.empty()) return fail("empty element");
    ArrayRange r;
    std::string_view range = part;
    if (auto colon = part.find(':'); colon != std::string_view::npos) {
      auto step = parseUnsigned(part.substr(colon + 1), UINT32_MAX);
      if (!step || *step == 0) return fail("step in '" + std::string(part) + "' must be positive");
      r.step = static_cast<std::uint32_t>(*step);
      range = part.substr(0, colon);
    }
    auto dash = range.find('-');
    auto first = parseUnsigned(range.substr(0, dash), UINT32_MAX);
    auto last = dash == std::string_view::npos ? first
                                               : parseUnsigned(range.substr(dash + 1), UINT32_MAX);
    if (!first || !last) return fail("'" + std::string(part) + "' is not a number or range");
    if (*last < *first) return fail("range '" + std::string(part) + "' ends before it starts");
    if (*last >= max_array_size) {
      return fail("task id " + std::to_string(*last) + " is not below MaxArraySize");
    }
    if (r.step != 1 && dash == std::string_view::npos) return fail("a step needs a range");
    r.first = static_cast<std::uint32_t>(*first);
    r.last = static_cast<std::uint32_t>(*last);
    spec.ranges.push_back(r);
  }
  return spec;
}

std::string compressIds(const std::vector<std::uint32_t>& sorted_ids) {
  std::string out;
  for (std::size_t i = 0; i < sorted_ids.size();) {
    std::size_t j = i;
    while (j + 1 < sorted_ids.size() && sorted_ids[j + 1] == sorted_ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted_ids[i]);
    if (j > i) out += '-' + std::to_string(sorted_ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace drover::jobspec
