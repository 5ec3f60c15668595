#pragma once
// Each task's usage, gathered as Slurm's jobacct_gather/linux does: the task's process tree is
// sampled from /proc when it starts and then periodically (peak virtual size and resident set,
// summed over the tree), and when it ends its final figures are taken while it is still a
// zombie (waitid WNOWAIT: /proc/PID/io still holds its reads and writes, its reaped children's
// included, and /proc/PID/stat the CPU it last ran on) and from the rusage its reaping returns
// (CPU time, peak RSS, major page faults). A zombie's /proc/PID/status has no Vm* lines any
// more, so virtual size comes from the samples (the one at start covers a task that ends
// before the first periodic sample) and is at least the peak resident set.
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/proc_stat.h"
#include "stepd/cpu_clock.h"

namespace drover::stepd {

struct TaskFigures {
  std::uint32_t task = 0;             // global rank
  std::uint64_t vmsize_kb = 0;
  std::uint64_t rss_kb = 0;
  std::uint64_t pages = 0;            // major faults
  std::uint64_t cpu_ms = 0;
  std::uint64_t cpu_freq_khz = 0;     // 0 = the kernel does not say
  std::uint64_t read_bytes = 0;       // rchar
  std::uint64_t write_bytes = 0;      // wchar
};

class TaskUsageGatherer {
 public:
  // `proc` is the proc file system's mount (tests may point elsewhere); `clock` tells each
  // CPU's frequency and must outlive the gatherer.
  TaskUsageGatherer(const CpuClock& clock, std::string proc = "/proc");

  // A task just started (its exec succeeded): sampled at once.
  void watch(pid_t pid, std::uint32_t rank);
  // Samples every watched task that still runs, its tree found in `processes` (a walk of this
  // gatherer's proc the caller shares with the other samplers).
  void sample(const std::vector<ProcStat>& processes);
  // The task `pid` has ended and is a zombie not yet reaped: reads its final figures.
  void ended(pid_t pid);
  // After reaping it: CPU time, peak RSS and major faults from wait4's rusage.
  void reaped(pid_t pid, const rusage& usage);

  // Every watched task's figures, ended or not, in rank order.
  std::vector<TaskFigures> figures() const;

  // What sstat and scontrol listpids ask of a running step: samples the running tasks now and
  // returns every task's figures, a running task's CPU time and bytes read and written counted
  // up to now (its processes' own, their reaped children's included), and each running task's
  // live process tree.
  struct TaskTree {
    std::uint32_t task = 0;           // global rank
    std::vector<pid_t> pids;          // the task's own pid first, then its descendants
  };
  struct Current {
    std::vector<TaskFigures> tasks;   // in rank order
    std::vector<TaskTree> trees;      // running tasks only, in rank order
  };
  Current current();

 private:
  struct Watched {
    TaskFigures figures;
    bool running = true;
  };
  static std::multimap<pid_t, pid_t> childrenOf(const std::vector<ProcStat>& processes);
  // Totals of a tree's live processes, for current().
  struct TreeTotals {
    std::uint64_t cpu_ticks = 0;
    std::uint64_t read_bytes = 0;
    std::uint64_t write_bytes = 0;
    std::vector<pid_t> pids;
  };
  void sampleTree(pid_t root, const std::multimap<pid_t, pid_t>& children, TaskFigures* f,
                  TreeTotals* totals = nullptr) const;

  const CpuClock& clock_;
  std::string proc_;
  std::map<pid_t, Watched> tasks_;
};

}  // namespace drover::stepd
