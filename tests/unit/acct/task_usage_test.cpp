// A step's Max/Min/Ave usage fields and TRESUsage strings from its tasks' figures
// (acct::addTaskUsage), and how sacct prints CPU frequencies and disk sizes.
#include <gtest/gtest.h>

#include <functional>

#include "acct/report/sacct_format.h"
#include "acct/task_usage.h"

namespace drover::acct {
namespace {

// Builder: one task's figures.
struct T {
  TaskUsage u;
  T(std::string node, std::uint32_t task) {
    u.node = std::move(node);
    u.task = task;
  }
  T& vm(std::int64_t kb) { u.vmsize_kb = kb; return *this; }
  T& rss(std::int64_t kb) { u.rss_kb = kb; return *this; }
  T& pages(std::int64_t n) { u.pages = n; return *this; }
  T& cpuMs(std::int64_t ms) { u.cpu_ms = ms; return *this; }
  T& freq(std::int64_t khz) { u.cpu_freq_khz = khz; return *this; }
  T& read(std::int64_t bytes) { u.read_bytes = bytes; return *this; }
  T& wrote(std::int64_t bytes) { u.write_bytes = bytes; return *this; }
  operator TaskUsage() const { return u; }  // NOLINT: builder
};

TEST(TaskUsage, NoTasksLeaveTheUsageAsItWas) {
  Usage u;
  u.max_rss_kb = 7;
  addTaskUsage({}, &u);
  Usage want;
  want.max_rss_kb = 7;
  EXPECT_EQ(u, want);
}

struct Case {
  std::string name;
  std::vector<TaskUsage> tasks;
  // Expected: "field=value" checks on the result.
  std::function<void(const Usage&)> check;
};

TEST(TaskUsage, MaxMinAveWithTheirNodeAndTask) {
  const std::vector<Case> cases = {
      {"one task: every max, min and ave is its own",
       {T("node1", 0).vm(2928).rss(1648).pages(3).cpuMs(1500).freq(2300000).read(12813)
            .wrote(2048)},
       [](const Usage& u) {
         EXPECT_EQ(u.max_vmsize_kb, 2928);
         EXPECT_EQ(u.ave_vmsize_kb, 2928);
         EXPECT_EQ(u.max_vmsize_node, "node1");
         EXPECT_EQ(u.max_vmsize_task, 0);
         EXPECT_EQ(u.min_cpu_sec, 1);
         EXPECT_EQ(u.ave_cpu_sec, 1);
         EXPECT_EQ(u.ave_cpu_freq_khz, 2300000);
         EXPECT_EQ(u.consumed_energy, 0);
         EXPECT_EQ(u.tres_usage_in_max,
                   "cpu=00:00:01,energy=0,fs/disk=12813,mem=1648K,pages=3,vmem=2928K");
         EXPECT_EQ(u.tres_usage_in_max_node,
                   "cpu=node1,energy=node1,fs/disk=node1,mem=node1,pages=node1,vmem=node1");
         EXPECT_EQ(u.tres_usage_in_max_task, "cpu=0,fs/disk=0,mem=0,pages=0,vmem=0");
         EXPECT_EQ(u.tres_usage_out_max, "energy=0,fs/disk=2048");
         EXPECT_EQ(u.tres_usage_out_max_node, "energy=node1,fs/disk=node1");
         EXPECT_EQ(u.tres_usage_out_max_task, "fs/disk=0");
       }},
      {"four tasks on two nodes: each peak names its own task and node",
       // task: vm rss pages cpu(ms) read write
       {T("node1", 0).vm(4000).rss(1000).pages(0).cpuMs(100).read(100).wrote(0),
        T("node1", 1).vm(3000).rss(1000).pages(9).cpuMs(4000).read(6 << 20).wrote(10),
        T("node2", 2).vm(90000).rss(82000).pages(1).cpuMs(300).read(200).wrote(20),
        T("node2", 3).vm(5000).rss(2000).pages(2).cpuMs(50).read(300).wrote(4 << 20)},
       [](const Usage& u) {
         EXPECT_EQ(u.max_vmsize_kb, 90000);
         EXPECT_EQ(u.max_vmsize_node, "node2");
         EXPECT_EQ(u.max_vmsize_task, 2);
         EXPECT_EQ(u.ave_vmsize_kb, (4000 + 3000 + 90000 + 5000) / 4);
         EXPECT_EQ(u.max_rss_task, 2);
         EXPECT_EQ(u.ave_rss_kb, (1000 + 1000 + 82000 + 2000) / 4);
         EXPECT_EQ(u.max_pages, 9);
         EXPECT_EQ(u.max_pages_task, 1);
         EXPECT_EQ(u.max_pages_node, "node1");
         EXPECT_EQ(u.ave_pages, 3);
         EXPECT_EQ(u.min_cpu_sec, 0);  // 50 ms
         EXPECT_EQ(u.min_cpu_task, 3);
         EXPECT_EQ(u.min_cpu_node, "node2");
         EXPECT_EQ(u.ave_cpu_sec, 1);  // 4450 ms / 4
         EXPECT_DOUBLE_EQ(*u.max_disk_read_mb, 6.0);
         EXPECT_EQ(u.max_disk_read_task, 1);
         EXPECT_EQ(u.max_disk_write_task, 3);
         EXPECT_EQ(u.max_disk_write_node, "node2");
         EXPECT_DOUBLE_EQ(*u.max_disk_write_mb, 4.0);
         EXPECT_DOUBLE_EQ(*u.ave_disk_write_mb, (30.0 + (4 << 20)) / 4 / (1 << 20));
         EXPECT_EQ(u.tres_usage_in_max_task, "cpu=1,fs/disk=1,mem=2,pages=1,vmem=2");
         EXPECT_EQ(u.tres_usage_in_min_task, "cpu=3,fs/disk=0,mem=0,pages=0,vmem=1");
         EXPECT_EQ(u.tres_usage_in_min_node,
                   "cpu=node2,energy=node2,fs/disk=node1,mem=node1,pages=node1,vmem=node1");
         EXPECT_EQ(u.tres_usage_in_tot,
                   "cpu=00:00:04,energy=0,fs/disk=6292056,mem=86000K,pages=12,vmem=102000K");
         EXPECT_EQ(u.tres_usage_out_tot, "energy=0,fs/disk=4194334");
         EXPECT_EQ(u.tres_usage_out_max_task, "fs/disk=3");
       }},
      {"ties go to the lowest task, whatever order the reports came in",
       {T("node2", 3).vm(100).rss(50).cpuMs(10), T("node1", 1).vm(100).rss(50).cpuMs(10)},
       [](const Usage& u) {
         EXPECT_EQ(u.max_vmsize_task, 1);
         EXPECT_EQ(u.max_vmsize_node, "node1");
         EXPECT_EQ(u.min_cpu_task, 1);
       }},
      {"sizes print in exact units; an hour of CPU as a duration",
       {T("n", 0).vm(2 * 1024 * 1024).rss(1024).cpuMs(3600 * 1000)},
       [](const Usage& u) {
         EXPECT_EQ(u.tres_usage_in_ave,
                   "cpu=01:00:00,energy=0,fs/disk=0,mem=1M,pages=0,vmem=2G");
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Usage u;
    u.user_cpu_usec = 42;
    addTaskUsage(c.tasks, &u);
    EXPECT_EQ(u.user_cpu_usec, 42);  // CPU totals are the caller's
    c.check(u);
  }
}

TEST(UsageFormat, CpuFrequencyAndDiskSizesAsSacct) {
  struct F {
    std::int64_t khz;
    std::string want;
  };
  for (const auto& f : std::vector<F>{{0, "0"}, {324, "324K"}, {999, "999K"},
                                      {2300000, "2.30G"}, {2000000, "2G"}, {1500, "1.50M"}}) {
    EXPECT_EQ(report::formatCpuFreqKhz(f.khz), f.want) << f.khz;
  }
  struct D {
    double mb;
    std::string want;
  };
  for (const auto& d : std::vector<D>{{0, "0"}, {0.001, "0.00M"}, {12813.0 / (1 << 20), "0.01M"},
                                      {1, "1.00M"}, {6, "6M"}, {5.5, "5.50M"}, {2048, "2G"},
                                      {1536, "1.50G"}}) {
    EXPECT_EQ(report::formatDiskMb(d.mb), d.want) << d.mb;
  }
}

}  // namespace
}  // namespace drover::acct
