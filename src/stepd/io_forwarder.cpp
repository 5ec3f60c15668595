#include "stepd/io_forwarder.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "drover/v1/step_io.pb.h"
#include "stepd/task_terminal.h"

namespace drover::stepd {
namespace {

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

void setNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// "host:port" or "[v6]:port".
Result<std::pair<std::string, std::string>> splitAddress(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    return makeError("bad srun I/O address '" + address + "': expected host:port");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return std::make_pair(host, address.substr(colon + 1));
}

Result<int> connectTo(const std::string& address, int timeout_ms) {
  auto parts = splitAddress(address);
  if (!parts) return makeError(parts.error());
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(parts->first.c_str(), parts->second.c_str(), &hints, &found); rc != 0)
    return makeError("cannot resolve srun I/O address " + address + ": " + gai_strerror(rc));
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd pfd{fd, POLLOUT, 0};
      int err = ETIMEDOUT;
      if (poll(&pfd, 1, timeout_ms) == 1) {
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      why = strerror(errno);
      closeFd(fd);
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return makeError("cannot connect to srun at " + address + ": " + why);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

Result<std::unique_ptr<IoForwarder>> IoForwarder::connect(const std::string& address,
                                                          const Hello& hello, int timeout_ms) {
  auto fd = connectTo(address, timeout_ms);
  if (!fd) return makeError(fd.error());
  std::unique_ptr<IoForwarder> forwarder(new IoForwarder(*fd));
  drover::v1::StepIoFromStepd frame;
  auto* h = frame.mutable_hello();
  h->set_io_key(hello.key);
  h->set_node_id(hello.node_id);
  h->set_node_name(hello.node_name);
  for (auto rank : hello.ranks) h->add_ranks(rank);
  appendFrame(frame, forwarder->send_queue_);
  return forwarder;
}

IoForwarder::~IoForwarder() {
  for (auto& [rank, task] : tasks_) {
    closeTaskEnds(rank);
    closeFd(task.stdin_fd);
    closeFd(task.out.fd);
    closeFd(task.err.fd);
  }
  if (socket_ < 0) return;
  // Half-close, then wait (a bounded time) for srun to close its side, which it does once it
  // has read everything: closing with unread input would reset the connection and could
  // cost srun the last frames.
  shutdown(socket_, SHUT_WR);
  char sink[4096];
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          give_up - std::chrono::steady_clock::now())
                          .count();
    pollfd pfd{socket_, POLLIN, 0};
    if (left <= 0 || poll(&pfd, 1, static_cast<int>(left)) <= 0) break;
    if (read(socket_, sink, sizeof sink) <= 0) break;
  }
  close(socket_);
}

Result<TaskPipeEnds> IoForwarder::openTask(std::uint32_t rank) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return makeError(std::string("pipe: ") + strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    return makeError(std::string("pipe: ") + strerror(errno));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return makeError(std::string("pipe: ") + strerror(errno));
  }
  Task& task = tasks_[rank];
  task.rank = rank;
  task.child = {in[0], out[1], err[1]};
  task.stdin_fd = in[1];
  task.out = {out[0], false};
  task.err = {err[0], true};
  for (int fd : {in[1], out[0], err[0]}) setNonBlocking(fd);
  if (lost_) closeStdin(task);
  return task.child;
}

Result<TaskPipeEnds> IoForwarder::openTerminalTask(std::uint32_t rank, std::uint32_t rows,
                                                   std::uint32_t cols, uid_t owner) {
  auto terminal = openTaskTerminal(rows, cols, owner);
  if (!terminal) return makeError(terminal.error());
  // Input has a descriptor of its own, so srun's end of input can close it while the task's
  // output is still read from the master.
  const int input = fcntl(terminal->master, F_DUPFD_CLOEXEC, 0);
  if (input < 0) {
    const std::string why = std::string("dup: ") + strerror(errno);
    close(terminal->master), close(terminal->slave);
    return makeError(why);
  }
  Task& task = tasks_[rank];
  task.rank = rank;
  task.terminal = true;
  task.child.terminal_fd = terminal->slave;
  task.stdin_fd = input;
  task.out = {terminal->master, false};
  if (lost_) closeStdin(task);
  return task.child;
}

