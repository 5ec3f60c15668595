// Which mappings a forked supervisor populates: the executable's non-writable ones, from a
// made-up maps text and from this test process's own.
#include "stepd/image_prefault.h"

#include "../smaps_field.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <vector>

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

// Page fault traps (the perf software event, which counts the traps; getrusage's minflt also
// counts the pages populate maps) a forked child takes running `work`; -1 where
// perf_event_open is refused.
long childTraps(const std::function<void()>& work) {
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
      work();
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
}

// One byte of every 4 KiB of [start, end) read.
void readEveryPage(std::uintptr_t start, std::uintptr_t end) {
  for (std::uintptr_t a = start; a < end; a += 4096) {
    (void)*reinterpret_cast<volatile const unsigned char*>(a);
  }
}

// Page fault traps a forked child takes reading one byte of every 4 KiB of [start, end).
long childReadTraps(std::uintptr_t start, std::uintptr_t end) {
  return childTraps([=] { readEveryPage(start, end); });
}

// A read-only private file mapping standing in for the executable's image: 5 MiB of a pattern,
// placed 1 MiB past a 2 MiB boundary, so exactly one 2 MiB window lies wholly inside it.
struct FakeImage {
  std::filesystem::path path;
  std::uintptr_t start = 0;
  std::size_t length = std::size_t{5} << 20;

  FakeImage() {
    path = std::filesystem::temp_directory_path() /
           ("drover-image-" + std::to_string(getpid()) + ".bin");
    std::vector<unsigned char> bytes(length);
    for (std::size_t i = 0; i < length; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + i / 4096);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(length));
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const std::size_t two = std::size_t{2} << 20;
    // Reserve room, then map the file at the first 2 MiB boundary + 1 MiB inside it.
    void* room = mmap(nullptr, length + 2 * two, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const auto aligned = (reinterpret_cast<std::uintptr_t>(room) + two - 1) & ~(two - 1);
    start = aligned + (two / 2);
    mmap(reinterpret_cast<void*>(start), length, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    close(fd);
  }
  ~FakeImage() { std::filesystem::remove(path); }
  bool holdsPattern() const {
    for (std::size_t i = 0; i < length; i += 4093) {
      if (reinterpret_cast<const unsigned char*>(start)[i] != static_cast<unsigned char>(i * 7 + i / 4096)) return false;
    }
    return true;
  }
};

// The point of it: a forked child that populates its image first takes fewer page fault
// exceptions reading it. (A file mapping of its own stands in for the image: this test
// binary's own code is also what gtest runs between tests, so how much of it a child finds
// mapped depends on which tests ran before.)
TEST(ImagePrefault, AForkedChildThatPopulatesTrapsLess) {
  FakeImage image;
  const std::vector<AddressRange> ranges = {{image.start, image.start + image.length}};
  auto child_traps = [&](bool prefault) {
    return childTraps([&] {
      if (prefault) populate(ranges);
      readEveryPage(image.start, image.start + image.length);
    });
  };
  const long without = child_traps(false);
  const long with = child_traps(true);
  if (without < 0 || with < 0) GTEST_SKIP() << "perf_event_open refused here";
  EXPECT_LT(with, without) << "page fault traps with populate " << with << ", without " << without;
}

// kB of AnonHugePages /proc/self/smaps gives the mapping that starts at `start`.
long anonHugeKb(std::uintptr_t start) { return smapsFieldKb(start, "AnonHugePages"); }

// Whether this kernel makes a huge page of 2 MiB of anonymous memory on request (THP, and
// MADV_COLLAPSE: Linux 6.1), asked apart from the code under test.
bool hugePagesToBeHad() {
  const std::size_t two = std::size_t{2} << 20;
  void* room = mmap(nullptr, 2 * two, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (room == MAP_FAILED) return false;
  auto* aligned = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(room) + two - 1) & ~(two - 1));
  aligned[0] = 1;
  const bool collapsed = madvise(aligned, two, 25 /* MADV_COLLAPSE */) == 0;
  munmap(room, 2 * two);
  return collapsed;
}

TEST(ImageHugePages, TheWholeWindowMovesWithItsBytesAndTheRestIsLeft) {
  FakeImage image;
  const std::uintptr_t window = image.start + (std::size_t{1} << 20);  // the 2 MiB boundary
  const std::uintptr_t window_end = window + (std::size_t{2} << 20);
  const std::uintptr_t image_end = image.start + image.length;
  const long before = childReadTraps(window, window_end);
  if (!hugePagesToBeHad()) GTEST_SKIP() << "no transparent huge page to be had here";
  const auto left = moveImageToHugePages({{image.start, image_end}});
  // Both 2 MiB windows from the boundary to the image's end moved; the first 1 MiB is left.
  ASSERT_EQ(left, (std::vector<AddressRange>{{image.start, window}}));
  EXPECT_TRUE(image.holdsPattern());
  EXPECT_EQ(anonHugeKb(window), 4096);
  // A forked child finds the window mapped: no trap where the file mapping cost one per 64 KiB.
  // (One may still come from this test's own code, which the child faults back in.)
  const long after = childReadTraps(window, window_end);
  if (before < 0 || after < 0) GTEST_SKIP() << "perf_event_open refused here";
  EXPECT_GE(before, 16);
  EXPECT_LE(after, 2) << "traps before the move " << before;
}

TEST(ImageHugePages, RangesWithNoWholeWindowAreLeftAsTheyWere) {
  const std::vector<AddressRange> small = {{0x400000, 0x5ff000}, {0x601000, 0x7ff000}};
  EXPECT_EQ(moveImageToHugePages(small), small);
  EXPECT_TRUE(moveImageToHugePages({}).empty());
}

}  // namespace
}  // namespace drover::stepd
