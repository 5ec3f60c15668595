#include "cli/srun_terminal.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace drover::cli {
namespace {

// Both descriptors are the same terminal device (srun's stdin and its stderr, as at a shell
// prompt; not when stderr was redirected to a file or another terminal).
bool sameTerminal(int a, int b) {
  struct stat sa {}, sb {};
  if (!isatty(a) || !isatty(b) || fstat(a, &sa) != 0 || fstat(b, &sb) != 0) return false;
  return S_ISCHR(sa.st_mode) && S_ISCHR(sb.st_mode) && sa.st_rdev == sb.st_rdev;
}

}  // namespace

termios rawModeOf(const termios& mode) {
  termios raw = mode;
  cfmakeraw(&raw);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  return raw;
}

Result<std::unique_ptr<PtyTerminal>> PtyTerminal::open(int fd) {
  std::unique_ptr<PtyTerminal> terminal(new PtyTerminal(fd));
  if (!isatty(fd)) return terminal;
  termios mode{};
  if (tcgetattr(fd, &mode) != 0)
    return makeError(std::string("cannot read the terminal's mode: ") + strerror(errno));
  terminal->saved_ = mode;
  terminal->last_size_ = terminal->size();
  return terminal;
}

PtyTerminal::~PtyTerminal() { restore(); }

std::optional<WindowSize> windowSizeOf(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return std::nullopt;
  return WindowSize{ws.ws_row, ws.ws_col};
}

std::optional<WindowSize> PtyTerminal::size() const {
  if (!saved_) return std::nullopt;
  return windowSizeOf(fd_);
}

Result<bool> PtyTerminal::enterRawMode() {
  if (!saved_ || raw_) return true;
  const termios raw = rawModeOf(*saved_);
  int rc;
  while ((rc = tcsetattr(fd_, TCSANOW, &raw)) != 0 && errno == EINTR) {
  }
  if (rc != 0)
    return makeError(std::string("cannot put the terminal in raw mode: ") + strerror(errno));
  raw_ = true;
  if (sameTerminal(fd_, STDERR_FILENO))
    message_lines_ = std::make_unique<RawTerminalLines>(std::cerr);
  return true;
}

void PtyTerminal::restore() {
  if (!raw_) return;
  raw_ = false;
  message_lines_.reset();
  while (tcsetattr(fd_, TCSANOW, &*saved_) != 0 && errno == EINTR) {
  }
}

std::optional<WindowSize> PtyTerminal::resized() {
  auto now = size();
  if (!now || now == last_size_) return std::nullopt;
  last_size_ = now;
  return now;
}

}  // namespace drover::cli
