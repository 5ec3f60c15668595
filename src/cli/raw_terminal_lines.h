#pragma once
// srun's own messages (std::cerr) while srun --pty holds its terminal raw. Raw mode turns the
// terminal's output processing off, so "\n" no longer returns the carriage and each message
// would start where the last one ended (stair-stepping). Output processing cannot stay on
// instead: the task's output arrives from its own pseudo-terminal with its line ends already
// made ("\r\n") and must reach the screen byte for byte. Nor can srun restore the mode around
// each message: a key typed in that moment would be read by srun's terminal in its own mode
// (Ctrl-C would signal srun instead of reaching the task). So, while raw, srun's stream adds
// the carriage return the terminal would have added.
#include <memory>
#include <ostream>

namespace drover::cli {

class RawTerminalLines {
 public:
  // From now until destruction every "\n" written to `stream` goes out as "\r\n".
  explicit RawTerminalLines(std::ostream& stream);
  ~RawTerminalLines();
  RawTerminalLines(const RawTerminalLines&) = delete;
  RawTerminalLines& operator=(const RawTerminalLines&) = delete;

 private:
  class Buffer;
  std::ostream& stream_;
  std::streambuf* previous_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace drover::cli
