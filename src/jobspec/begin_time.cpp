#include "jobspec/begin_time.h"

#include <ctime>
#include <optional>
#include <string>

#include "common/ascii_case.h"

namespace drover::jobspec {

namespace {

// Where reading stopped; nullopt while it goes on.
using Stop = std::optional<std::size_t>;

struct Hms {
  int h = 0, m = 0, s = 0;
};

// A calendar day as the spec names it: a date (with or without its year), or today plus
// some days (today, tomorrow).
struct Day {
  std::optional<int> year;
  int month = 0, mday = 0;
  std::optional<int> days_from_today;
};

struct Reading {
  std::optional<std::int64_t> offset_from_now;
  std::optional<Hms> time;
  std::optional<Day> day;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) { return c == ' ' || c == '\t'; }

// The reading position over the spec, with the few moves every form needs.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : s_(text) {}
  std::size_t at() const { return i_; }
  void moveTo(std::size_t i) { i_ = i; }
  bool atEnd() const { return i_ >= s_.size(); }
  char peek(std::size_t ahead = 0) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  std::string_view rest() const { return s_.substr(std::min(i_, s_.size())); }
  void skipSpaces() {
    while (!atEnd() && isSpace(s_[i_])) ++i_;
  }
  std::size_t digitsAhead() const {
    std::size_t n = 0;
    while (isDigit(peek(n))) ++n;
    return n;
  }
  int number(std::size_t from, std::size_t count) const {
    int v = 0;
    for (std::size_t k = from; k < from + count; ++k) v = v * 10 + (s_[k] - '0');
    return v;
  }
  // A token ends at a space or the end; anything else here is where reading stops.
  Stop endOfToken() const { return atEnd() || isSpace(peek()) ? Stop{} : Stop{i_}; }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

// Exactly two digits in lo..hi at the cursor: a missing digit stops where it was expected, a
// value out of range where the field starts.
Stop twoDigits(Cursor& c, int lo, int hi, int* out) {
  const std::size_t start = c.at();
  if (!isDigit(c.peek())) return start;
  if (!isDigit(c.peek(1))) return start + 1;
  *out = c.number(start, 2);
  if (*out < lo || *out > hi) return start;
  c.moveTo(start + 2);
  return {};
}

std::optional<std::pair<std::int64_t, std::size_t>> unitAt(std::string_view text) {
  struct Unit {
    std::string_view word;
    std::int64_t seconds;
  };
  static constexpr Unit kUnits[] = {
      {"seconds", 1},  {"second", 1},     {"minutes", 60},     {"minute", 60},
      {"hours", 3600}, {"hour", 3600},    {"days", 86400},     {"day", 86400},
      {"weeks", 604800}, {"week", 604800},
  };
  for (const Unit& u : kUnits) {
    if (startsWithIgnoreCase(text, u.word)) return std::make_pair(u.seconds, u.word.size());
  }
  return std::nullopt;
}

// now[{+|-}count[unit]]: nothing may follow it.
Stop readNow(Cursor& c, Reading& r) {
  c.moveTo(c.at() + 3);
  c.skipSpaces();
  r.offset_from_now = 0;
  if (c.atEnd()) return {};
  if (c.peek() != '+' && c.peek() != '-') return c.at();
  const std::size_t sign_at = c.at();
  const std::int64_t sign = c.peek() == '-' ? -1 : 1;
  c.moveTo(c.at() + 1);
  c.skipSpaces();
  const std::size_t count_at = c.at();
  const std::size_t digits = c.digitsAhead();
  if (digits == 0) return sign_at;
  if (digits > 9) return count_at;
  const std::int64_t count = c.number(count_at, digits);
  c.moveTo(count_at + digits);
  const std::size_t count_end = c.at();
  c.skipSpaces();
  std::int64_t unit = 1;
  if (!c.atEnd()) {
    auto found = unitAt(c.rest());
    if (!found) return c.at() == count_end ? count_at : count_end;
    unit = found->first;
    c.moveTo(c.at() + found->second);
    c.skipSpaces();
    if (!c.atEnd()) return c.at();
  }
  r.offset_from_now = sign * count * unit;
  return {};
}

// HH:MM[:SS][ ][AM|PM] (after an ISO date's T too).
Stop readClock(Cursor& c, Reading& r) {
  const std::size_t start = c.at();
  const std::size_t digits = c.digitsAhead();
  if (digits == 0 || digits > 2) return start;
  Hms hms;
  hms.h = c.number(start, digits);
  if (hms.h > 23) return start;
  c.moveTo(start + digits);
  if (c.peek() != ':') return c.at();
  c.moveTo(c.at() + 1);
  if (Stop stop = twoDigits(c, 0, 59, &hms.m)) return stop;
  if (c.peek() == ':') {
    c.moveTo(c.at() + 1);
    if (Stop stop = twoDigits(c, 0, 59, &hms.s)) return stop;
  }
  const std::size_t clock_end = c.at();
  c.skipSpaces();
  const std::string_view rest = c.rest();
  if (startsWithIgnoreCase(rest, "am") || startsWithIgnoreCase(rest, "pm")) {
    if (hms.h > 12) return c.at();
    hms.h = hms.h % 12 + (startsWithIgnoreCase(rest, "pm") ? 12 : 0);
    c.moveTo(c.at() + 2);
  } else {
    c.moveTo(clock_end);
  }
  r.time = hms;
  return c.endOfToken();
}

// YYYY-MM-D[D][THH:MM[:SS]]; the cursor is on a shape checked by isIsoDate.
Stop readIsoDate(Cursor& c, Reading& r) {
  const std::size_t start = c.at();
  Day day;
  day.year = c.number(start, 4);
  day.month = c.number(start + 5, 2);
  if (day.month < 1 || day.month > 12) return start + 5;
  c.moveTo(start + 8);
  const std::size_t digits = c.digitsAhead();
  if (digits == 0 || digits > 2) return c.at();
  day.mday = c.number(c.at(), digits);
  if (day.mday < 1 || day.mday > 31) return c.at();
  c.moveTo(c.at() + digits);
  r.day = day;
  if (c.peek() == 'T') {
    c.moveTo(c.at() + 1);
    if (c.atEnd() || isSpace(c.peek())) {
      r.time = Hms{};
      return {};
    }
    return readClock(c, r);
  }
  return c.endOfToken();
}

bool isIsoDate(const Cursor& c) {
  for (std::size_t k : {0, 1, 2, 3, 5, 6})
    if (!isDigit(c.peek(k))) return false;
  return c.peek(4) == '-' && c.peek(7) == '-';
}

// MM/DD[/YY] or MM.DD[.YY].
Stop readSeparatedDate(Cursor& c, Reading& r) {
  const std::size_t start = c.at();
  const std::size_t digits = c.digitsAhead();
  Day day;
  day.month = c.number(start, digits);
  if (day.month < 1 || day.month > 12) return start;
  const char sep = c.peek(digits);
  c.moveTo(start + digits + 1);
  const std::size_t day_at = c.at();
  const std::size_t day_digits = c.digitsAhead();
  if (day_digits == 0) return day_at;
  if (day_digits > 2) return day_at + 2;
  day.mday = c.number(day_at, day_digits);
  if (day.mday < 1 || day.mday > 31) return day_at;
  c.moveTo(day_at + day_digits);
  if (c.peek() == sep) {
    c.moveTo(c.at() + 1);
    int yy = 0;
    if (Stop stop = twoDigits(c, 0, 99, &yy)) return stop;
    day.year = 2000 + yy;
  }
  r.day = day;
  return c.endOfToken();
}

// MMDD or MMDDYY.
Stop readDigitDate(Cursor& c, Reading& r) {
  const std::size_t start = c.at();
  const std::size_t digits = c.digitsAhead();
  Day day;
  if (digits < 2) return start + digits;
  day.month = c.number(start, 2);
  if (day.month < 1 || day.month > 12) return start;
  if (digits >= 4) {
    day.mday = c.number(start + 2, 2);
    if (day.mday < 1 || day.mday > 31) return start + 2;
  }
  if (digits != 4 && digits != 6) return start + digits;
  if (digits == 6) day.year = 2000 + c.number(start + 4, 2);
  c.moveTo(start + digits);
  r.day = day;
  return c.endOfToken();
}

// midnight, noon, ... (a time of day) and today, tomorrow (a day).
Stop readWord(Cursor& c, Reading& r, bool* matched) {
  struct Word {
    std::string_view word;
    int hour;          // -1: a day, not a time of day
    int days_ahead;
  };
  static constexpr Word kWords[] = {
      {"midnight", 0, 0}, {"noon", 12, 0}, {"elevenses", 11, 0}, {"fika", 15, 0},
      {"teatime", 16, 0}, {"today", -1, 0}, {"tomorrow", -1, 1},
  };
  for (const Word& w : kWords) {
    if (!startsWithIgnoreCase(c.rest(), w.word)) continue;
    *matched = true;
    if (w.hour >= 0) {
      r.time = Hms{w.hour, 0, 0};
    } else {
      Day day;
      day.days_from_today = w.days_ahead;
      r.day = day;
    }
    c.moveTo(c.at() + w.word.size());
    return c.endOfToken();
  }
  *matched = false;
  return {};
}

// One time of day or one day at the cursor (a later one replaces an earlier one).
Stop readToken(Cursor& c, Reading& r) {
  bool word = false;
  if (Stop stop = readWord(c, r, &word); stop || word) return stop;
  if (isIsoDate(c)) return readIsoDate(c, r);
  const std::size_t digits = c.digitsAhead();
  if (digits == 0) return c.at();
  const char after = c.peek(digits);
  if (after == ':') return readClock(c, r);
  if ((after == '/' || after == '.') && digits <= 2) return readSeparatedDate(c, r);
  return readDigitDate(c, r);
}

std::tm localTm(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  return tm;
}

// mktime normalises as Slurm's client does: 2027-02-30 is 2027-03-02.
std::int64_t fromTm(std::tm tm) {
  tm.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&tm));
}

