#include "cli/huge_page_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace drover::cli {

void useHugePageHeap() {
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  constexpr std::size_t kProbe = std::size_t{30} << 20;
  mallopt(M_MMAP_THRESHOLD, 64 << 20);  // reply and output buffers from the heap too
  mallopt(M_TOP_PAD, 32 << 20);         // grow in whole huge pages' worth
  mallopt(M_TRIM_THRESHOLD, 64 << 20);  // and keep it
  // Grows the heap now, by the probe and the pad. malloc writes the top chunk's header right
  // after the probe, the only page it touches out there: a 2 MiB region holding a page already
  // mapped gets no huge page, so the probe is most of the pad long, and that page lands near
  // the end, away from the low addresses the next allocations take (with a 2 MiB probe, the
  // first region was the one spoiled, and squeue's rows faulted in 4 KiB at a time).
  void* probe = std::malloc(kProbe);
  const auto from = (reinterpret_cast<std::uintptr_t>(probe) + kHugePage - 1) & ~(kHugePage - 1);
  std::free(probe);
  const auto to = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

}  // namespace drover::cli