void IoForwarder::closeTaskEnds(std::uint32_t rank) {
  auto it = tasks_.find(rank);
  if (it == tasks_.end()) return;
  closeFd(it->second.child.stdin_fd);
  closeFd(it->second.child.stdout_fd);
  closeFd(it->second.child.stderr_fd);
  closeFd(it->second.child.terminal_fd);
}

void IoForwarder::resizeTerminals(std::uint32_t rows, std::uint32_t cols) {
  for (auto& [rank, task] : tasks_) {
    if (!task.terminal) continue;
    // The master is read until the task's side closed; the input descriptor may outlive it.
    const int fd = task.out.fd >= 0 ? task.out.fd : task.stdin_fd;
    if (fd >= 0) setWindowSize(fd, rows, cols);
  }
}

void IoForwarder::taskEnded(std::uint32_t rank, int exit_code, int signal) {
  auto it = tasks_.find(rank);
  if (it == tasks_.end()) return;
  Task& task = it->second;
  task.ended = true;
  task.exit_code = exit_code;
  task.signal = signal;
  closeStdin(task);
  sendExitIfDone(task);
  ackStdin();
}

void IoForwarder::addPollFds(std::vector<pollfd>& fds) {
  slots_.clear();
  auto add = [&](int fd, short events, Kind kind, std::uint32_t rank) {
    fds.push_back(pollfd{fd, events, 0});
    slots_.push_back(Slot{kind, rank});
  };
  if (!lost_) {
    // Always read: srun bounds the input in flight (stdin_ack), and signals must get through.
    short events = static_cast<short>(POLLIN | (send_queue_.size() > sent_ ? POLLOUT : 0));
    add(socket_, events, Kind::kSocket, 0);
  }
  const bool may_read = lost_ || send_queue_.size() - sent_ < kSendQueueLimit;
  for (const auto& [rank, task] : tasks_) {
    if (may_read && task.out.fd >= 0) add(task.out.fd, POLLIN, Kind::kStdout, rank);
    if (may_read && task.err.fd >= 0) add(task.err.fd, POLLIN, Kind::kStderr, rank);
    if (task.stdin_fd >= 0 && (!task.stdin_pending.empty() || !task.end_of_input.empty()))
      add(task.stdin_fd, POLLOUT, Kind::kStdin, rank);
  }
}

void IoForwarder::handlePoll(const std::vector<pollfd>& fds, std::size_t first) {
  for (std::size_t i = 0; i < slots_.size() && first + i < fds.size(); ++i) {
    const short revents = fds[first + i].revents;
    if (revents == 0) continue;
    const Slot slot = slots_[i];
    if (slot.kind == Kind::kSocket) {
      if (revents & POLLOUT) flushSocket();
      if (revents & (POLLIN | POLLHUP | POLLERR)) readSocket();
      continue;
    }
    auto it = tasks_.find(slot.rank);
    if (it == tasks_.end()) continue;
    Task& task = it->second;
    switch (slot.kind) {
      case Kind::kStdout: readPipe(task, task.out); break;
      case Kind::kStderr: readPipe(task, task.err); break;
      case Kind::kStdin: writeStdin(task); break;
      case Kind::kSocket: break;
    }
  }
  slots_.clear();
  ackStdin();
}

void IoForwarder::ackStdin() {
  std::size_t most_pending = 0;
  for (const auto& [rank, task] : tasks_)
    most_pending = std::max(most_pending, task.stdin_pending.size());
  const std::uint64_t delivered = stdin_received_ - most_pending;
  if (lost_ || delivered <= stdin_acked_) return;
  if (delivered - stdin_acked_ < kReadChunk && most_pending > 0) return;  // batch acks
  stdin_acked_ = delivered;
  drover::v1::StepIoFromStepd frame;
  frame.mutable_stdin_ack()->set_delivered(delivered);
  appendFrame(frame, send_queue_);
  flushSocket();
}

