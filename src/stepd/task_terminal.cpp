#include "stepd/task_terminal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace drover::stepd {
namespace {

std::string why(const char* what) { return std::string(what) + ": " + strerror(errno); }

// The slave by the master's own reference (TIOCGPTPEER, Linux 4.13): no path to race on; by
// name where the kernel lacks it.
int openSlave(int master, std::string& path) {
  char name[128];
  if (ptsname_r(master, name, sizeof name) != 0) return -1;
  path = name;
  int fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && (errno == EINVAL || errno == ENOTTY)) fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  return fd;
}

}  // namespace

Result<TaskTerminal> openTaskTerminal(std::uint32_t rows, std::uint32_t cols, uid_t owner) {
  TaskTerminal t;
  t.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (t.master < 0) return makeError(why("cannot allocate a pseudo-terminal (posix_openpt)"));
  auto fail = [&](const char* what) {
    std::string message = why(what);
    if (t.slave >= 0) close(t.slave);
    close(t.master);
    return makeError(message);
  };
  if (grantpt(t.master) != 0) return fail("cannot allocate a pseudo-terminal (grantpt)");
  if (unlockpt(t.master) != 0) return fail("cannot allocate a pseudo-terminal (unlockpt)");
  t.slave = openSlave(t.master, t.path);
  if (t.slave < 0) return fail("cannot open the pseudo-terminal's slave");
  if (geteuid() == 0 && owner != 0) {
    if (fchown(t.slave, owner, static_cast<gid_t>(-1)) != 0 || fchmod(t.slave, 0620) != 0)
      return fail(("cannot give " + t.path + " to the task's user").c_str());
  }
  if (rows != 0 && cols != 0 && !setWindowSize(t.master, rows, cols))
    return fail("cannot set the pseudo-terminal's window size");
  if (fcntl(t.master, F_SETFL, fcntl(t.master, F_GETFL) | O_NONBLOCK) != 0)
    return fail("cannot make the pseudo-terminal's master non-blocking");
  return t;
}

bool setWindowSize(int fd, std::uint32_t rows, std::uint32_t cols) {
  winsize size{};
  size.ws_row = static_cast<unsigned short>(std::min<std::uint32_t>(rows, 0xffff));
  size.ws_col = static_cast<unsigned short>(std::min<std::uint32_t>(cols, 0xffff));
  return ioctl(fd, TIOCSWINSZ, &size) == 0;
}

std::string endOfInputBytes(int master, bool line_open) {
  termios mode{};
  if (tcgetattr(master, &mode) != 0 || (mode.c_lflag & ICANON) == 0) return "";
  const char eof = static_cast<char>(mode.c_cc[VEOF]);
  if (eof == static_cast<char>(_POSIX_VDISABLE)) return "";
  return line_open ? std::string(2, eof) : std::string(1, eof);
}

}  // namespace drover::stepd
