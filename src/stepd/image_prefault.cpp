#include "stepd/image_prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "common/kernel_file.h"

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

void populate(const std::vector<AddressRange>& ranges) {
  for (const auto& r : ranges) {
    (void)::madvise(reinterpret_cast<void*>(r.start), r.end - r.start, MADV_POPULATE_READ);
  }
}

}  // namespace drover::stepd