std::vector<int> IoForwarder::takeSignals() { return std::exchange(signals_, {}); }

bool IoForwarder::finished() const {
  for (const auto& [rank, task] : tasks_)
    if (!task.exit_sent) return false;
  return lost_ || sent_ == send_queue_.size();
}

void IoForwarder::abandonPipes() {
  for (auto& [rank, task] : tasks_) {
    closeFd(task.out.fd);
    closeFd(task.err.fd);
    sendExitIfDone(task);
  }
}

void IoForwarder::notice(std::uint32_t rank, const std::string& text) {
  if (lost_) return;
  drover::v1::StepIoFromStepd frame;
  auto* out = frame.mutable_output();
  out->set_rank(rank);
  out->set_stream(drover::v1::StepIoOutput::STDERR);
  out->set_data(text);
  appendFrame(frame, send_queue_);
}

void IoForwarder::stepAborted() {
  if (lost_) return;
  drover::v1::StepIoFromStepd frame;
  frame.mutable_aborted();
  appendFrame(frame, send_queue_);
}

void IoForwarder::sendPmiFence(const pmi::Fence& fence) {
  if (lost_) return;
  drover::v1::StepIoFromStepd frame;
  auto* out = frame.mutable_pmi_fence();
  out->set_sequence(fence.sequence);
  putPmiPairs(fence.pairs, out->mutable_pairs());
  appendFrame(frame, send_queue_);
  flushSocket();  // the node's tasks wait on it
}

void IoForwarder::sendPmiAbort(const pmi::Abort& abort) {
  if (lost_) return;
  drover::v1::StepIoFromStepd frame;
  auto* out = frame.mutable_pmi_abort();
  out->set_rank(abort.rank);
  out->set_exit_code(abort.exit_code);
  out->set_message(abort.message);
  appendFrame(frame, send_queue_);
  flushSocket();
}

void IoForwarder::failStart(const std::vector<std::uint32_t>& ranks, const std::string& message,
                            int exit_code) {
  for (auto rank : ranks) {
    Task& task = tasks_[rank];
    task.rank = rank;
    closeTaskEnds(rank);
    closeFd(task.out.fd);
    closeFd(task.err.fd);
    closeStdin(task);
    if (task.exit_sent || lost_) continue;
    notice(rank, message);
    task.ended = true;
    task.exit_code = exit_code;
    sendExitIfDone(task);
  }
  for (int waited = 0; !lost_ && sent_ < send_queue_.size() && waited < 50; ++waited) {
    pollfd pfd{socket_, POLLOUT, 0};
    if (poll(&pfd, 1, 100) > 0) flushSocket();
  }
}

void IoForwarder::readPipe(Task& task, Pipe& pipe) {
  char buf[kReadChunk];
  ssize_t n = read(pipe.fd, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    closeFd(pipe.fd);
    sendExitIfDone(task);
    return;
  }
  if (lost_) return;
  drover::v1::StepIoFromStepd frame;
  auto* out = frame.mutable_output();
  out->set_rank(task.rank);
  out->set_stream(pipe.stderr_stream ? drover::v1::StepIoOutput::STDERR
                                     : drover::v1::StepIoOutput::STDOUT);
  out->set_data(buf, static_cast<std::size_t>(n));
  appendFrame(frame, send_queue_);
  flushSocket();
}

void IoForwarder::readSocket() {
  char buf[kReadChunk];
  ssize_t n = read(socket_, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    loseConnection();
    return;
  }
  reader_.append(buf, static_cast<std::size_t>(n));
  std::string payload;
  for (;;) {
    auto next = reader_.next(payload);
    if (next == FrameReader::Next::kNeedMore) break;
    if (next == FrameReader::Next::kTooLarge) {
      loseConnection();
      return;
    }
    handleFrame(payload);
  }
}

