#include "common/tres_memory.h"

#include <cstdio>

namespace drover {

std::string formatTresMemory(std::uint64_t mb) {
  static constexpr char kUnits[] = {'M', 'G', 'T', 'P'};
  // Work in hundredths so "exact to two decimals" is integer arithmetic.
  std::uint64_t hundredths = mb * 100;
  std::size_t unit = 0;
  while (unit + 1 < sizeof kUnits && hundredths >= 1024 * 100 && (hundredths % 1024) == 0) {
    hundredths /= 1024;
    ++unit;
  }
  char buf[48];
  if (hundredths % 100 == 0) {
    std::snprintf(buf, sizeof buf, "%llu%c", static_cast<unsigned long long>(hundredths / 100),
                  kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%llu.%02llu%c", static_cast<unsigned long long>(hundredths / 100),
                  static_cast<unsigned long long>(hundredths % 100), kUnits[unit]);
  }
  return buf;
}

}  // namespace drover
