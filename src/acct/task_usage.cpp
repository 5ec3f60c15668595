#include "acct/task_usage.h"

#include <algorithm>

#include "acct/value_text.h"

namespace drover::acct {
namespace {

struct Extreme {
  std::int64_t value = 0;
  const TaskUsage* task = nullptr;
};

// One TRES's figures over the tasks: largest, smallest, total.
struct Tres {
  const char* name;
  std::int64_t TaskUsage::*member;
  Extreme max, min;
  std::int64_t total = 0;
};

void fold(Tres& t, const TaskUsage& task) {
  const std::int64_t v = task.*t.member;
  if (!t.max.task || v > t.max.value) t.max = {v, &task};
  if (!t.min.task || v < t.min.value) t.min = {v, &task};
  t.total += v;
}

// A TRES value as Slurm writes it in TRESUsage*: cpu as a duration (its unit is ms here),
// mem and vmem as sizes, the rest as plain numbers (fs/disk in bytes).
std::string tresValue(const char* name, std::int64_t v) {
  const std::string n = name;
  if (n == "cpu") return formatSacctDuration(v / 1000);
  if (n == "mem" || n == "vmem") return formatSizeKb(v);
  return std::to_string(v);
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ",") + p;
  return s;
}

double mb(double bytes) { return bytes / (1024.0 * 1024.0); }

}  // namespace

void addTaskUsage(std::vector<TaskUsage> tasks, Usage* usage) {
  if (tasks.empty()) return;
  std::sort(tasks.begin(), tasks.end(), [](const TaskUsage& a, const TaskUsage& b) {
    return a.task < b.task;
  });
  // In TRES name order, as Slurm prints them; energy is not measured (0, as Slurm without an
  // energy plugin) and is per node, so it has a node but no task.
  Tres cpu{"cpu", &TaskUsage::cpu_ms, {}, {}, 0};
  Tres disk_in{"fs/disk", &TaskUsage::read_bytes, {}, {}, 0};
  Tres mem{"mem", &TaskUsage::rss_kb, {}, {}, 0};
  Tres pages{"pages", &TaskUsage::pages, {}, {}, 0};
  Tres vmem{"vmem", &TaskUsage::vmsize_kb, {}, {}, 0};
  Tres disk_out{"fs/disk", &TaskUsage::write_bytes, {}, {}, 0};
  std::int64_t freq_total = 0;
  for (const auto& t : tasks) {
    for (Tres* tres : {&cpu, &disk_in, &mem, &pages, &vmem, &disk_out}) fold(*tres, t);
    freq_total += t.cpu_freq_khz;
  }
  const auto n = static_cast<std::int64_t>(tasks.size());
  Usage& u = *usage;
  u.max_vmsize_kb = vmem.max.value;
  u.max_vmsize_node = vmem.max.task->node;
  u.max_vmsize_task = vmem.max.task->task;
  u.ave_vmsize_kb = vmem.total / n;
  u.max_rss_kb = mem.max.value;
  u.max_rss_node = mem.max.task->node;
  u.max_rss_task = mem.max.task->task;
  u.ave_rss_kb = mem.total / n;
  u.max_pages = pages.max.value;
  u.max_pages_node = pages.max.task->node;
  u.max_pages_task = pages.max.task->task;
  u.ave_pages = pages.total / n;
  u.min_cpu_sec = cpu.min.value / 1000;
  u.min_cpu_node = cpu.min.task->node;
  u.min_cpu_task = cpu.min.task->task;
  u.ave_cpu_sec = cpu.total / n / 1000;
  u.ave_cpu_freq_khz = freq_total / n;
  u.consumed_energy = 0;
  u.max_disk_read_mb = mb(static_cast<double>(disk_in.max.value));
  u.max_disk_read_node = disk_in.max.task->node;
  u.max_disk_read_task = disk_in.max.task->task;
  u.ave_disk_read_mb = mb(static_cast<double>(disk_in.total) / static_cast<double>(n));
  u.max_disk_write_mb = mb(static_cast<double>(disk_out.max.value));
  u.max_disk_write_node = disk_out.max.task->node;
  u.max_disk_write_task = disk_out.max.task->task;
  u.ave_disk_write_mb = mb(static_cast<double>(disk_out.total) / static_cast<double>(n));

  const std::vector<Tres*> in = {&cpu, &disk_in, &mem, &pages, &vmem};
  auto values = [&](auto pick, bool with_energy) {
    std::vector<std::string> parts;
    for (Tres* t : in) {
      // energy sorts between cpu and fs/disk
      if (with_energy && t == &disk_in) parts.push_back("energy=0");
      parts.push_back(std::string(t->name) + "=" + pick(*t));
    }
    return join(parts);
  };
  auto maxOf = [](Tres& t) { return tresValue(t.name, t.max.value); };
  auto minOf = [](Tres& t) { return tresValue(t.name, t.min.value); };
  auto totOf = [](Tres& t) { return tresValue(t.name, t.total); };
  auto aveOf = [n](Tres& t) { return tresValue(t.name, t.total / n); };
  auto nodeOf = [](const Extreme& e) { return e.task->node; };
  auto taskOf = [](const Extreme& e) { return std::to_string(e.task->task); };
  u.tres_usage_in_ave = values(aveOf, true);
  u.tres_usage_in_max = values(maxOf, true);
  u.tres_usage_in_min = values(minOf, true);
  u.tres_usage_in_tot = values(totOf, true);
  // Which node and task had the extreme: energy's node is the max node of the CPU.
  {
    std::vector<std::string> max_node, min_node, max_task, min_task;
    for (Tres* t : in) {
      if (t == &disk_in) {
        max_node.push_back("energy=" + nodeOf(cpu.max));
        min_node.push_back("energy=" + nodeOf(cpu.min));
      }
      max_node.push_back(std::string(t->name) + "=" + nodeOf(t->max));
      min_node.push_back(std::string(t->name) + "=" + nodeOf(t->min));
      max_task.push_back(std::string(t->name) + "=" + taskOf(t->max));
      min_task.push_back(std::string(t->name) + "=" + taskOf(t->min));
    }
    u.tres_usage_in_max_node = join(max_node);
    u.tres_usage_in_min_node = join(min_node);
    u.tres_usage_in_max_task = join(max_task);
    u.tres_usage_in_min_task = join(min_task);
  }
  u.tres_usage_out_ave = "energy=0,fs/disk=" + tresValue("fs/disk", disk_out.total / n);
  u.tres_usage_out_max = "energy=0,fs/disk=" + tresValue("fs/disk", disk_out.max.value);
  u.tres_usage_out_tot = "energy=0,fs/disk=" + tresValue("fs/disk", disk_out.total);
  u.tres_usage_out_max_node =
      "energy=" + nodeOf(disk_out.max) + ",fs/disk=" + nodeOf(disk_out.max);
  u.tres_usage_out_max_task = "fs/disk=" + taskOf(disk_out.max);
}

}  // namespace drover::acct