void IoForwarder::handleFrame(const std::string& payload) {
  drover::v1::StepIoToStepd frame;
  if (!frame.ParseFromString(payload)) return;
  if (frame.has_signal()) {
    signals_.push_back(frame.signal().signal());
    return;
  }
  if (frame.has_window_size()) {
    const auto& size = frame.window_size();
    resizeTerminals(size.rows(), size.cols());
    return;
  }
  if (frame.has_pmi_start()) {
    pmi_start_ = frame.pmi_start().process_mapping();
    return;
  }
  if (frame.has_pmi_fence_done()) {
    const auto& done = frame.pmi_fence_done();
    pmi_fences_done_.push_back({done.sequence(), pmiPairsOf(done.pairs())});
    return;
  }
  if (!frame.has_input()) return;
  const auto& input = frame.input();
  stdin_received_ += input.data().size();
  auto apply = [&](Task& task) {
    if (task.stdin_eof) return;
    task.stdin_pending += input.data();
    if (task.terminal && !input.data().empty()) task.line_open = input.data().back() != '\n';
    if (input.eof()) task.stdin_eof = true;
    writeStdin(task);
  };
  if (input.ranks().empty()) {
    for (auto& [rank, task] : tasks_) apply(task);
  } else {
    for (auto rank : input.ranks())
      if (auto it = tasks_.find(rank); it != tasks_.end()) apply(it->second);
  }
}

void IoForwarder::writeStdin(Task& task) {
  if (!writeAll(task, task.stdin_pending) || !task.stdin_eof) return;
  // srun's input ended and all of it is in. A terminal has no end of input to close: its
  // end-of-file character is typed instead, chosen now, in the mode the task's terminal has
  // when it gets it (and never counted as srun's bytes in stdin_ack). Once typed, or for a
  // pipe at once, the descriptor is closed.
  if (task.terminal && task.end_of_input.empty() && task.out.fd >= 0)
    task.end_of_input = endOfInputBytes(task.stdin_fd, task.line_open);
  if (!writeAll(task, task.end_of_input)) return;
  closeStdin(task);
}

bool IoForwarder::writeAll(Task& task, std::string& bytes) {
  while (task.stdin_fd >= 0 && !bytes.empty()) {
    ssize_t n = write(task.stdin_fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return false;
    if (n < 0) {  // the task closed its stdin: what it did not read is dropped, as with a pipe
      closeStdin(task);
      return false;
    }
    bytes.erase(0, static_cast<std::size_t>(n));
  }
  return task.stdin_fd >= 0;
}

void IoForwarder::closeStdin(Task& task) {
  closeFd(task.stdin_fd);
  task.stdin_pending.clear();
  task.end_of_input.clear();
  task.stdin_eof = true;
}

void IoForwarder::flushSocket() {
  while (!lost_ && sent_ < send_queue_.size()) {
    ssize_t n = send(socket_, send_queue_.data() + sent_, send_queue_.size() - sent_,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n < 0) {
      loseConnection();
      return;
    }
    sent_ += static_cast<std::size_t>(n);
  }
  // Drop what was sent once it is most of the buffer, so the queue costs O(bytes) overall.
  if (sent_ == send_queue_.size()) {
    send_queue_.clear();
    sent_ = 0;
  } else if (sent_ > send_queue_.size() / 2) {
    send_queue_.erase(0, sent_);
    sent_ = 0;
  }
}

void IoForwarder::sendExitIfDone(Task& task) {
  if (!task.ended || task.exit_sent || task.out.fd >= 0 || task.err.fd >= 0) return;
  task.exit_sent = true;
  if (lost_) return;
  drover::v1::StepIoFromStepd frame;
  auto* exit = frame.mutable_exit();
  exit->set_rank(task.rank);
  exit->set_exit_code(task.exit_code);
  exit->set_signal(task.signal);
  appendFrame(frame, send_queue_);
  flushSocket();
}

void IoForwarder::loseConnection() {
  lost_ = true;
  send_queue_.clear();
  sent_ = 0;
  for (auto& [rank, task] : tasks_) closeStdin(task);
}

}  // namespace drover::stepd