std::int64_t placeReading(const Reading& r, std::int64_t now, TimeSpecUse use) {
  if (r.offset_from_now) return now + *r.offset_from_now;
  const Hms hms = r.time.value_or(Hms{});
  std::tm tm = localTm(now);
  tm.tm_hour = hms.h;
  tm.tm_min = hms.m;
  tm.tm_sec = hms.s;
  if (!r.day) {
    std::int64_t t = fromTm(tm);
    if (use == TimeSpecUse::kBegin && t <= now) {
      tm.tm_mday += 1;
      t = fromTm(tm);
    }
    return t;
  }
  const Day& day = *r.day;
  if (day.days_from_today) {
    tm.tm_mday += *day.days_from_today;
    return fromTm(tm);
  }
  const int this_year = tm.tm_year;
  tm.tm_year = day.year ? *day.year - 1900 : this_year;
  tm.tm_mon = day.month - 1;
  tm.tm_mday = day.mday;
  std::int64_t t = fromTm(tm);
  if (!day.year && use == TimeSpecUse::kBegin) {
    std::tm today = localTm(now);
    today.tm_hour = today.tm_min = today.tm_sec = 0;
    if (t < fromTm(today)) {
      tm.tm_year = this_year + 1;
      t = fromTm(tm);
    }
  }
  return t;
}

}  // namespace

Result<std::int64_t> parseTimeSpec(std::string_view text, std::int64_t now, TimeSpecUse use) {
  auto invalid = [&](std::size_t pos) {
    return makeError("Invalid time specification (pos=" + std::to_string(pos) +
                     "): " + std::string(text));
  };
  if (text.empty()) return makeError("");
  Cursor c(text);
  c.skipSpaces();
  if (c.atEnd()) return invalid(0);
  Reading r;
  if (startsWithIgnoreCase(c.rest(), "now")) {
    if (Stop stop = readNow(c, r)) return invalid(*stop);
    return placeReading(r, now, use);
  }
  while (!c.atEnd()) {
    if (startsWithIgnoreCase(c.rest(), "now")) return invalid(c.at());  // only on its own
    if (Stop stop = readToken(c, r)) return invalid(*stop);
    c.skipSpaces();
  }
  return placeReading(r, now, use);
}

}  // namespace drover::jobspec
