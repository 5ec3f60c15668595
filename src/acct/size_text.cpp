#include "acct/size_text.h"

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

}  // namespace drover::acct
