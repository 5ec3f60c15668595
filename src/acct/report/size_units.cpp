#include "acct/report/size_units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "acct/value_text.h"
#include "common/comma_list.h"
#include "common/tres_memory.h"

namespace drover::acct::report {
namespace {

constexpr std::string_view kUnits = "KMGTP";

SizeUnits& current() {
  static SizeUnits units;
  return units;
}

// `kb` in `unit`, two decimals unless whole.
std::string inUnit(double kb, char unit) {
  double value = kb / std::pow(1024.0, static_cast<double>(kUnits.find(unit)));
  char buf[64];
  if (value == std::floor(value)) std::snprintf(buf, sizeof buf, "%.0f%c", value, unit);
  else std::snprintf(buf, sizeof buf, "%.2f%c", value, unit);
  return buf;
}

// "8000M", "7.81G", "512K", "12": the size in KiB (a bare number is M, as TRES mem is).
std::optional<double> tresKb(std::string_view text) {
  if (text.empty()) return std::nullopt;
  char unit = 'M';
  if (std::isalpha(static_cast<unsigned char>(text.back()))) {
    unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    text.remove_suffix(1);
  }
  const auto at = kUnits.find(unit);
  if (at == std::string_view::npos || text.empty()) return std::nullopt;
  char* end = nullptr;
  const std::string number(text);
  const double value = std::strtod(number.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return value * std::pow(1024.0, static_cast<double>(at));
}

}  // namespace

void setSizeUnits(SizeUnits units) { current() = units; }
const SizeUnits& sizeUnits() { return current(); }

Result<char> parseSizeUnit(std::string_view text) {
  const char unit = text.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  if (unit == '\0' || kUnits.find(unit) == std::string_view::npos) {
    return makeError("Invalid unit type '" + std::string(text) + "'. Possible options are 'KMGTP'");
  }
  return unit;
}

std::string formatUsageSizeKb(std::int64_t kb) {
  const SizeUnits& u = current();
  if (u.unit != 0) return inUnit(static_cast<double>(kb), u.unit);
  if (u.no_convert) return std::to_string(kb * 1024);
  return formatSizeKb(kb);
}

std::string formatMemoryRequestMb(std::int64_t mb) {
  const SizeUnits& u = current();
  if (u.unit != 0) return inUnit(static_cast<double>(mb) * 1024, u.unit);
  if (u.no_convert) return std::to_string(mb) + "M";
  return mb <= 0 ? "0" : formatTresMemory(static_cast<std::uint64_t>(mb));
}

std::string convertTresSizes(const std::string& tres) {
  const SizeUnits& u = current();
  std::string out;
  for (const auto& item : splitCommas(tres)) {
    if (!out.empty()) out += ',';
    const auto eq = item.find('=');
    const auto kb = eq == std::string::npos || item.substr(0, eq) != "mem"
                        ? std::nullopt
                        : tresKb(std::string_view(item).substr(eq + 1));
    if (!kb) {
      out += item;
      continue;
    }
    out += "mem=";
    const auto mb = static_cast<std::uint64_t>(*kb / 1024);
    out += u.unit != 0 ? inUnit(*kb, u.unit) : u.no_convert ? std::to_string(mb) + "M" : formatTresMemory(mb);
  }
  return out;
}

}  // namespace drover::acct::report
