#include "cli/huge_page_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace drover::cli {

void useHugePageHeap() {
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  mallopt(M_MMAP_THRESHOLD, 64 << 20);  // reply and output buffers from the heap too
  mallopt(M_TOP_PAD, 32 << 20);         // grow in whole huge pages' worth
  mallopt(M_TRIM_THRESHOLD, 64 << 20);  // and keep it
  void* probe = std::malloc(kHugePage);  // grows the heap by the pad now
  const auto from = (reinterpret_cast<std::uintptr_t>(probe) + kHugePage - 1) & ~(kHugePage - 1);
  std::free(probe);
  const auto to = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

}  // namespace drover::cli
