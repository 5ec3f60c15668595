// useHugePageHeap (squeue's heap): memory allocated right after it is backed by transparent huge
// pages where the kernel gives them on request (THP mode `madvise`), the first 2 MiB region
// included. Its own test binary: it changes malloc's settings for the whole process.
#include "cli/huge_page_heap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace drover::cli {
namespace {

std::string thpMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(in, text);
  const auto open = text.find('['), close = text.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : text.substr(open + 1, close - open - 1);
}

long anonHugeKiB() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return -1;
}

TEST(HugePageHeapTest, TheFirstAllocationsGetHugePages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator, not glibc's heap, serves malloc here";
#endif
  if (thpMode() != "madvise") GTEST_SKIP() << "THP mode '" << thpMode() << "': only 'madvise' tells advice from none";
  useHugePageHeap();
  const long before = anonHugeKiB();
  ASSERT_GE(before, 0);
  // 4 MiB from the heap's first free bytes touch two 2 MiB regions past the first aligned
  // address (and a part below it, which is not advised). Both must be huge pages: with the
  // region the probe's leftover header spoiled, only one was.
  constexpr std::size_t kBytes = std::size_t{4} << 20;
  auto* block = static_cast<char*>(std::malloc(kBytes));
  ASSERT_NE(block, nullptr);
  // One byte a page, through volatile: a memset of memory freed unread may be optimised away.
  volatile char* touch = block;
  for (std::size_t at = 0; at < kBytes; at += 4096) touch[at] = 1;
  const long after = anonHugeKiB();
  std::free(block);
  EXPECT_GE(after - before, 4096) << "AnonHugePages " << before << " kB -> " << after << " kB";
}

}  // namespace
}  // namespace drover::cli
