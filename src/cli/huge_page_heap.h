#pragma once
// For a CLI about to build a large reply in memory (squeue over thousands of jobs): the malloc
// heap grows in 32 MiB steps advised for transparent huge pages, and large allocations stay on
// it instead of getting mappings of their own, so the kernel maps the memory 2 MiB per fault
// instead of 4 KiB. On a virtual machine where every page fault traps to the hypervisor, faults
// were most of squeue's CPU time at 5,000 jobs (docs/performance.md, "squeue at 5,000 jobs").
// Advice only: without THP the heap is ordinary pages, and pages never touched cost nothing.
namespace drover::cli {

void useHugePageHeap();

}  // namespace drover::cli
