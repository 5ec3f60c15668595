#include "stepd/cpu_clock.h"

#include <unistd.h>

#include <cstdlib>

#include "common/kernel_file.h"

namespace drover::stepd {

std::map<int, std::uint64_t> parseCpuinfoClocks(const std::string& cpuinfo) {
  std::map<int, std::uint64_t> khz;
  int processor = -1;
  std::size_t pos = 0;
  while (pos < cpuinfo.size()) {
    std::size_t end = cpuinfo.find('\n', pos);
    if (end == std::string::npos) end = cpuinfo.size();
    const std::string line = cpuinfo.substr(pos, end - pos);
    pos = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const auto key_end = line.find_last_not_of(" \t", colon - 1);
    if (key_end == std::string::npos) continue;
    const std::string key = line.substr(0, key_end + 1);
    const char* value = line.c_str() + colon + 1;
    if (key == "processor") processor = std::atoi(value);
    if (key == "cpu MHz" && processor >= 0)
      khz[processor] = static_cast<std::uint64_t>(std::atof(value) * 1000);
  }
  return khz;
}

CpuClock::CpuClock(std::string proc, std::string sys_cpu) : sys_cpu_(std::move(sys_cpu)) {
  cpufreq_ = ::access((sys_cpu_ + "/cpu0/cpufreq").c_str(), F_OK) == 0;
  cpuinfo_khz_ = parseCpuinfoClocks(readKernelFile(proc + "/cpuinfo"));
}

std::uint64_t CpuClock::khz(int cpu) const {
  if (cpufreq_) {
    const std::string text = readKernelFile(sys_cpu_ + "/cpu" + std::to_string(cpu) +
                                            "/cpufreq/scaling_cur_freq");
    const std::uint64_t khz = std::strtoull(text.c_str(), nullptr, 10);
    if (khz > 0) return khz;
  }
  auto it = cpuinfo_khz_.find(cpu);
  return it == cpuinfo_khz_.end() ? 0 : it->second;
}

}  // namespace drover::stepd
