#include "stepd/task_usage.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/kernel_file.h"

namespace drover::stepd {
namespace {

std::uint64_t number(const std::string& text) { return std::strtoull(text.c_str(), nullptr, 10); }

// "Key:   123 kB" lines of a /proc file.
std::map<std::string, std::uint64_t> keyedNumbers(const std::string& path) {
  std::map<std::string, std::uint64_t> out;
  std::istringstream in(readKernelFile(path));
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    const auto value = line.find_first_not_of(" \t", colon + 1);
    if (colon == std::string::npos || value == std::string::npos) continue;
    out[line.substr(0, colon)] = number(line.substr(value));
  }
  return out;
}

}  // namespace

TaskUsageGatherer::TaskUsageGatherer(const CpuClock& clock, std::string proc)
    : clock_(clock), proc_(std::move(proc)) {}

void TaskUsageGatherer::watch(pid_t pid, std::uint32_t rank) {
  Watched& w = tasks_[pid];
  w.figures.task = rank;
  // Just after its exec the task is one process: no walk of /proc for its tree.
  sampleTree(pid, {}, &w.figures);
}

std::multimap<pid_t, pid_t> TaskUsageGatherer::childrenOf(const std::vector<ProcStat>& processes) {
  std::multimap<pid_t, pid_t> children;
  for (const ProcStat& p : processes) children.emplace(p.ppid, p.pid);
  return children;
}

// The task's process and its descendants (by parent pid), each one's peaks summed: the tree's
// peak is at most that sum and at least the largest sample of it.
void TaskUsageGatherer::sampleTree(pid_t root, const std::multimap<pid_t, pid_t>& children,
                                   TaskFigures* f, TreeTotals* totals) const {
  std::vector<pid_t> tree = {root};
  for (std::size_t i = 0; i < tree.size() && tree.size() < 100000; ++i) {
    auto [first, last] = children.equal_range(tree[i]);
    for (auto it = first; it != last; ++it) tree.push_back(it->second);
  }
  std::uint64_t vm = 0, rss = 0;
  for (pid_t pid : tree) {
    auto status = keyedNumbers(proc_ + "/" + std::to_string(pid) + "/status");
    if (status.empty()) continue;  // gone since the tree was read
    vm += status["VmPeak"];
    rss += status["VmHWM"];
    if (totals == nullptr) continue;
    // Its own CPU time and its reaped children's.
    if (auto stat = readProcStat(pid, proc_)) totals->cpu_ticks += stat->cpu_ticks;
    const std::string dir = proc_ + "/" + std::to_string(pid);
    auto io = keyedNumbers(dir + "/io");
    totals->read_bytes += io["rchar"];
    totals->write_bytes += io["wchar"];
    totals->pids.push_back(pid);
  }
  f->vmsize_kb = std::max(f->vmsize_kb, vm);
  f->rss_kb = std::max(f->rss_kb, rss);
}

void TaskUsageGatherer::sample(const std::vector<ProcStat>& processes) {
  bool any = false;
  for (const auto& [pid, w] : tasks_) any = any || w.running;
  if (!any) return;
  const auto children = childrenOf(processes);
  for (auto& [pid, w] : tasks_)
    if (w.running) sampleTree(pid, children, &w.figures);
}

void TaskUsageGatherer::ended(pid_t pid) {
  auto it = tasks_.find(pid);
  if (it == tasks_.end()) return;
  TaskFigures& f = it->second.figures;
  const std::string dir = proc_ + "/" + std::to_string(pid);
  auto io = keyedNumbers(dir + "/io");
  f.read_bytes = io["rchar"];
  f.write_bytes = io["wchar"];
  const auto stat = readProcStat(pid, proc_);
  if (stat && stat->processor >= 0) f.cpu_freq_khz = clock_.khz(stat->processor);
  it->second.running = false;
}

void TaskUsageGatherer::reaped(pid_t pid, const rusage& usage) {
  auto it = tasks_.find(pid);
  if (it == tasks_.end()) return;
  TaskFigures& f = it->second.figures;
  auto ms = [](const timeval& tv) {
    return static_cast<std::uint64_t>(tv.tv_sec) * 1000 +
           static_cast<std::uint64_t>(tv.tv_usec) / 1000;
  };
  f.cpu_ms = ms(usage.ru_utime) + ms(usage.ru_stime);
  f.rss_kb = std::max<std::uint64_t>(f.rss_kb, static_cast<std::uint64_t>(usage.ru_maxrss));
  f.pages = static_cast<std::uint64_t>(usage.ru_majflt);
  // A task that grew after its last sample has left no virtual size behind, but its peak
  // resident set is a lower bound of it (what is resident is mapped).
  f.vmsize_kb = std::max(f.vmsize_kb, f.rss_kb);
  it->second.running = false;
}

TaskUsageGatherer::Current TaskUsageGatherer::current() {
  Current out;
  const auto children = childrenOf(readAllProcStats(proc_));
  const auto ticks_per_s = static_cast<std::uint64_t>(std::max(1L, sysconf(_SC_CLK_TCK)));
  for (auto& [pid, w] : tasks_) {
    TaskFigures f = w.figures;
    if (w.running) {
      // The peaks are kept as a periodic sample's; the totals so far are only reported: a
      // task's final ones come from its end (ended, reaped).
      TreeTotals totals;
      sampleTree(pid, children, &w.figures, &totals);
      f = w.figures;
      f.cpu_ms = totals.cpu_ticks * 1000 / ticks_per_s;
      f.read_bytes = totals.read_bytes;
      f.write_bytes = totals.write_bytes;
      out.trees.push_back({f.task, std::move(totals.pids)});
    }
    out.tasks.push_back(f);
  }
  std::sort(out.tasks.begin(), out.tasks.end(),
            [](const TaskFigures& a, const TaskFigures& b) { return a.task < b.task; });
  std::sort(out.trees.begin(), out.trees.end(),
            [](const TaskTree& a, const TaskTree& b) { return a.task < b.task; });
  return out;
}

std::vector<TaskFigures> TaskUsageGatherer::figures() const {
  std::vector<TaskFigures> out;
  for (const auto& [pid, w] : tasks_) out.push_back(w.figures);
  std::sort(out.begin(), out.end(),
            [](const TaskFigures& a, const TaskFigures& b) { return a.task < b.task; });
  return out;
}

}  // namespace drover::stepd
