#pragma once
// srun --pty's side of the user's terminal (its stdin): the window size sent with the step
// (StepSpec.pty_rows/pty_cols) and again after every SIGWINCH (the I/O stream's window_size;
// the signal itself is read with srun's others, srun_signals.h), and raw mode for the step's
// life, so every key (Ctrl-C as byte 0x03, Ctrl-D, Ctrl-Z) reaches task 0's pseudo-terminal,
// whose own line discipline interprets it, as with Slurm.
// The destructor, or restore(), puts the terminal back as it was; srun's signals are read from
// a signalfd, so every way srun ends runs it. Not a terminal: nothing is changed and no size
// is known; task 0 still gets a pseudo-terminal, fed srun's bytes.
#include <termios.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cli/raw_terminal_lines.h"
#include "drover/result.h"

namespace drover::cli {

struct WindowSize {
  std::uint16_t rows = 0;
  std::uint16_t cols = 0;
  bool operator==(const WindowSize&) const = default;
};

class PtyTerminal {
 public:
  // Reads fd's mode and size when it is a terminal. An error when fd is a terminal whose mode
  // cannot be read.
  static Result<std::unique_ptr<PtyTerminal>> open(int fd);
  ~PtyTerminal();
  PtyTerminal(const PtyTerminal&) = delete;
  PtyTerminal& operator=(const PtyTerminal&) = delete;

  bool isTerminal() const { return saved_.has_value(); }
  // The terminal's size now; none when it is no terminal or reports 0 x 0.
  std::optional<WindowSize> size() const;

  // Raw mode (cfmakeraw: no echo, no line editing, no signals from keys, no output
  // processing). A no-op when not a terminal. When srun's stderr is this terminal too, srun's
  // messages (std::cerr) end their lines with "\r\n" while it is raw (raw_terminal_lines.h).
  Result<bool> enterRawMode();
  // The mode from before enterRawMode, and "\n" for srun's messages again (idempotent; the
  // destructor calls it).
  void restore();

  // After a SIGWINCH: the size now when it differs from the last one returned (or read at
  // open, which srun sends with the step); none when it is the same or no terminal.
  std::optional<WindowSize> resized();

 private:
  explicit PtyTerminal(int fd) : fd_(fd) {}

  int fd_;
  std::optional<termios> saved_;
  bool raw_ = false;
  std::unique_ptr<RawTerminalLines> message_lines_;   // while raw, when stderr is fd_ too
  std::optional<WindowSize> last_size_;
};

// The mode enterRawMode sets, from the terminal's current one (pure, for tests).
termios rawModeOf(const termios& mode);

// fd's window size (TIOCGWINSZ); none when fd is no terminal or reports 0 x 0. srun --pty with
// stdin not a terminal takes its stdout's, as Slurm's srun does.
std::optional<WindowSize> windowSizeOf(int fd);

}  // namespace drover::cli
