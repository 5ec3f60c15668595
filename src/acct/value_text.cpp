#include "acct/value_text.h"

#include <cinttypes>
#include <cstdio>

namespace drover::acct {

std::string formatSizeKb(std::int64_t kb) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  if (kb == 0) return "0";
  std::size_t unit = 0;
  while (unit + 1 < sizeof kUnits && kb % 1024 == 0) {
    kb /= 1024;
    ++unit;
  }
  return std::to_string(kb) + kUnits[unit];
}

std::string formatSacctDuration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const std::int64_t d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60,
                     s = seconds % 60;
  char buf[64];
  if (d > 0) {
    std::snprintf(buf, sizeof buf, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, d, h, m,
                  s);
  } else {
    std::snprintf(buf, sizeof buf, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
  }
  return buf;
}

}  // namespace drover::acct
