#include "cli/srun_signals.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace drover::cli {

SignalWatch::SignalWatch(AlsoWatched also) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT}) sigaddset(&set, sig);
  if (also.child) sigaddset(&set, SIGCHLD);
  if (also.window_size) sigaddset(&set, SIGWINCH);
  sigprocmask(SIG_BLOCK, &set, &previous_);
  fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  // A closed stdout (srun ... | head) must not kill srun before it ends the step.
  signal(SIGPIPE, SIG_IGN);
}

SignalWatch::~SignalWatch() {
  if (fd_ >= 0) close(fd_);
  sigprocmask(SIG_SETMASK, &previous_, nullptr);
}

std::optional<int> SignalWatch::take() {
  signalfd_siginfo info;
  for (;;) {
    const ssize_t n = read(fd_, &info, sizeof info);
    if (n == static_cast<ssize_t>(sizeof info)) return static_cast<int>(info.ssi_signo);
    if (n < 0 && errno == EINTR) continue;
    return std::nullopt;
  }
}

std::optional<int> SignalWatch::wait(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) > 0) return take();
  return std::nullopt;
}

}  // namespace drover::cli
