#include "common/kernel_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace drover {

std::string readKernelFile(const std::string& path) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  // One page covers /proc/PID/status, stat and io; bigger files take further reads, until one
  // returns nothing: a seq_file of many records (maps, cpuinfo) gives about a page a read
  // however large the buffer, so a short read is not its end.
  std::size_t chunk = 4096;
  for (;;) {
    const std::size_t used = out.size();
    out.resize(used + chunk);
    const ssize_t n = ::read(fd, out.data() + used, chunk);
    if (n < 0 && errno == EINTR) {
      out.resize(used);
      continue;
    }
    out.resize(used + static_cast<std::size_t>(n > 0 ? n : 0));
    if (n <= 0) break;
    if (n == static_cast<ssize_t>(chunk)) chunk *= 2;
  }
  ::close(fd);
  return out;
}

}  // namespace drover
