#pragma once
// The pseudo-terminal of an `srun --pty` task (task 0): allocated by the supervisor (root),
// handed to the user's task as its controlling terminal (task_spawn.h TaskSpec.terminal_fd),
// and driven from the master side by the I/O forwarder (io_forwarder.h).
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "drover/result.h"

namespace drover::stepd {

struct TaskTerminal {
  int master = -1;     // the supervisor's end: the task's output is read here, input written
  int slave = -1;      // the task's end; close it once the task was spawned
  std::string path;    // /dev/pts/N
};

// Opens a new pseudo-terminal pair (both ends close-on-exec, neither becomes the caller's
// controlling terminal), sets its window size when rows and cols are not 0, and, when run as
// root, gives the slave to the task's user (mode 0620, as login(1) does) so the user's programs
// may reopen it by name. On error nothing stays open.
// Sizes beyond a terminal's 16 bits are clamped.
Result<TaskTerminal> openTaskTerminal(std::uint32_t rows, std::uint32_t cols, uid_t owner);

// TIOCSWINSZ on either end: the terminal's foreground process group gets SIGWINCH when the
// size changed. Returns false (errno set) when the descriptor is no terminal.
bool setWindowSize(int fd, std::uint32_t rows, std::uint32_t cols);

// What to write into the master when srun's input ends: the terminal's end-of-file character
// (VEOF, usually Ctrl-D) while it is in canonical mode, twice when the line typed so far is not
// empty (the first only ends that line); nothing in raw mode, where no byte means end of file.
// `line_open`: the last byte written was not a newline.
std::string endOfInputBytes(int master, bool line_open);

}  // namespace drover::stepd
