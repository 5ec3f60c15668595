#pragma once
// A supervisor forked by the launcher starts with no page table entries for drover-stepd's
// code and read-only data: fork copies none for file mappings without private copies (the
// kernel lets them fault back in), so every 64 KiB of code the child runs first costs a page
// fault, about thirty of them per trivial step. Where each fault traps to a hypervisor
// (docs/performance.md, "Cost of running a trivial job") one MADV_POPULATE_READ of those
// mappings, right after the fork, maps them all for less than a third of that.
#include <cstdint>
#include <string>
#include <vector>

namespace drover::stepd {

struct AddressRange {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;  // exclusive
  bool operator==(const AddressRange&) const = default;
};

// The mappings of `image` (the executable's path) in a /proc/PID/maps text that are not
// writable (code, read-only data), adjacent ones merged.
std::vector<AddressRange> readOnlyImageRanges(const std::string& maps, const std::string& image);

// This process's own such ranges (/proc/self/maps, /proc/self/exe); empty when unreadable.
std::vector<AddressRange> ownReadOnlyImageRanges();

// Moves every 2 MiB-aligned window that lies wholly inside `ranges` (this process's own image)
// into anonymous transparent huge pages holding the same bytes, readable and executable, and
// returns the parts of `ranges` left outside them. Why: fork copies the page table entries of
// anonymous memory but not of file mappings, and a huge page is one entry, so every child the
// launcher forks then starts with that code mapped, where a file mapping costs it either a
// fault per 64 KiB it runs or one populate of the whole image (docs/performance.md, "Session
// 31"). A window whose huge page cannot be had (no THP, a kernel before MADV_COLLAPSE, Linux
// 6.1) stays as it was and is returned. The read-only data sharing a window with code becomes
// executable too.
std::vector<AddressRange> moveImageToHugePages(const std::vector<AddressRange>& ranges);

// Maps every page of `ranges` now. Best effort: a kernel before Linux 5.14 (no
// MADV_POPULATE_READ) just leaves them to fault in as before.
void populate(const std::vector<AddressRange>& ranges);

}  // namespace drover::stepd
