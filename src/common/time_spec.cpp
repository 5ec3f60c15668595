// Slurm time limits ("1-12:00:00") and memory sizes ("4G"), parsed and printed as Slurm 22.05
// does (formats checked against the captured sinfo/squeue/scontrol outputs).
#include "drover/time_spec.h"
#include "common/ascii_case.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>

namespace drover {
namespace {

// Slurm keeps limits as 32-bit minutes with the top values reserved; refuse anything larger so
// every accepted limit survives a round trip through Slurm-compatible tools.
constexpr std::int64_t kMaxLimitMinutes = 0xFFFFFFFDLL;
// A field longer than this cannot be a sane limit and could overflow the arithmetic.
constexpr std::size_t kMaxFieldDigits = 10;

Error timeError(std::string_view text, std::string_view why) {
  return makeError("Invalid time limit specification '" + std::string(text) + "': " +
                   std::string(why) +
                   " (accepted: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, UNLIMITED or infinite)");
}

// Splits "a:b:c" into digit fields; fails on an empty or non-numeric field.
Result<std::vector<std::int64_t>> parseFields(std::string_view full, std::string_view part) {
  std::vector<std::int64_t> fields;
  std::size_t pos = 0;
  while (true) {
    std::size_t start = pos;
    std::int64_t v = 0;
    while (pos < part.size() && part[pos] >= '0' && part[pos] <= '9') {
      v = v * 10 + (part[pos] - '0');
      ++pos;
      if (pos - start > kMaxFieldDigits) return timeError(full, "number too large");
    }
    if (pos == start) {
      if (pos == part.size() || part[pos] == ':') return timeError(full, "missing number");
      return timeError(full, "unexpected '" + std::string(1, part[pos]) + "'");
    }
    fields.push_back(v);
    if (pos == part.size()) break;
    if (part[pos] != ':') return timeError(full, "unexpected '" + std::string(1, part[pos]) + "'");
    ++pos;
  }
  if (fields.size() > 3) return timeError(full, "too many ':' fields");
  return fields;
}

std::string twoDigits(std::int64_t v) {
  std::array<char, 32> buf{};
  std::snprintf(buf.data(), buf.size(), "%02lld", static_cast<long long>(v));
  return buf.data();
}

// [D-]H:MM:SS with the hour field either zero-padded (scontrol) or not (sinfo/squeue), and
// M:SS under an hour for the short form.
std::string formatClock(std::int64_t seconds, bool scontrol_style) {
  std::int64_t days = seconds / 86400;
  std::int64_t hours = seconds / 3600 % 24;
  std::int64_t minutes = seconds / 60 % 60;
  std::int64_t secs = seconds % 60;
  if (days > 0)
    return std::to_string(days) + "-" + twoDigits(hours) + ":" + twoDigits(minutes) + ":" +
           twoDigits(secs);
  if (scontrol_style) return twoDigits(hours) + ":" + twoDigits(minutes) + ":" + twoDigits(secs);
  if (hours > 0)
    return std::to_string(hours) + ":" + twoDigits(minutes) + ":" + twoDigits(secs);
  return std::to_string(minutes) + ":" + twoDigits(secs);
}

Error memoryError(std::string_view text, std::string_view why) {
  return makeError("Invalid memory specification '" + std::string(text) + "': " +
                   std::string(why) +
                   " (accepted: a whole number of megabytes, optionally followed by K, M, G, "
                   "T, P or E, such as 4000, 512K, 4G or 1T)");
}

}  // namespace

Result<std::int64_t> parseTimeSpecSeconds(std::string_view text) {
  if (equalsIgnoreCase(text, "unlimited") || equalsIgnoreCase(text, "infinite") || text == "-1")
    return kUnlimitedSeconds;
  if (text.empty()) return timeError(text, "empty");

  std::int64_t days = 0, hours = 0, minutes = 0, seconds = 0;
  std::size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    std::string_view day_part = text.substr(0, dash);
    if (day_part.empty()) return timeError(text, "missing days before '-'");
    auto d = parseFields(text, day_part);
    if (!d) return Error{d.error()};
    if (d->size() != 1) return timeError(text, "days must be a plain number before '-'");
    days = (*d)[0];
    // "1-" is a day and no hours, as the reference took `-t 1-` (1-00:00:00).
    if (dash + 1 < text.size()) {
      auto rest = parseFields(text, text.substr(dash + 1));
      if (!rest) return Error{rest.error()};
      const auto& f = *rest;
      hours = f[0];
      if (f.size() > 1) minutes = f[1];
      if (f.size() > 2) seconds = f[2];
    }
  } else {
    auto fields = parseFields(text, text);
    if (!fields) return Error{fields.error()};
    const auto& f = *fields;
    if (f.size() == 1) {
      minutes = f[0];
    } else if (f.size() == 2) {
      minutes = f[0];
      seconds = f[1];
    } else {
      hours = f[0];
      minutes = f[1];
      seconds = f[2];
    }
  }
  // Each field has at most 10 digits, so the sum cannot overflow int64 before this check.
  std::int64_t total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
  if ((total + 59) / 60 > kMaxLimitMinutes) return timeError(text, "too large");
  return total;
}

