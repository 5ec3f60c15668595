#pragma once
// Each CPU's clock, for a task's average CPU frequency (sacct's AveCPUFreq): cpufreq's
// scaling_cur_freq where the kernel has cpufreq, read when asked since it moves with load;
// otherwise (virtual machines) the "cpu MHz" lines of /proc/cpuinfo, which do not move there
// and are read once, when the clock is made. The supervisor launcher makes one for all the
// supervisors it forks, so a step pays neither the probe nor /proc/cpuinfo (whose generation
// asks every CPU for its clock).
#include <cstdint>
#include <map>
#include <string>

namespace drover::stepd {

class CpuClock {
 public:
  // `proc` is the proc file system's mount, `sys_cpu` the folder holding cpuN/cpufreq (tests
  // point both elsewhere).
  explicit CpuClock(std::string proc = "/proc", std::string sys_cpu = "/sys/devices/system/cpu");

  // The clock of `cpu` in kHz; 0 when the kernel does not say.
  std::uint64_t khz(int cpu) const;

 private:
  std::string sys_cpu_;
  bool cpufreq_ = false;                   // sys_cpu/cpu0/cpufreq exists
  std::map<int, std::uint64_t> cpuinfo_khz_;
};

// "cpu MHz" of each "processor" in /proc/cpuinfo's text, in kHz.
std::map<int, std::uint64_t> parseCpuinfoClocks(const std::string& cpuinfo);

}  // namespace drover::stepd
