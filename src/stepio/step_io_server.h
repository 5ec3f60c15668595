#pragma once
// srun's end of a step's I/O stream.
//
// Protocol (proto/drover/v1/step_io.proto; frames of src/wire/frame_codec.h: 4-byte
// big-endian length + one serialized message). One TCP connection per node, opened by that
// node's supervisor to LaunchStepRequest.io_address:
//   stepd -> srun  StepIoFromStepd: hello{io_key, node_id, node_name, ranks} first, then
//                  output{rank, STDOUT|STDERR, bytes} as tasks write, exit{rank, exit_code,
//                  signal} per task after its last output, then EOF.
//   srun -> stepd  StepIoToStepd: input{ranks (empty = all on the node), bytes, eof},
//                  signal{signal} (delivered to every task of the node) and, for --pty,
//                  window_size{rows, cols} to task 0's node.
//
// srun creates one StepIoServer per step before asking the controller for the step:
//
//   StepIoOptions o;  o.num_tasks = 8;  o.num_nodes = 2;  o.label = opt.label;  ...
//   auto server = StepIoServer::listen(o);          // ephemeral port, fresh random key
//   request.set_io_address(server->address());      // "host:port"   -> LaunchStepRequest
//   request.set_io_key(server->key());              // 32 random bytes
//   std::thread io([&] { server->run(); });         // or drive it from srun's own poll loop
//   ... on SIGINT/SIGTERM/SIGUSR1...: server->forwardSignal(sig);   (async-signal-safe)
//   io.join();                                      // run() returns once every task ended
//   return srunExitCode(server->taskEnds());
//
// Each node's supervisor connects once and says hello with the key; a wrong key, unknown or
// duplicate ranks, or any other first frame closes that connection (rejectedConnections()).
// Output goes to stdout_fd/stderr_fd as it arrives:
//   label      every line prefixed "<rank>: ", the rank right-aligned to the width of the
//              largest task id (Slurm's --label: " 0: " ... "11: " for 12 tasks), whole lines
//              only, so tasks never interleave inside a line;
//   default    whole lines per task, no prefix (Slurm's line-buffered default);
//   unbuffered bytes as they come (Slurm's -u).
// A task's incomplete last line is written when the task ends. stdin_fd is read (only once
// the node(s) it goes to are connected, and only while less than kStdinWindow bytes are
// unacknowledged) and sent to task 0 or to every task; tasks that get no stdin see EOF at once.
//
// Threads: run()/runOnce()/addPollFds()/handlePoll() and the accessors belong to one thread;
// forwardSignal() and stop() may be called from any thread or a signal handler.
#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "drover/result.h"
#include "pmi/relay.h"
#include "stepd/io_frames.h"

namespace drover::v1 {
class StepIoFromStepd;
class StepIoToStepd;
}  // namespace drover::v1

namespace drover::stepio {

// -i: one task's stdin (task 0 unless -i N), every task's (-i all), or none.
enum class StdinMode { kOneTask, kAllTasks, kNone };

struct TaskEnd {
  std::uint32_t rank = 0;
  std::uint32_t node_id = 0;
  std::string node_name;
  int exit_code = 0;
  int signal = 0;        // the signal that ended the task, 0 if it exited
  bool lost = false;     // its node's connection closed before the task's exit frame
};

struct StepIoOptions {
  std::string listen_host = "0.0.0.0";
  std::string advertise_host;          // host in address(); default: listen_host, or this
                                       // machine's hostname when listening on any address
  std::uint32_t num_tasks = 1;
  bool label = false;                  // -l
  bool unbuffered = false;             // -u (ignored with label)
  StdinMode stdin_mode = StdinMode::kOneTask;  // -i all -> kAllTasks
  std::uint32_t stdin_task = 0;        // kOneTask: which task (-i N)
  int stdin_fd = 0;                    // -1: no stdin (as kNone)
  int stdout_fd = 1;
  int stderr_fd = 2;
  std::function<void(const TaskEnd&)> on_task_end;  // called on the I/O thread
  // srun --mpi=pmi2: send the nodes the step's layout once all said hello, and join their
  // PMI fences (pmi/relay.h, step_io.proto).
  bool pmi = false;
};

class StepIoServer {
 public:
  static constexpr std::size_t kSendQueueLimit = 1024 * 1024;
  static constexpr std::uint64_t kStdinWindow = 1024 * 1024;  // unacknowledged input per node
  static constexpr std::size_t kMaxPartialLine = 64 * 1024;

  static Result<std::unique_ptr<StepIoServer>> listen(StepIoOptions options);
  ~StepIoServer();
  StepIoServer(const StepIoServer&) = delete;
  StepIoServer& operator=(const StepIoServer&) = delete;