Result<std::int64_t> parseTimeLimitMinutes(std::string_view text) {
  auto seconds = parseTimeSpecSeconds(text);
  if (!seconds) return seconds;
  if (*seconds == kUnlimitedSeconds) return kUnlimitedMinutes;
  return (*seconds + 59) / 60;  // a partial minute counts as a whole one, as in Slurm
}

std::string formatDuration(std::int64_t seconds) {
  if (seconds == kUnlimitedSeconds) return "UNLIMITED";
  if (seconds < 0) return "INVALID";
  return formatClock(seconds, true);
}

std::string formatTimeLimit(std::int64_t seconds) {
  if (seconds == kUnlimitedSeconds) return "UNLIMITED";
  if (seconds < 0) return "INVALID";
  return formatClock(seconds, false);
}

std::string formatElapsed(std::int64_t seconds) {
  if (seconds < 0) return "INVALID";
  return formatClock(seconds, false);
}

Result<std::uint64_t> parseMemoryMb(std::string_view text) {
  if (text.empty()) return memoryError(text, "empty");
  std::size_t pos = 0;
  std::uint64_t value = 0;
  constexpr std::uint64_t kMaxValue = 1ULL << 53;  // MiB; far beyond any real machine
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    value = value * 10 + static_cast<std::uint64_t>(text[pos] - '0');
    if (value > kMaxValue) return memoryError(text, "too large");
    ++pos;
  }
  if (pos == 0) return memoryError(text, "missing number");
  if (pos == text.size()) return value;
  if (pos + 1 != text.size()) return memoryError(text, "unexpected '" + std::string(text.substr(pos)) + "'");
  std::uint64_t multiplier = 1;
  switch (text[pos]) {
    case 'k':
    case 'K':
      return (value + 1023) / 1024;  // rounds up, as Slurm does, so 512K is 1 MiB
    case 'm':
    case 'M':
      break;
    case 'g':
    case 'G':
      multiplier = 1024;
      break;
    case 't':
    case 'T':
      multiplier = 1024ULL * 1024;
      break;
    // Slurm reads only up to T, but prints P and E for cluster-wide totals; accept what we print.
    case 'p':
    case 'P':
      multiplier = 1024ULL * 1024 * 1024;
      break;
    case 'e':
    case 'E':
      multiplier = 1024ULL * 1024 * 1024 * 1024;
      break;
    default:
      return memoryError(text, "unknown unit '" + std::string(1, text[pos]) + "'");
  }
  if (value > kMaxValue / multiplier) return memoryError(text, "too large");
  std::uint64_t result = value * multiplier;
  return result;
}

Result<std::uint64_t> parseJobMemoryMb(std::string_view text) {
  std::string_view number = text;
  // "10GB", "1kb": a B after the unit letter, as the reference's sbatch took (a bare "10B" not).
  if (number.size() >= 2 && (number.back() == 'b' || number.back() == 'B') &&
      std::string_view("kKmMgGtT").find(number[number.size() - 2]) != std::string_view::npos) {
    number.remove_suffix(1);
  }
  auto mb = parseMemoryMb(number);
  if (!mb || std::string_view("pPeE").find(number.back()) != std::string_view::npos) {
    return makeError("Invalid memory specification '" + std::string(text) +
                     "' (accepted: a whole number of megabytes, optionally followed by K, M, G or T "
                     "and a B, such as 4000, 512K, 4G, 4GB or 1T)");
  }
  return mb;
}

std::string formatMemoryMb(std::uint64_t mb) {
  if (mb == 0) return "0";
  // Slurm moves to the next unit while the value stays a whole or half number of it:
  // 65536 -> 64G, 64000 -> 62.50G, 12000 -> 12000M.
  static constexpr std::array<char, 5> kUnits = {'M', 'G', 'T', 'P', 'E'};
  double value = static_cast<double>(mb);
  std::size_t unit = 0;
  while (unit + 1 < kUnits.size() && value >= 1024 &&
         std::fmod(std::floor(value), 512.0) == 0) {
    value /= 1024;
    ++unit;
  }
  std::array<char, 64> buf{};
  if (value == std::floor(value))
    std::snprintf(buf.data(), buf.size(), "%.0f%c", value, kUnits[unit]);
  else
    std::snprintf(buf.data(), buf.size(), "%.2f%c", value, kUnits[unit]);
  return buf.data();
}

std::string formatLocalTime(std::int64_t unix_seconds, const char* format) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

}  // namespace drover
