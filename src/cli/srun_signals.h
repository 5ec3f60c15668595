#pragma once
// The signals srun and salloc act on, read from a signalfd in their own poll loops instead of
// handlers: blocked for the life of this object (restored at destruction), and the mask from
// before is kept so a forked child can restore it before exec. One mask and one signalfd for
// all of them: srun --pty's SIGWINCH is read here too (srun_terminal.h only answers the size).
#include <signal.h>

#include <optional>

namespace drover::cli {

// What a SignalWatch watches besides SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and
// SIGCONT.
struct AlsoWatched {
  bool child = false;         // SIGCHLD (salloc's command)
  bool window_size = false;   // SIGWINCH (srun --pty: the terminal was resized)
};

class SignalWatch {
 public:
  explicit SignalWatch(AlsoWatched also = {});
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
