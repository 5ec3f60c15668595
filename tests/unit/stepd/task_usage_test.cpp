// The supervisor's per-task usage: over a made-up /proc (a task's process tree summed, the
// final I/O and CPU read from a zombie's files, CPU frequency from cpufreq or cpuinfo), and
// with a real child that allocates memory and reads a file, reaped as the supervisor does.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "stepd/task_usage.h"

namespace drover::stepd {
namespace {

namespace fs = std::filesystem;

class FakeProc {
 public:
  FakeProc() : root_(fs::temp_directory_path() / ("task-usage-" + std::to_string(getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "proc");
    fs::create_directories(root_ / "sys");
  }
  ~FakeProc() { fs::remove_all(root_); }
  std::string proc() const { return (root_ / "proc").string(); }
  std::string sys() const { return (root_ / "sys").string(); }

  // A process: its parent, peak virtual size and resident set (status), the CPU it last ran on.
  // `ticks`: its utime, stime, cutime and cstime (proc(5) fields 14-17), each.
  void process(int pid, int ppid, int vm_peak_kb, int hwm_kb, int cpu = 0, int ticks = 0) {
    const fs::path dir = root_ / "proc" / std::to_string(pid);
    fs::create_directories(dir);
    // A command name with a space and a parenthesis, as /proc allows.
    std::ofstream(dir / "stat") << pid << " (my (prog) S " << ppid << " " << pid
                                << fields(cpu, ticks) << "\n";
    std::ofstream(dir / "status") << "Name:\tmy prog\nGroups:\t\nVmPeak:\t  " << vm_peak_kb
                                  << " kB\nVmHWM:\t  " << hwm_kb << " kB\n";
  }
  // It ended: a zombie has no Vm* lines, but its io and stat remain.
  void zombie(int pid, int rchar, int wchar) {
    const fs::path dir = root_ / "proc" / std::to_string(pid);
    std::ofstream(dir / "status") << "Name:\tmy prog\nState:\tZ (zombie)\n";
    std::ofstream(dir / "io") << "rchar: " << rchar << "\nwchar: " << wchar
                              << "\nsyscr: 2\nread_bytes: 0\n";
  }
  void io(int pid, int rchar, int wchar) {
    std::ofstream(root_ / "proc" / std::to_string(pid) / "io")
        << "rchar: " << rchar << "\nwchar: " << wchar << "\n";
  }
  void gone(int pid) { fs::remove_all(root_ / "proc" / std::to_string(pid)); }
  void cpufreq(int cpu, int khz) {
    fs::create_directories(root_ / "sys" / ("cpu" + std::to_string(cpu)) / "cpufreq");
    std::ofstream(root_ / "sys" / ("cpu" + std::to_string(cpu)) / "cpufreq" / "scaling_cur_freq")
        << khz << "\n";
  }
  void cpuinfo(const std::string& text) { std::ofstream(root_ / "proc" / "cpuinfo") << text; }

 private:
  // stat fields 6..52 after "pid (comm) state ppid pgrp"; field 39 is the processor.
  static std::string fields(int cpu, int ticks) {
    std::string s;
    for (int i = 6; i <= 52; ++i) {
      s += " " + std::to_string(i == 39 ? cpu : (i >= 14 && i <= 17) ? ticks : 0);
    }
    return s;
  }
  fs::path root_;
};

rusage usage(long utime_ms, long stime_ms, long maxrss_kb, long majflt) {
  rusage ru{};
  ru.ru_utime.tv_sec = utime_ms / 1000;
  ru.ru_utime.tv_usec = utime_ms % 1000 * 1000;
  ru.ru_stime.tv_sec = stime_ms / 1000;
  ru.ru_stime.tv_usec = stime_ms % 1000 * 1000;
  ru.ru_maxrss = maxrss_kb;
  ru.ru_majflt = majflt;
  return ru;
}

TEST(TaskUsageGatherer, SumsEachTasksTreeAndKeepsItsPeaks) {
  FakeProc p;
  p.process(100, 1, 3000, 1500);  // task 0
  p.process(200, 1, 2000, 1000);  // task 1
  CpuClock clock(p.proc(), p.sys());
  TaskUsageGatherer g(clock, p.proc());
  g.watch(100, 0);
  g.watch(200, 1);
  // Task 0 starts a child: both count; the other task's processes do not.
  p.process(101, 100, 50000, 40000);
  p.process(300, 1, 99999, 99999);
  g.sample(readAllProcStats(p.proc()));
  p.gone(101);  // the child ended: the peak stays
  g.sample(readAllProcStats(p.proc()));
  auto f = g.figures();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].task, 0u);
  EXPECT_EQ(f[0].vmsize_kb, 53000u);
  EXPECT_EQ(f[0].rss_kb, 41500u);
  EXPECT_EQ(f[1].vmsize_kb, 2000u);
  EXPECT_EQ(f[1].rss_kb, 1000u);
}

TEST(TaskUsageGatherer, FinalFiguresComeFromTheZombieAndTheRusage) {
  FakeProc p;
  p.cpufreq(0, 1000000);
  p.cpufreq(1, 2100000);
  p.process(100, 1, 3000, 1500, /*cpu=*/1);
  CpuClock clock(p.proc(), p.sys());
  TaskUsageGatherer g(clock, p.proc());
  g.watch(100, 7);
  p.zombie(100, 12813, 2048);
  g.ended(100);
  g.reaped(100, usage(1200, 300, 61496, 4));
  auto f = g.figures().at(0);
  EXPECT_EQ(f.task, 7u);
  EXPECT_EQ(f.read_bytes, 12813u);
  EXPECT_EQ(f.write_bytes, 2048u);
  EXPECT_EQ(f.cpu_ms, 1500u);
  EXPECT_EQ(f.pages, 4u);
  EXPECT_EQ(f.cpu_freq_khz, 2100000u);
  // The rusage's peak RSS wins over the samples'; virtual size is at least that.
  EXPECT_EQ(f.rss_kb, 61496u);
  EXPECT_EQ(f.vmsize_kb, 61496u);
  // An ended task is not sampled again.
  g.sample(readAllProcStats(p.proc()));
  EXPECT_EQ(g.figures().at(0).rss_kb, 61496u);
}

// sstat asks a running step: CPU time and I/O counted so far over each running task's tree,
// the trees' pids, and an ended task's final figures as they were.
TEST(TaskUsageGatherer, CurrentCountsRunningTasksSoFar) {
  FakeProc p;
  const long hz = sysconf(_SC_CLK_TCK);
  p.process(100, 1, 3000, 1500, 0, /*ticks=*/static_cast<int>(hz));   // 4 s of CPU
  p.process(101, 100, 5000, 4000, 0, static_cast<int>(hz) / 2);      // its child: 2 s
  p.io(100, 1000, 10);
  p.io(101, 500, 5);
  p.process(200, 1, 2000, 1000);
  CpuClock clock(p.proc(), p.sys());
  TaskUsageGatherer g(clock, p.proc());
  g.watch(100, 0);
  g.watch(200, 1);
  p.zombie(200, 7, 8);
  g.ended(200);
  g.reaped(200, usage(300, 200, 1000, 0));
  const auto now = g.current();
  ASSERT_EQ(now.tasks.size(), 2u);
  EXPECT_EQ(now.tasks[0].cpu_ms, 6000u);
  EXPECT_EQ(now.tasks[0].read_bytes, 1500u);
  EXPECT_EQ(now.tasks[0].write_bytes, 15u);
  EXPECT_EQ(now.tasks[0].rss_kb, 5500u);
  EXPECT_EQ(now.tasks[1].cpu_ms, 500u);
  EXPECT_EQ(now.tasks[1].read_bytes, 7u);
  // Only the running task's tree, its own pid first (scontrol listpids prints it so).
  ASSERT_EQ(now.trees.size(), 1u);
  EXPECT_EQ(now.trees[0].task, 0u);
  EXPECT_EQ(now.trees[0].pids, (std::vector<pid_t>{100, 101}));
}

TEST(TaskUsageGatherer, CpuFrequencyFallsBackToCpuinfo) {
  FakeProc p;
  p.cpuinfo("processor\t: 0\ncpu MHz\t\t: 2300.000\n\nprocessor\t: 1\ncpu MHz\t\t: 1800.500\n");
  p.process(100, 1, 10, 10, /*cpu=*/1);
  CpuClock clock(p.proc(), p.sys());
  TaskUsageGatherer g(clock, p.proc());
  g.watch(100, 0);
  p.zombie(100, 0, 0);
  g.ended(100);
  EXPECT_EQ(g.figures().at(0).cpu_freq_khz, 1800500u);
}

// cpufreq's clock moves with load and is read when asked; cpuinfo's (virtual machines, where it
// does not move) is read once, when the clock is made: the launcher makes one for every step.
TEST(CpuClock, ReadsCpufreqWhenAskedAndCpuinfoOnce) {
  FakeProc p;
  p.cpuinfo("processor\t: 0\ncpu MHz\t\t: 2300.000\n");
  CpuClock without_cpufreq(p.proc(), p.sys());
  p.cpuinfo("processor\t: 0\ncpu MHz\t\t: 9999.000\n");
  EXPECT_EQ(without_cpufreq.khz(0), 2300000u);
  EXPECT_EQ(without_cpufreq.khz(5), 0u);  // a CPU cpuinfo does not name

  p.cpufreq(0, 1500000);
  CpuClock with_cpufreq(p.proc(), p.sys());
  EXPECT_EQ(with_cpufreq.khz(0), 1500000u);
  p.cpufreq(0, 3100000);
  EXPECT_EQ(with_cpufreq.khz(0), 3100000u);
  // A CPU without its own cpufreq entry falls back to cpuinfo's line.
  EXPECT_EQ(with_cpufreq.khz(1), 0u);
}

TEST(CpuClock, ParsesCpuinfoClocks) {
  const auto khz = parseCpuinfoClocks(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu MHz\t\t: 2450.125\n\n"
      "processor\t: 1\ncpu MHz\t\t: 800\nflags\t\t: fpu : x\n\n: odd\nno colon\n");
  ASSERT_EQ(khz.size(), 2u);
  EXPECT_EQ(khz.at(0), 2450125u);
  EXPECT_EQ(khz.at(1), 800000u);
  EXPECT_TRUE(parseCpuinfoClocks("").empty());
  EXPECT_TRUE(parseCpuinfoClocks("cpu MHz : 100\n").empty());  // before any processor line
}

TEST(TaskUsageGatherer, ARealTaskThatEndsAtOnce) {
  const std::string file = "/proc/self/exe";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char> block(30 << 20);
    for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
    std::ifstream in(file, std::ios::binary);
    std::vector<char> buf(1 << 16);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    }
    _exit(block[4096] == 1 ? 0 : 1);
  }
  CpuClock clock;
  TaskUsageGatherer g(clock);
  g.watch(pid, 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
  g.ended(pid);
  int status = 0;
  rusage ru{};
  ASSERT_EQ(wait4(pid, &status, 0, &ru), pid);
  g.reaped(pid, ru);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto f = g.figures().at(0);
  EXPECT_GE(f.rss_kb, 30u * 1024);
  EXPECT_GE(f.vmsize_kb, f.rss_kb);
  EXPECT_GT(f.read_bytes, 0u);  // rchar: its read of the test binary
}

}  // namespace
}  // namespace drover::stepd