  std::string address() const;                 // for LaunchStepRequest.io_address
  const std::string& key() const { return key_; }  // for LaunchStepRequest.io_key
  std::uint16_t port() const { return port_; }

  // Runs until every task ended (or stop()).
  void run();
  // One poll round of at most timeout_ms; returns done().
  bool runOnce(int timeout_ms);
  // For a caller's own poll loop: add our fds, poll, hand back the vector (ours from `first`).
  void addPollFds(std::vector<pollfd>& fds);
  void handlePoll(const std::vector<pollfd>& fds, std::size_t first);

  // srun listens before the controller has laid the step out: the real task count, set
  // before the first run()/runOnce() (connections wait in the backlog until then).
  void setNumTasks(std::uint32_t num_tasks);
  // Tasks whose node will never connect (its launch failed) end as lost.
  void markLost(const std::vector<std::uint32_t>& ranks, const std::string& node_name);

  void forwardSignal(int sig);                 // to every connected node's tasks
  // srun --pty: task 0's pseudo-terminal takes this window size (sent to its node now, or
  // when it connects).
  void resizeTerminal(std::uint16_t rows, std::uint16_t cols);
  void stop();                                 // run() returns soon

  bool done() const;                           // every task ended or was lost, or stopped
  std::vector<TaskEnd> taskEnds() const;       // ended tasks, by rank
  std::size_t connectedNodes() const { return nodes_; }
  std::size_t rejectedConnections() const { return rejected_; }
  // A node said the controller is ending the step (a cancel, a requeue, the time limit).
  bool stepAborted() const { return step_aborted_; }
  // srun --mpi=pmi2: tasks that called PMI abort since the last call.
  std::vector<pmi::Abort> takePmiAborts() { return std::exchange(pmi_aborts_, {}); }

 private:
  struct Conn;
  struct Task {
    bool ended = false;
    TaskEnd end;
    Conn* conn = nullptr;
    std::string partial[2];            // incomplete line per stream (stdout, stderr)
  };
  enum class Kind { kListen, kWake, kStdin, kConn };
  struct Slot {
    Kind kind;
    Conn* conn;
  };

  explicit StepIoServer(StepIoOptions options);
  void accept();
  void readWake();
  void readStdin();
  void readConn(Conn& conn);
  void flushConn(Conn& conn);
  void closeConn(Conn& conn, bool reject);
  bool handleFrame(Conn& conn, const std::string& payload);
  bool handleHello(Conn& conn, const std::string& key, std::uint32_t node_id,
                   const std::string& node_name, const std::vector<std::uint32_t>& ranks);
  void output(std::uint32_t rank, int stream, const std::string& data);
  void endTask(std::uint32_t rank, const TaskEnd& end);
  void sendInput(Conn& conn, const std::vector<std::uint32_t>& ranks, const std::string& data,
                 bool eof);
  void sendWindowSize(Conn& conn);
  void pmiFrame(Conn& conn, const drover::v1::StepIoFromStepd& frame);
  void sendToNodes(const drover::v1::StepIoToStepd& frame);
  bool stdinWanted() const;
  std::string label(std::uint32_t rank) const;

  StepIoOptions opts_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::string key_;
  std::string host_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::map<std::uint32_t, Task> tasks_;
  std::size_t ended_ = 0;
  std::size_t nodes_ = 0;
  std::size_t rejected_ = 0;
  bool stdin_done_ = false;
  std::optional<std::pair<std::uint16_t, std::uint16_t>> window_;  // rows, cols
  bool stopped_ = false;
  std::vector<Slot> slots_;
  std::optional<pmi::Relay> pmi_;            // opts_.pmi
  std::vector<pmi::Abort> pmi_aborts_;
  bool step_aborted_ = false;
};

// srun's exit code (Slurm's srun RETURN VALUE): the highest of the tasks' exit codes, where a
// task ended by signal N counts as 128+N (srun bash -c 'kill -9 $$' -> 137). A lost task
// counts as 1 unless something higher was seen.
int srunExitCode(const std::vector<TaskEnd>& ends);

// The line srun prints on stderr for a task that did not exit 0, as Slurm:
//   "srun: error: node01: task 1: Exited with exit code 1", "srun: error: node01: task 0: Killed"
// Empty for a task that exited 0.
std::string taskEndMessage(const TaskEnd& end);
// Its last part: "Exited with exit code 1", "Killed", ...; "" for a task that exited 0.
std::string taskOutcome(const TaskEnd& end);

// "<rank>: " with the rank right-aligned to the width of the largest id (num_tasks - 1).
std::string labelPrefix(std::uint32_t rank, std::uint32_t num_tasks);

}  // namespace drover::stepio
