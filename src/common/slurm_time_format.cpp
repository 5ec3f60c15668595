#include "drover/slurm_time_format.h"

#include <cstdlib>
#include <ctime>

#include "drover/time_spec.h"

namespace drover {
namespace {

std::tm localTm(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  return tm;
}

std::string strftimeText(const std::tm& tm, const char* format) {
  char buf[256];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

// Days from the present's calendar day to the moment's, both in the local time zone.
int calendarDaysAhead(const std::tm& moment, const std::tm& present) {
  std::tm a = moment, b = present;
  a.tm_hour = b.tm_hour = 12;  // noon: a day is 24 h apart whatever daylight saving does
  a.tm_min = b.tm_min = a.tm_sec = b.tm_sec = 0;
  a.tm_isdst = b.tm_isdst = -1;
  const double seconds = std::difftime(std::mktime(&a), std::mktime(&b));
  return static_cast<int>(seconds >= 0 ? (seconds + 43200) / 86400 : (seconds - 43200) / 86400);
}

std::string relativeTime(std::int64_t unix_seconds, std::int64_t now) {
  const std::tm moment = localTm(unix_seconds);
  const std::tm present = localTm(now);
  if (moment.tm_year != present.tm_year) return strftimeText(moment, "%-d %b %Y");
  const int days = calendarDaysAhead(moment, present);
  if (days == 0) return strftimeText(moment, "%H:%M:%S");
  if (days == 1) return strftimeText(moment, "Tomorr %H:%M");
  if (days == -1) return strftimeText(moment, "Ystday %H:%M");
  if (days > 1 && days < 7) return strftimeText(moment, "%a %H:%M");
  return strftimeText(moment, "%-d %b %H:%M");
}

}  // namespace

std::string formatSlurmTime(std::int64_t unix_seconds, std::string_view format, std::int64_t now) {
  if (format.empty() || format == "standard") return formatLocalTime(unix_seconds, kIsoLocalTime);
  if (format == "relative") return relativeTime(unix_seconds, now);
  return strftimeText(localTm(unix_seconds), std::string(format).c_str());
}

std::string formatSlurmTime(std::int64_t unix_seconds) {
  const char* format = std::getenv("SLURM_TIME_FORMAT");
  return formatSlurmTime(unix_seconds, format ? format : "", static_cast<std::int64_t>(std::time(nullptr)));
}

}  // namespace drover
