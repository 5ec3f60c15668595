#include "acct/tres_counts.h"

#include <cstdlib>

#include "common/ascii_case.h"

namespace drover::acct {

std::map<std::string, double> parseTresCounts(const std::string& text) {
  std::map<std::string, double> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    char* stop = nullptr;
    double v = std::strtod(value.c_str(), &stop);
    if (stop == value.c_str() || !(v >= 0) || v > 1e15) continue;
    if (name == "mem" && *stop != '\0') {
      static const std::string kUnits = "KMGTP";
      const std::size_t unit = kUnits.find(toUpperAscii(*stop));
      if (unit == std::string::npos || stop[1] != '\0') continue;
      v *= unit == 0 ? 1.0 / 1024 : static_cast<double>(1ULL << (10 * (unit - 1)));
    } else if (*stop != '\0') {
      continue;
    }
    out[name] += v;
  }
  return out;
}

std::map<std::string, double> allocatedCounts(const std::string& alloc_tres, std::uint32_t ncpus) {
  auto counts = parseTresCounts(alloc_tres);
  if (alloc_tres.empty()) counts["cpu"] = ncpus;
  return counts;
}

std::map<std::string, double> requestedCounts(const std::string& req_tres, std::uint32_t req_cpus) {
  auto counts = parseTresCounts(req_tres);
  if (req_tres.empty()) counts["cpu"] = req_cpus;
  return counts;
}

}  // namespace drover::acct
