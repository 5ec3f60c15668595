#include "cli/srun_terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace drover::cli {

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
  return true;
}

void PtyTerminal::restore() {
  if (!raw_) return;
  raw_ = false;
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
