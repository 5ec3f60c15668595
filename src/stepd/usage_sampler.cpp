#include "stepd/usage_sampler.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace drover::stepd {
namespace {

// Fields 5 (pgrp) and 24 (rss, pages) of /proc/PID/stat; the command name may hold spaces,
// so parsing starts after its closing parenthesis.
bool readStat(const char* pid, long* pgrp, long* rss_pages) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return false;
  auto close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  // After ")": state(3) ppid(4) pgrp(5) ... rss(24)
  for (int index = 3; index <= 24 && rest >> field; ++index) {
    if (index == 5) *pgrp = std::strtol(field.c_str(), nullptr, 10);
    if (index == 24) {
      *rss_pages = std::strtol(field.c_str(), nullptr, 10);
      return true;
    }
  }
  return false;
}

}  // namespace

void UsageSampler::sample() {
  DIR* proc = opendir("/proc");
  if (!proc) return;
  const long page_kb = sysconf(_SC_PAGESIZE) / 1024;
  std::uint64_t total = 0;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    long pgrp = 0, rss = 0;
    if (readStat(entry->d_name, &pgrp, &rss) && pgrp == pgid_ && rss > 0)
      total += static_cast<std::uint64_t>(rss * page_kb);
  }
  closedir(proc);
  if (total > max_kb_) max_kb_ = total;
  total_kb_ += total;
  ++samples_;
}

}  // namespace drover::stepd
