#include "cli/sacct_filters.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/ascii_case.h"
#include "common/comma_list.h"

namespace drover::cli {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& value) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& item) { return toLowerAscii(item) == toLowerAscii(value); });
}

std::optional<std::uint32_t> number(std::string_view text) {
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool inRange(std::uint32_t value, const std::optional<CountRange>& range) {
  return !range || (value >= range->min && value <= range->max);
}

// A feature named in the job's constraint expression ("a100&ib", "[rack1|rack2]").
bool requested(const std::string& constraints, const std::string& feature) {
  std::string word;
  for (char ch : constraints + "&") {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.') {
      word += ch;
    } else {
      if (!word.empty() && word == feature) return true;
      word.clear();
    }
  }
  return false;
}

}  // namespace

Result<CountRange> parseCountRange(std::string_view text, std::string_view what) {
  const auto dash = text.find('-');
  const auto low = number(text.substr(0, dash));
  const auto high = dash == std::string_view::npos ? low : number(text.substr(dash + 1));
  if (!low || !high) {
    return makeError("Invalid numeric value \"" + std::string(text) + "\" for requested " +
                     std::string(what) + " range.");
  }
  return CountRange{*low, *high};  // a reversed range selects nothing, as the reference's
}

bool SacctRecordFilter::any() const {
  return none || !qos.empty() || !reasons.empty() || !wckeys.empty() || !constraints.empty() ||
         nnodes || ncpus || timelimit_min || flags || !associations.empty();
}

bool SacctRecordFilter::keeps(const acct::JobRecord& job) const {
  if (none) return false;
  if (!qos.empty() && !listed(qos, job.qos)) return false;
  if (!reasons.empty() && !listed(reasons, job.reason)) return false;
  if (!wckeys.empty() && !listed(wckeys, job.wckey)) return false;
  if (!constraints.empty() &&
      std::none_of(constraints.begin(), constraints.end(),
                   [&](const std::string& f) { return requested(job.constraints, f); }))
    return false;
  if (flags && std::none_of(flags->begin(), flags->end(), [&](const std::string& flag) {
        return std::find(job.flags.begin(), job.flags.end(), flag) != job.flags.end();
      }))
    return false;
  if (!associations.empty() &&
      std::find(associations.begin(), associations.end(), job.assoc_id) == associations.end())
    return false;
  if (!inRange(job.nnodes, nnodes) || !inRange(job.ncpus, ncpus)) return false;
  // -k alone: that limit exactly; with -K, the range; -K alone is ignored (sacct(1)).
  // UNLIMITED (negative) is above every limit.
  if (timelimit_min) {
    const std::int64_t limit = job.time_limit_min < 0 ? INT64_MAX : job.time_limit_min;
    if (!timelimit_max && limit != *timelimit_min) return false;
    if (timelimit_max && (limit < *timelimit_min || limit > *timelimit_max)) return false;
  }
  return true;
}

void truncateToWindow(acct::JobWithSteps& job, std::optional<std::int64_t> window_start,
                      std::int64_t window_end) {
  auto cut = [&](std::int64_t& start, std::int64_t& end) {
    if (start == 0) return;  // never started: nothing to cut
    if (window_start && start < *window_start) start = *window_start;
    if (end == 0 || end > window_end) end = window_end;
    if (end < start) end = start;
  };
  cut(job.job.start, job.job.end);
  for (auto& step : job.steps) cut(step.start, step.end);
}

}  // namespace drover::cli
