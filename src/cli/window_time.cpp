#include "cli/window_time.h"

#include <ctime>

#include "jobspec/begin_time.h"

namespace drover::cli {

std::int64_t localMidnight(std::int64_t now) {
  std::time_t t = static_cast<std::time_t>(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&tm));
}

Result<std::int64_t> parseWindowTime(const std::string& text, std::int64_t now) {
  return jobspec::parseTimeSpec(text, now, jobspec::TimeSpecUse::kWindow);
}

}  // namespace drover::cli
