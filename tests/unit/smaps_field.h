#pragma once
// A field of /proc/self/smaps ("AnonHugePages", "FilePmdMapped") for one mapping: what the tests
// of huge-page mappings check.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace drover {

// kB of `field` for the mapping that starts at `start`; -1 where there is none.
inline long smapsFieldKb(std::uintptr_t start, const std::string& field) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_it = false;
  const std::string key = field + ":";
  while (std::getline(smaps, line)) {
    const auto dash = line.find('-');
    if (dash != std::string::npos && line.find(' ') > dash && std::isxdigit(static_cast<unsigned char>(line[0]))) {
      in_it = std::strtoull(line.c_str(), nullptr, 16) == start;
    } else if (in_it && line.rfind(key, 0) == 0) {
      return std::strtol(line.c_str() + key.size(), nullptr, 10);
    }
  }
  return -1;
}

}  // namespace drover
