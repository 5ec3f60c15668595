#pragma once
// The supervisor's end of srun's I/O stream (protocol: proto/drover/v1/step_io.proto).
//
// When a step has an io_address, each task's stdin, stdout and stderr are pipes owned by an
// IoForwarder instead of files. The forwarder connects to srun, says hello with the key, and
// is then driven by the supervisor's poll loop:
//   - every read from a task's stdout/stderr pipe is sent at once as one output frame, so
//     output is in order per task and never waits in the supervisor;
//   - while the socket's send queue is above kSendQueueLimit the pipes are not polled, so a
//     slow srun blocks the tasks' writes (back-pressure) instead of growing memory;
//   - input frames are written to the tasks' stdin pipes and acknowledged (stdin_ack) once
//     written, so srun can bound the input in flight; the socket is always read, so signal
//     frames reach the supervisor even while a task ignores its stdin;
//   - a task's exit frame is sent once it was reaped AND its pipes reached EOF, i.e. after
//     its last byte of output.
// srun --pty: task 0 gets a pseudo-terminal instead of three pipes (openTerminalTask). Its
// master is read as the task's stdout, input is written into it (window_size frames resize
// it), and srun's end of input types the terminal's end-of-file character (task_terminal.h).
// If srun goes away the forwarder reports connectionLost() and keeps draining the pipes
// into nothing, so tasks never block on a dead reader.
#include <poll.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "drover/result.h"
#include "pmi/node_server.h"
#include "stepd/io_frames.h"

namespace drover::stepd {

// The task's ends of its three pipes, for TaskSpec.
struct TaskPipeEnds {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int terminal_fd = -1;   // openTerminalTask: the pseudo-terminal's slave, for all three
};

class IoForwarder {
 public:
  static constexpr std::size_t kReadChunk = 64 * 1024;
  static constexpr std::size_t kSendQueueLimit = 256 * 1024;

  struct Hello {
    std::string key;
    std::uint32_t node_id = 0;
    std::string node_name;
    std::vector<std::uint32_t> ranks;
  };

  // Connects to "host:port" (blocking, up to `timeout_ms`) and queues the hello frame.
  static Result<std::unique_ptr<IoForwarder>> connect(const std::string& address,
                                                      const Hello& hello, int timeout_ms = 10000);
  ~IoForwarder();
  IoForwarder(const IoForwarder&) = delete;
  IoForwarder& operator=(const IoForwarder&) = delete;

  // Creates the pipes of one task. The returned ends go to the child; call
  // closeTaskEnds(rank) once it was spawned (or failed to).
  Result<TaskPipeEnds> openTask(std::uint32_t rank);
  // The same for the task of srun --pty: a pseudo-terminal of this size (0 = the kernel's
  // default) whose slave belongs to `owner`.
  Result<TaskPipeEnds> openTerminalTask(std::uint32_t rank, std::uint32_t rows,
                                        std::uint32_t cols, uid_t owner);
  void closeTaskEnds(std::uint32_t rank);

  // The task was reaped; its exit frame follows its remaining output.
  void taskEnded(std::uint32_t rank, int exit_code, int signal);
  // A line of the supervisor's own on `rank`'s stderr (cancel_notice.h), after what the task
  // wrote so far.
  void notice(std::uint32_t rank, const std::string& text);
  // The controller is ending the step (step_io.proto `aborted`).
  void stepAborted();

  // Poll loop integration: append this forwarder's fds, then hand back the same vector with
  // revents filled in (entries before `first` belong to the caller).
  void addPollFds(std::vector<pollfd>& fds);
  void handlePoll(const std::vector<pollfd>& fds, std::size_t first);

  // Signals srun asked for since the last call.
  std::vector<int> takeSignals();

  // srun --mpi=pmi2 (step_io.proto): this node's part of a fence, a task's PMI abort.
  void sendPmiFence(const pmi::Fence& fence);
  void sendPmiAbort(const pmi::Abort& abort);
  // What srun sent for PMI since the last call: the step's layout (PMI_process_mapping), once;
  // the fences every node reached, with all their pairs.
  std::optional<std::string> takePmiStart() { return std::exchange(pmi_start_, std::nullopt); }
  std::vector<pmi::Fence> takePmiFencesDone() { return std::exchange(pmi_fences_done_, {}); }

  // True once every task's exit frame was sent and the socket is flushed (or lost).
  bool finished() const;
  bool connectionLost() const { return lost_; }
  std::size_t queuedBytes() const { return send_queue_.size() - sent_; }  // not yet sent

  // Gives up on output still held open (by processes that left the step's process group):
  // closes the pipes, so the remaining exit frames go out.
  void abandonPipes();

  // The step could not start: sends `message` on every rank's stderr and an exit frame with
  // `exit_code`, waiting (up to a few seconds) until srun has them.
  void failStart(const std::vector<std::uint32_t>& ranks, const std::string& message,
                 int exit_code);

 private:
  struct Pipe {
    int fd = -1;
    bool stderr_stream = false;
  };
  struct Task {
    std::uint32_t rank = 0;
    TaskPipeEnds child;
    int stdin_fd = -1;            // our write end
    std::string stdin_pending;    // srun's bytes not yet written
    bool stdin_eof = false;       // close once stdin_pending is written
    std::string end_of_input;     // terminal: its EOF character(s), typed after stdin_pending
    Pipe out, err;
    bool terminal = false;        // out.fd is a pseudo-terminal's master, stdin_fd a dup of it
    bool line_open = false;       // terminal: the last input byte was not a newline
    bool ended = false;
    bool exit_sent = false;
    int exit_code = 0;
    int signal = 0;
  };
  enum class Kind { kSocket, kStdout, kStderr, kStdin };
  struct Slot {
    Kind kind;
    std::uint32_t rank;
  };

  explicit IoForwarder(int socket) : socket_(socket) {}
  void readPipe(Task& task, Pipe& pipe);
  void readSocket();
  void handleFrame(const std::string& payload);
  void writeStdin(Task& task);
  // Writes `bytes` into the task's stdin while it takes them; true once all are written.
  bool writeAll(Task& task, std::string& bytes);
  void flushSocket();
  void sendExitIfDone(Task& task);
  void loseConnection();
  void closeStdin(Task& task);
  void ackStdin();
  void resizeTerminals(std::uint32_t rows, std::uint32_t cols);

  int socket_ = -1;
  bool lost_ = false;
  std::string send_queue_;
  std::size_t sent_ = 0;          // bytes of send_queue_ already on the socket
  std::map<std::uint32_t, Task> tasks_;
  std::vector<int> signals_;
  std::optional<std::string> pmi_start_;
  std::vector<pmi::Fence> pmi_fences_done_;
  std::uint64_t stdin_received_ = 0;   // input data bytes from srun
  std::uint64_t stdin_acked_ = 0;
  std::vector<Slot> slots_;       // what each fd added by addPollFds is
  FrameReader reader_;
};

}  // namespace drover::stepd
