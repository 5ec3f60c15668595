#pragma once
// A step's usage from its tasks, as Slurm's jobacct_gather reports it in sacct: for each
// quantity the largest task's value with the node and task that had it (Max*), the mean over
// the tasks (Ave*), for CPU time also the smallest (MinCPU*), and the TRESUsageIn*/Out*
// strings that hold the same figures per TRES (cpu, energy, fs/disk, mem, pages, vmem).
#include <cstdint>
#include <string>
#include <vector>

#include "drover/accounting.h"

namespace drover::acct {

// One task's figures, gathered by its node's supervisor. Memory KiB, I/O bytes.
struct TaskUsage {
  std::string node;
  std::uint32_t task = 0;             // global rank
  std::int64_t vmsize_kb = 0;
  std::int64_t rss_kb = 0;
  std::int64_t pages = 0;             // major page faults
  std::int64_t cpu_ms = 0;            // user + system
  std::int64_t cpu_freq_khz = 0;      // 0 = unknown
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
};

// Sets every task-derived field of `usage` (Max/Min/Ave, disk, AveCPUFreq, TRESUsage*) from
// `tasks`; CPU totals (user/system) are left as they are. Ties go to the lowest task. With no
// tasks nothing changes.
void addTaskUsage(std::vector<TaskUsage> tasks, Usage* usage);

}  // namespace drover::acct
