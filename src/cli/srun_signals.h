#pragma once
// The signals srun and salloc act on, read from a signalfd in their own poll loops instead of
// handlers: blocked for the life of this object (restored at destruction), and the mask from
// before is kept so a forked child can restore it before exec.
#include <signal.h>

#include <optional>

namespace drover::cli {

class SignalWatch {
 public:
  // SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT and, when asked, SIGCHLD.
  explicit SignalWatch(bool with_child = false);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  int fd() const { return fd_; }
  // The next pending signal, if any (never blocks).
  std::optional<int> take();
  // Waits up to timeout_ms for a signal.
  std::optional<int> wait(int timeout_ms);
  const sigset_t& previousMask() const { return previous_; }

 private:
  int fd_ = -1;
  sigset_t previous_{};
};

}  // namespace drover::cli
