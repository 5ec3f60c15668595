#include "stepd/image_prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/kernel_file.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14
#endif

namespace drover::stepd {

std::vector<AddressRange> readOnlyImageRanges(const std::string& maps, const std::string& image) {
  std::vector<AddressRange> out;
  std::istringstream lines(maps);
  std::string line;
  while (std::getline(lines, line)) {
    // start-end perms offset dev inode path
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    if (!(fields >> range >> perms >> offset >> dev >> inode)) continue;
    std::getline(fields >> std::ws, path);
    if (path != image || perms.size() < 2 || perms[0] != 'r' || perms[1] == 'w') continue;
    const auto dash = range.find('-');
    if (dash == std::string::npos) continue;
    char* rest = nullptr;
    const auto start = static_cast<std::uintptr_t>(std::strtoull(range.c_str(), &rest, 16));
    if (rest != range.c_str() + dash) continue;
    const auto end =
        static_cast<std::uintptr_t>(std::strtoull(range.c_str() + dash + 1, &rest, 16));
    if (*rest != '\0' || end <= start) continue;
    if (!out.empty() && out.back().end == start) {
      out.back().end = end;
    } else {
      out.push_back({start, end});
    }
  }
  return out;
}

std::vector<AddressRange> ownReadOnlyImageRanges() {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  return readOnlyImageRanges(readKernelFile("/proc/self/maps"),
                             std::string(exe, static_cast<std::size_t>(n)));
}

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

std::uintptr_t roundUp(std::uintptr_t x) { return (x + kHugePage - 1) & ~(kHugePage - 1); }
std::uintptr_t roundDown(std::uintptr_t x) { return x & ~(kHugePage - 1); }

// The image's bytes as they are. Under AddressSanitizer they include the redzones around its
// globals, which a plain memcpy is reported as reading: there the copy goes word by word
// through volatile reads, which no compiler turns back into a (sanitizer-checked) memcpy call.
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize_address)) void copyImage(void* to, std::uintptr_t from, std::size_t length) {
  auto* out = static_cast<std::uint64_t*>(to);
  const auto* in = reinterpret_cast<const volatile std::uint64_t*>(from);
  for (std::size_t i = 0; i < length / sizeof *out; ++i) out[i] = in[i];
}
#else
void copyImage(void* to, std::uintptr_t from, std::size_t length) {
  std::memcpy(to, reinterpret_cast<const void*>(from), length);
}
#endif

// [first, first + length) of this image, copied into huge pages mapped in its place. False
// (nothing changed) where no huge page could be had.
bool moveWindow(std::uintptr_t first, std::size_t length) {
  // An aligned anonymous region: map one huge page more, then trim both ends.
  void* raw = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  const auto raw_start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t copy = roundUp(raw_start);
  if (copy > raw_start) ::munmap(raw, copy - raw_start);
  const std::uintptr_t raw_end = raw_start + length + kHugePage;
  if (raw_end > copy + length) ::munmap(reinterpret_cast<void*>(copy + length), raw_end - copy - length);
  void* to = reinterpret_cast<void*>(copy);
  (void)::madvise(to, length, MADV_HUGEPAGE);
  copyImage(to, first, length);   // whole huge pages: a multiple of the word size
  // Huge pages already (the copy faulted them in) or made so now; else a copy of small pages
  // would cost each fork an entry per 4 KiB page: leave the image as it was.
  if (::madvise(to, length, MADV_COLLAPSE) != 0 || ::mprotect(to, length, PROT_READ | PROT_EXEC) != 0) {
    ::munmap(to, length);
    return false;
  }
  // The same bytes replace the running code in one system call: the instruction after it is
  // the copy's.
  if (::mremap(to, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void*>(first)) ==
      MAP_FAILED) {
    ::munmap(to, length);
    return false;
  }
  return true;
}

}  // namespace

std::vector<AddressRange> moveImageToHugePages(const std::vector<AddressRange>& ranges) {
  std::vector<AddressRange> left;
  for (const auto& r : ranges) {
    const std::uintptr_t first = roundUp(r.start);
    const std::uintptr_t last = roundDown(r.end);
    if (first >= last || !moveWindow(first, last - first)) {
      left.push_back(r);
      continue;
    }
    if (r.start < first) left.push_back({r.start, first});
    if (last < r.end) left.push_back({last, r.end});
  }
  return left;
}

void populate(const std::vector<AddressRange>& ranges) {
  for (const auto& r : ranges) {
    (void)::madvise(reinterpret_cast<void*>(r.start), r.end - r.start, MADV_POPULATE_READ);
  }
}

}  // namespace drover::stepd
