// Which mappings a forked supervisor populates: the executable's non-writable ones, from a
// made-up maps text and from this test process's own.
#include "stepd/image_prefault.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace drover::stepd {
namespace {

TEST(ImagePrefault, KeepsTheImagesReadOnlyMappingsMergingNeighbours) {
  const std::string maps =
      "00400000-00401000 r--p 00000000 fe:00 5308456    /opt/bin/drover-stepd\n"
      "00401000-0071f000 r-xp 00001000 fe:00 5308456    /opt/bin/drover-stepd\n"
      "0071f000-007ed000 r--p 0031f000 fe:00 5308456    /opt/bin/drover-stepd\n"
      "007ff000-00804000 rw-p 003ff000 fe:00 5308456    /opt/bin/drover-stepd\n"
      "00900000-00901000 r--p 00000000 fe:00 5308456    /opt/bin/drover-stepd\n"
      "00804000-0080d000 rw-p 00000000 00:00 0 \n"
      "16c5e000-16ca6000 rw-p 00000000 00:00 0          [heap]\n"
      "7f0000000000-7f0000001000 r-xp 00000000 fe:00 99 /opt/bin/drover-stepd-old\n"
      "7f0000002000-7f0000003000 r-xp 00000000 fe:00 98 /opt/bin/with space\n"
      "7f0000004000-7f0000005000 ---p 00000000 fe:00 5308456 /opt/bin/drover-stepd\n"
      "garbage line\n"
      "7ffd5522b000-7ffd5524c000 rw-p 00000000 00:00 0  [stack]\n";
  const auto ranges = readOnlyImageRanges(maps, "/opt/bin/drover-stepd");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], (AddressRange{0x400000, 0x7ed000}));
  EXPECT_EQ(ranges[1], (AddressRange{0x900000, 0x901000}));
  // A path with a space is one path.
  EXPECT_EQ(readOnlyImageRanges(maps, "/opt/bin/with space").size(), 1u);
  EXPECT_TRUE(readOnlyImageRanges(maps, "/opt/bin/other").empty());
  EXPECT_TRUE(readOnlyImageRanges("", "/opt/bin/drover-stepd").empty());
}

TEST(ImagePrefault, OwnRangesHoldThisCode) {
  const auto ranges = ownReadOnlyImageRanges();
  ASSERT_FALSE(ranges.empty());
  const auto here = reinterpret_cast<std::uintptr_t>(&readOnlyImageRanges);
  bool found = false;
  for (const auto& r : ranges) found = found || (r.start <= here && here < r.end);
  EXPECT_TRUE(found);
}

// The point of it: a forked child that populates first takes fewer page fault exceptions
// running code it has not run since the fork. (Counted with the perf software event, which
// counts the traps; getrusage's minflt also counts the pages populate maps.)
TEST(ImagePrefault, AForkedChildThatPopulatesTrapsLess) {
  const auto ranges = ownReadOnlyImageRanges();
  // -1: the count could not be taken here; else the child's page fault traps after its fork.
  auto child_traps = [&](bool prefault) -> long {
    int report[2];
    if (pipe(report) != 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
      perf_event_attr attr{};
      attr.type = PERF_TYPE_SOFTWARE;
      attr.size = sizeof attr;
      attr.config = PERF_COUNT_SW_PAGE_FAULTS;
      attr.exclude_kernel = 1;
      attr.exclude_hv = 1;
      const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
      long long count = -1;
      if (fd >= 0) {
        if (prefault) populate(ranges);
        // Code and read-only data the child has not touched since the fork: gtest's own.
        (void)::testing::UnitTest::GetInstance()->current_test_info()->name();
        (void)readOnlyImageRanges("00400000-00401000 r--p 0 0:0 0 /x\n", "/x");
        if (read(fd, &count, sizeof count) != sizeof count) count = -1;
      }
      (void)!write(report[1], &count, sizeof count);
      _exit(0);
    }
    close(report[1]);
    long long count = -1;
    if (read(report[0], &count, sizeof count) != sizeof count) count = -1;
    close(report[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return static_cast<long>(count);
  };
  const long without = child_traps(false);
  const long with = child_traps(true);
  if (without < 0 || with < 0) GTEST_SKIP() << "perf_event_open refused here";
  EXPECT_LT(with, without) << "page fault traps with populate " << with << ", without " << without;
}

}  // namespace
}  // namespace drover::stepd
