#include "jobspec/begin_time.h"

#include <ctime>
#include <optional>
#include <string>

#include "common/ascii_case.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

std::tm localTm(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  return tm;
}

std::int64_t fromTm(std::tm tm) {
  tm.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&tm));
}

std::optional<int> num(std::string_view s, int lo, int hi) {
  auto v = detail::parseUnsigned(s, 100000);
  if (!v || static_cast<int>(*v) < lo || static_cast<int>(*v) > hi) return std::nullopt;
  return static_cast<int>(*v);
}

// Today (local) at h:m:s, or tomorrow when that is not after now.
std::int64_t nextTimeOfDay(std::int64_t now, int h, int m, int s) {
  std::tm tm = localTm(now);
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  std::int64_t t = fromTm(tm);
  if (t <= now) {
    tm.tm_mday += 1;
    t = fromTm(tm);
  }
  return t;
}

struct Hms {
  int h = 0, m = 0, s = 0;
};

// "HH:MM[:SS]" with optional "AM"/"PM" suffix (case-insensitive).
std::optional<Hms> parseHms(std::string_view text) {
  std::string lower = toLowerAscii(text);
  std::string_view t = lower;
  int pm = -1;
  if (t.ends_with("am") || t.ends_with("pm")) {
    pm = t.ends_with("pm") ? 1 : 0;
    t.remove_suffix(2);
  }
  auto parts = detail::split(t, ':');
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  auto h = num(parts[0], 0, 23);
  auto m = num(parts[1], 0, 59);
  auto s = parts.size() == 3 ? num(parts[2], 0, 59) : std::optional<int>(0);
  if (!h || !m || !s) return std::nullopt;
  Hms r{*h, *m, *s};
  if (pm >= 0) {
    if (r.h < 1 || r.h > 12) return std::nullopt;
    r.h = r.h % 12 + (pm ? 12 : 0);
  }
  return r;
}

std::optional<std::int64_t> unitSeconds(std::string_view unit) {
  std::string u = toLowerAscii(unit);
  if (u.empty() || u == "s" || u == "sec" || u == "secs" || u == "second" || u == "seconds") return 1;
  if (u == "min" || u == "mins" || u == "minute" || u == "minutes") return 60;
  if (u == "h" || u == "hour" || u == "hours") return 3600;
  if (u == "d" || u == "day" || u == "days") return 86400;
  if (u == "w" || u == "week" || u == "weeks") return 7 * 86400;
  return std::nullopt;
}

// A calendar date (local midnight) from y/m/d; nullopt when the date does not exist.
std::optional<std::int64_t> dateAt(int year, int month, int day, Hms hms) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hms.h;
  tm.tm_min = hms.m;
  tm.tm_sec = hms.s;
  std::int64_t t = fromTm(tm);
  std::tm back = localTm(t);
  if (back.tm_mday != day || back.tm_mon != month - 1) return std::nullopt;
  return t;
}

std::optional<std::int64_t> parseIsoDate(std::string_view text) {
  std::string_view date = text;
  Hms hms;
  if (auto t = text.find('T'); t != std::string_view::npos) {
    auto parsed = parseHms(text.substr(t + 1));
    if (!parsed) return std::nullopt;
    hms = *parsed;
    date = text.substr(0, t);
  }
  auto parts = detail::split(date, '-');
  if (parts.size() != 3 || parts[0].size() != 4) return std::nullopt;
  auto y = num(parts[0], 1970, 9999);
  auto m = num(parts[1], 1, 12);
  auto d = num(parts[2], 1, 31);
  if (!y || !m || !d) return std::nullopt;
  return dateAt(*y, *m, *d, hms);
}

// MM/DD[/YY], MM.DD[.YY], MMDD[YY]; no year means the next such date.
std::optional<std::int64_t> parseShortDate(std::string_view text, std::int64_t now) {
  std::vector<std::string_view> parts;
  if (text.find('/') != std::string_view::npos) {
    parts = detail::split(text, '/');
  } else if (text.find('.') != std::string_view::npos) {
    parts = detail::split(text, '.');
  } else if (text.size() == 4 || text.size() == 6) {
    for (std::size_t i = 0; i < text.size(); i += 2) parts.push_back(text.substr(i, 2));
  } else {
    return std::nullopt;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  auto m = num(parts[0], 1, 12);
  auto d = num(parts[1], 1, 31);
  if (!m || !d) return std::nullopt;
  std::tm nowtm = localTm(now);
  if (parts.size() == 3) {
    auto y = num(parts[2], 0, 99);
    if (!y || parts[2].size() != 2) return std::nullopt;
    return dateAt(2000 + *y, *m, *d, Hms{});
  }
  auto t = dateAt(nowtm.tm_year + 1900, *m, *d, Hms{});
  if (t && *t < fromTm([&] { std::tm x = nowtm; x.tm_hour = x.tm_min = x.tm_sec = 0; return x; }())) {
    t = dateAt(nowtm.tm_year + 1901, *m, *d, Hms{});
  }
  return t;
}

}  // namespace

Result<std::int64_t> parseBeginTime(std::string_view text, std::int64_t now) {
  auto fail = [&]() {
    return makeError("invalid begin time '" + std::string(text) +
                     "' (accepted: now[{+|-}count[seconds|minutes|hours|days|weeks]], HH:MM[:SS] "
                     "[AM|PM], YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], midnight, noon, elevenses, "
                     "fika, teatime, today, tomorrow)");
  };
  std::string lower = toLowerAscii(text);
  std::string_view t = lower;
  if (t.starts_with("now")) {
    std::string_view rest = t.substr(3);
    if (rest.empty()) return now;
    // now-N too, as Slurm's time specs: a window in sacct -S/-E; a past --begin starts at once.
    if (rest[0] != '+' && rest[0] != '-') return fail();
    const std::int64_t sign = rest[0] == '-' ? -1 : 1;
    rest.remove_prefix(1);
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    auto count = detail::parseUnsigned(rest.substr(0, digits), 1ULL << 40);
    auto unit = unitSeconds(rest.substr(digits));
    if (!count || !unit) return fail();
    return now + sign * static_cast<std::int64_t>(*count) * *unit;
  }
  if (t == "midnight") return nextTimeOfDay(now, 0, 0, 0);
  if (t == "noon") return nextTimeOfDay(now, 12, 0, 0);
  if (t == "elevenses") return nextTimeOfDay(now, 11, 0, 0);
  if (t == "fika") return nextTimeOfDay(now, 15, 0, 0);
  if (t == "teatime") return nextTimeOfDay(now, 16, 0, 0);
  if (t == "today" || t == "tomorrow") {
    std::tm tm = localTm(now);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (t == "tomorrow") tm.tm_mday += 1;
    return fromTm(tm);
  }
  if (auto iso = parseIsoDate(text)) return *iso;
  if (text.find(':') != std::string_view::npos) {
    if (auto hms = parseHms(text)) return nextTimeOfDay(now, hms->h, hms->m, hms->s);
    return fail();
  }
  if (auto d = parseShortDate(text, now)) return *d;
  return fail();
}

}  // namespace drover::jobspec
