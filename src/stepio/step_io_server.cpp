#include "stepio/step_io_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "drover/v1/step_io.pb.h"

namespace drover::stepio {

struct StepIoServer::Conn {
  int fd = -1;
  bool hello = false;
  std::uint32_t node_id = 0;
  std::string node_name;
  std::vector<std::uint32_t> ranks;
  stepd::FrameReader reader;
  std::string queue;                  // frames to the supervisor
  std::size_t sent = 0;
  std::uint64_t stdin_sent = 0;       // input data bytes sent, and acknowledged by the node
  std::uint64_t stdin_acked = 0;
  std::size_t pending() const { return queue.size() - sent; }
};

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kKeyBytes = 32;

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Blocking write of everything, also to a non-blocking descriptor. A failed write (a closed
// pipe to `head`, say) drops the rest: output must never stall the step's other streams.
void writeAll(int fd, const std::string& data) {
  std::size_t done = 0;
  while (fd >= 0 && done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EAGAIN) {
      pollfd pfd{fd, POLLOUT, 0};
      poll(&pfd, 1, 1000);
    } else if (!(n < 0 && errno == EINTR)) {
      return;
    }
  }
}

bool sameKey(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;  // constant time: the key is a secret
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

Result<std::string> randomKey() {
  std::string key(kKeyBytes, '\0');
  std::size_t got = 0;
  while (got < key.size()) {
    ssize_t n = getrandom(key.data() + got, key.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return makeError(std::string("getrandom: ") + strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  return key;
}

int width(std::uint32_t n) {
  int digits = 1;
  while (n >= 10) n /= 10, ++digits;
  return digits;
}

}  // namespace

std::string labelPrefix(std::uint32_t rank, std::uint32_t num_tasks) {
  const int w = width(num_tasks > 0 ? num_tasks - 1 : 0);
  std::string digits = std::to_string(rank);
  if (static_cast<int>(digits.size()) < w) digits.insert(0, w - digits.size(), ' ');
  return digits + ": ";
}

int srunExitCode(const std::vector<TaskEnd>& ends) {
  int code = 0;
  for (const auto& end : ends) {
    if (end.lost) code = std::max(code, 1);
    else if (end.signal != 0) code = std::max(code, 128 + end.signal);
    else code = std::max(code, end.exit_code);
  }
  return code;
}

std::string taskOutcome(const TaskEnd& end) {
  if (end.lost) return "Lost connection to its node";
  if (end.signal != 0) return strsignal(end.signal);
  if (end.exit_code != 0) return "Exited with exit code " + std::to_string(end.exit_code);
  return "";
}

std::string taskEndMessage(const TaskEnd& end) {
  const std::string outcome = taskOutcome(end);
  if (outcome.empty()) return "";
  return "srun: error: " + end.node_name + ": task " + std::to_string(end.rank) + ": " + outcome;
}

Result<std::unique_ptr<StepIoServer>> StepIoServer::listen(StepIoOptions options) {
  if (options.num_tasks == 0) return makeError("a step I/O server needs at least one task");
  std::unique_ptr<StepIoServer> server(new StepIoServer(std::move(options)));
  auto key = randomKey();
  if (!key) return makeError(key.error());
  server->key_ = *key;

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string& host = server->opts_.listen_host;
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), "0", &hints, &found); rc != 0)
    return makeError("cannot listen for step I/O on '" + host + "': " + gai_strerror(rc));
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) continue;
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      why = strerror(errno);
      closeFd(fd);
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return makeError("cannot listen for step I/O on '" + host + "': " + why);
  server->listen_fd_ = fd;
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  server->port_ = ntohs(bound.ss_family == AF_INET6
                            ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (pipe2(server->wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    return makeError(std::string("pipe: ") + strerror(errno));

  std::string advertised = server->opts_.advertise_host;
  if (advertised.empty() && host != "0.0.0.0" && host != "::" && !host.empty()) advertised = host;
  if (advertised.empty()) {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    advertised = name;
  }
  server->host_ = advertised.find(':') != std::string::npos ? "[" + advertised + "]" : advertised;
  for (std::uint32_t rank = 0; rank < server->opts_.num_tasks; ++rank) server->tasks_[rank];
  if (server->opts_.stdin_fd < 0) server->opts_.stdin_mode = StdinMode::kNone;
  server->stdin_done_ = server->opts_.stdin_mode == StdinMode::kNone;
  return server;
}

StepIoServer::StepIoServer(StepIoOptions options) : opts_(std::move(options)) {
  if (opts_.pmi) pmi_.emplace(opts_.num_tasks);
}

StepIoServer::~StepIoServer() {
  for (auto& conn : conns_) closeFd(conn->fd);
  closeFd(listen_fd_);
  closeFd(wake_[0]);
  closeFd(wake_[1]);
}

std::string StepIoServer::address() const { return host_ + ":" + std::to_string(port_); }

void StepIoServer::run() {
  while (!runOnce(1000)) {
  }
}

bool StepIoServer::runOnce(int timeout_ms) {
  if (done()) return true;
  std::vector<pollfd> fds;
  addPollFds(fds);
  if (poll(fds.data(), fds.size(), timeout_ms) > 0) handlePoll(fds, 0);
  return done();
}

void StepIoServer::forwardSignal(int sig) {
  const unsigned char byte = static_cast<unsigned char>(sig);
  (void)!write(wake_[1], &byte, 1);
}

void StepIoServer::resizeTerminal(std::uint16_t rows, std::uint16_t cols) {
  window_ = std::make_pair(rows, cols);
  auto task0 = tasks_.find(0);
  if (task0 != tasks_.end() && task0->second.conn != nullptr) sendWindowSize(*task0->second.conn);
}

void StepIoServer::sendWindowSize(Conn& conn) {
  if (conn.fd < 0 || !window_) return;
  drover::v1::StepIoToStepd frame;
  frame.mutable_window_size()->set_rows(window_->first);
  frame.mutable_window_size()->set_cols(window_->second);
  stepd::appendFrame(frame, conn.queue);
  flushConn(conn);
}

void StepIoServer::stop() {
  const unsigned char byte = 0;
  (void)!write(wake_[1], &byte, 1);
}

void StepIoServer::setNumTasks(std::uint32_t num_tasks) {
  opts_.num_tasks = num_tasks == 0 ? 1 : num_tasks;
  if (pmi_) pmi_->setNumTasks(opts_.num_tasks);
  tasks_.clear();
  ended_ = 0;
  for (std::uint32_t rank = 0; rank < opts_.num_tasks; ++rank) tasks_[rank];
}

void StepIoServer::markLost(const std::vector<std::uint32_t>& ranks, const std::string& node_name) {
  for (auto rank : ranks) {
    auto it = tasks_.find(rank);
    if (it == tasks_.end() || it->second.ended) continue;
    TaskEnd end;
    end.rank = rank;
    end.node_name = node_name;
    end.lost = true;
    endTask(rank, end);
  }
}

bool StepIoServer::done() const { return stopped_ || ended_ == tasks_.size(); }

std::vector<TaskEnd> StepIoServer::taskEnds() const {
  std::vector<TaskEnd> ends;
  for (const auto& [rank, task] : tasks_)
    if (task.ended) ends.push_back(task.end);
  return ends;
}

bool StepIoServer::stdinWanted() const {
  if (stdin_done_) return false;
  // -i N past the step's last task: nobody to send to (nothing is read).
  if (opts_.stdin_mode == StdinMode::kOneTask && !tasks_.count(opts_.stdin_task)) return false;
  // Only read what can be sent now: every node it goes to is connected and keeping up.
  for (const auto& [rank, task] : tasks_) {
    if (task.ended || (opts_.stdin_mode == StdinMode::kOneTask && rank != opts_.stdin_task)) continue;
    if (task.conn == nullptr || task.conn->pending() >= kSendQueueLimit ||
        task.conn->stdin_sent - task.conn->stdin_acked >= kStdinWindow)
      return false;
  }
  return true;
}

void StepIoServer::addPollFds(std::vector<pollfd>& fds) {
  slots_.clear();
  auto add = [&](int fd, short events, Kind kind, Conn* conn) {
    fds.push_back(pollfd{fd, events, 0});
    slots_.push_back(Slot{kind, conn});
  };
  add(listen_fd_, POLLIN, Kind::kListen, nullptr);
  add(wake_[0], POLLIN, Kind::kWake, nullptr);
  if (stdinWanted()) add(opts_.stdin_fd, POLLIN, Kind::kStdin, nullptr);
  for (auto& conn : conns_) {
    if (conn->fd < 0) continue;
    add(conn->fd, static_cast<short>(POLLIN | (conn->pending() ? POLLOUT : 0)), Kind::kConn,
        conn.get());
  }
}

void StepIoServer::handlePoll(const std::vector<pollfd>& fds, std::size_t first) {
  const auto slots = std::exchange(slots_, {});
  for (std::size_t i = 0; i < slots.size() && first + i < fds.size(); ++i) {
    const short revents = fds[first + i].revents;
    if (revents == 0) continue;
    switch (slots[i].kind) {
      case Kind::kListen: accept(); break;
      case Kind::kWake: readWake(); break;
      case Kind::kStdin: readStdin(); break;
      case Kind::kConn:
        if (revents & POLLOUT) flushConn(*slots[i].conn);
        if (revents & (POLLIN | POLLHUP | POLLERR)) readConn(*slots[i].conn);
        break;
    }
  }
  // Connections closed in this round are dropped only now: slots pointed at them.
  std::erase_if(conns_, [](const auto& conn) { return conn->fd < 0; });
}

void StepIoServer::accept() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto conn = std::make_unique<Conn>();
    conn->fd = fd;
    conns_.push_back(std::move(conn));
  }
}

void StepIoServer::readWake() {
  unsigned char bytes[64];
  ssize_t n = read(wake_[0], bytes, sizeof bytes);
  for (ssize_t i = 0; i < n; ++i) {
    if (bytes[i] == 0) {
      stopped_ = true;
      continue;
    }
    drover::v1::StepIoToStepd frame;
    frame.mutable_signal()->set_signal(bytes[i]);
    for (auto& conn : conns_) {
      if (conn->fd < 0 || !conn->hello) continue;
      stepd::appendFrame(frame, conn->queue);
      flushConn(*conn);
    }
  }
}

void StepIoServer::readStdin() {
  char buf[kReadChunk];
  ssize_t n = read(opts_.stdin_fd, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  const bool eof = n <= 0;
  const std::string data = eof ? std::string() : std::string(buf, static_cast<std::size_t>(n));
  if (eof) stdin_done_ = true;
  if (opts_.stdin_mode == StdinMode::kOneTask) {
    // stdinWanted() saw the task's connection when the round began, but an earlier slot of
    // this round (a forwarded signal whose send failed) may have closed it since: the task
    // ended as lost, and its input goes nowhere.
    const auto task = tasks_.find(opts_.stdin_task);
    if (task != tasks_.end() && task->second.conn != nullptr)
      sendInput(*task->second.conn, {opts_.stdin_task}, data, eof);
    return;
  }
  for (auto& conn : conns_)
    if (conn->fd >= 0 && conn->hello) sendInput(*conn, {}, data, eof);
}

void StepIoServer::sendInput(Conn& conn, const std::vector<std::uint32_t>& ranks,
                             const std::string& data, bool eof) {
  if (conn.fd < 0) return;
  drover::v1::StepIoToStepd frame;
  auto* input = frame.mutable_input();
  for (auto rank : ranks) input->add_ranks(rank);
  input->set_data(data);
  input->set_eof(eof);
  conn.stdin_sent += data.size();
  stepd::appendFrame(frame, conn.queue);
  flushConn(conn);
}

void StepIoServer::flushConn(Conn& conn) {
  while (conn.fd >= 0 && conn.pending() > 0) {
    ssize_t n = send(conn.fd, conn.queue.data() + conn.sent, conn.pending(),
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n < 0) {
      closeConn(conn, false);
      return;
    }
    conn.sent += static_cast<std::size_t>(n);
  }
  if (conn.sent == conn.queue.size()) {
    conn.queue.clear();
    conn.sent = 0;
  } else if (conn.sent > conn.queue.size() / 2) {
    conn.queue.erase(0, conn.sent);
    conn.sent = 0;
  }
}

void StepIoServer::readConn(Conn& conn) {
  char buf[kReadChunk];
  ssize_t n = read(conn.fd, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    closeConn(conn, false);
    return;
  }
  conn.reader.append(buf, static_cast<std::size_t>(n));
  std::string payload;
  for (;;) {
    auto next = conn.reader.next(payload);
    if (next == stepd::FrameReader::Next::kNeedMore) return;
    if (next == stepd::FrameReader::Next::kTooLarge || !handleFrame(conn, payload)) {
      closeConn(conn, !conn.hello);
      return;
    }
  }
}

bool StepIoServer::handleFrame(Conn& conn, const std::string& payload) {
  drover::v1::StepIoFromStepd frame;
  if (!frame.ParseFromString(payload)) return false;
  if (!conn.hello) {
    if (!frame.has_hello()) return false;
    const auto& h = frame.hello();
    return handleHello(conn, h.io_key(), h.node_id(), h.node_name(),
                       {h.ranks().begin(), h.ranks().end()});
  }
  auto owned = [&](std::uint32_t rank) {
    auto it = tasks_.find(rank);
    return it != tasks_.end() && it->second.conn == &conn && !it->second.ended;
  };
  if (frame.has_output()) {
    const auto& out = frame.output();
    if (!owned(out.rank())) return false;
    output(out.rank(), out.stream() == drover::v1::StepIoOutput::STDERR ? 1 : 0, out.data());
  } else if (frame.has_stdin_ack()) {
    conn.stdin_acked = std::max<std::uint64_t>(conn.stdin_acked, frame.stdin_ack().delivered());
  } else if (frame.has_exit()) {
    const auto& exit = frame.exit();
    if (!owned(exit.rank())) return false;
    TaskEnd end;
    end.rank = exit.rank();
    end.node_id = conn.node_id;
    end.node_name = conn.node_name;
    end.exit_code = exit.exit_code();
    end.signal = exit.signal();
    endTask(exit.rank(), end);
  } else if (frame.has_aborted()) {
    step_aborted_ = true;
  } else if (frame.has_pmi_fence() || frame.has_pmi_abort()) {
    pmiFrame(conn, frame);
  }
  return true;
}

void StepIoServer::pmiFrame(Conn& conn, const drover::v1::StepIoFromStepd& frame) {
  if (frame.has_pmi_abort()) {
    const auto& a = frame.pmi_abort();
    pmi_aborts_.push_back({a.rank(), a.exit_code(), a.message()});
    return;
  }
  if (!pmi_) return;
  const auto& fence = frame.pmi_fence();
  auto whole = pmi_->part(conn.node_id, {fence.sequence(), stepd::pmiPairsOf(fence.pairs())});
  if (!whole) return;
  drover::v1::StepIoToStepd done;
  done.mutable_pmi_fence_done()->set_sequence(whole->sequence);
  stepd::putPmiPairs(whole->pairs, done.mutable_pmi_fence_done()->mutable_pairs());
  sendToNodes(done);
}

void StepIoServer::sendToNodes(const drover::v1::StepIoToStepd& frame) {
  for (auto& c : conns_) {
    if (c->fd < 0 || !c->hello) continue;
    stepd::appendFrame(frame, c->queue);
    flushConn(*c);
  }
}

bool StepIoServer::handleHello(Conn& conn, const std::string& key, std::uint32_t node_id,
                               const std::string& node_name,
                               const std::vector<std::uint32_t>& ranks) {
  if (!sameKey(key, key_) || ranks.empty()) return false;
  for (auto rank : ranks) {
    auto it = tasks_.find(rank);
    if (it == tasks_.end() || it->second.conn != nullptr || it->second.ended) return false;
  }
  conn.hello = true;
  conn.node_id = node_id;
  conn.node_name = node_name;
  conn.ranks = ranks;
  for (auto rank : ranks) tasks_[rank].conn = &conn;
  ++nodes_;
  // Tasks that get no stdin see EOF at once instead of waiting on srun's input.
  std::vector<std::uint32_t> no_input;
  for (auto rank : ranks)
    if (opts_.stdin_mode == StdinMode::kNone ||
        (opts_.stdin_mode == StdinMode::kOneTask && rank != opts_.stdin_task))
      no_input.push_back(rank);
  if (!no_input.empty()) sendInput(conn, no_input, "", true);
  // A resize since the step was created (its launch carried the size before it).
  if (window_ && std::find(ranks.begin(), ranks.end(), 0u) != ranks.end()) sendWindowSize(conn);
  if (pmi_) {
    if (auto mapping = pmi_->joined(node_id, ranks)) {
      drover::v1::StepIoToStepd start;
      start.mutable_pmi_start()->set_process_mapping(*mapping);
      sendToNodes(start);
    }
  }
  return true;
}

std::string StepIoServer::label(std::uint32_t rank) const {
  return opts_.label ? labelPrefix(rank, opts_.num_tasks) : std::string();
}

void StepIoServer::output(std::uint32_t rank, int stream, const std::string& data) {
  const int fd = stream == 1 ? opts_.stderr_fd : opts_.stdout_fd;
  if (opts_.unbuffered && !opts_.label) {
    writeAll(fd, data);
    return;
  }
  // Whole lines only, so one task's line is never split by another's.
  std::string& partial = tasks_[rank].partial[stream];
  const std::string prefix = label(rank);
  std::string ready;
  std::size_t start = 0;
  for (std::size_t nl; (nl = data.find('\n', start)) != std::string::npos; start = nl + 1) {
    ready += prefix;
    ready += partial;
    ready.append(data, start, nl + 1 - start);
    partial.clear();
  }
  partial.append(data, start, std::string::npos);
  if (partial.size() >= kMaxPartialLine) {  // a huge line is cut rather than held
    ready += prefix + partial;
    partial.clear();
  }
  if (!ready.empty()) writeAll(fd, ready);
}

void StepIoServer::endTask(std::uint32_t rank, const TaskEnd& end) {
  Task& task = tasks_[rank];
  if (task.ended) return;
  for (int stream : {0, 1}) {
    if (task.partial[stream].empty()) continue;
    writeAll(stream == 1 ? opts_.stderr_fd : opts_.stdout_fd,
             label(rank) + task.partial[stream]);
    task.partial[stream].clear();
  }
  task.ended = true;
  task.end = end;
  ++ended_;
  if (rank == opts_.stdin_task && opts_.stdin_mode == StdinMode::kOneTask) stdin_done_ = true;
  if (opts_.on_task_end) opts_.on_task_end(end);
}

void StepIoServer::closeConn(Conn& conn, bool reject) {
  if (conn.fd < 0) return;
  closeFd(conn.fd);
  if (reject) ++rejected_;
  for (auto rank : conn.ranks) {
    Task& task = tasks_[rank];
    if (task.ended) continue;
    TaskEnd end;
    end.rank = rank;
    end.node_id = conn.node_id;
    end.node_name = conn.node_name;
    end.lost = true;
    endTask(rank, end);
  }
  for (auto& [rank, task] : tasks_)
    if (task.conn == &conn) task.conn = nullptr;
}

}  // namespace drover::stepio
