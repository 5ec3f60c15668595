#include "common/step_usage_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/sha256.h"

namespace drover {
namespace {

// sun_path holding the abstract name (leading NUL) and the address length that covers it.
socklen_t abstractAddress(const std::string& name, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  const std::size_t n = std::min(name.size(), sizeof addr->sun_path);
  std::memcpy(addr->sun_path, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + n);
}

std::string errnoText(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::string stepUsageSocketName(const std::string& spool_dir, const std::string& node,
                                std::uint64_t job_id, std::int64_t step_id, RunNumber run) {
  std::string name(1, '\0');
  name += "drover-stepd-usage/" + sha256Hex(spool_dir).substr(0, 16) + "/" + node + "/" +
          std::to_string(job_id) + "." + std::to_string(step_id);
  if (run) name += "." + std::to_string(*run);
  return name;
}

Result<int> listenForUsage(const std::string& name) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return makeError(errnoText("usage socket"));
  sockaddr_un addr;
  const socklen_t len = abstractAddress(name, &addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 8) != 0) {
    const std::string why = errnoText("usage socket bind");
    ::close(fd);
    return makeError(why);
  }
  return fd;
}

int acceptUsagePeer(int listen_fd) {
  const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return -1;
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
      (peer.uid != 0 && peer.uid != ::geteuid())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void sendUsageReply(int fd, const std::string& bytes) {
  // One send into an empty socket buffer (a few hundred KiB) takes all of a step's figures;
  // MSG_DONTWAIT keeps a peer that does not read from stalling the supervisor.
  (void)!::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::close(fd);
}

Result<std::string> askStepUsage(const std::string& name, pid_t supervisor_pid, int timeout_ms) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return makeError(errnoText("usage socket"));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  sockaddr_un addr;
  const socklen_t len = abstractAddress(name, &addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    return makeError(errnoText("the step's supervisor does not answer on its usage socket"));
  }
  ucred peer{};
  socklen_t peer_len = sizeof peer;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) != 0 ||
      peer.pid != supervisor_pid) {
    return makeError("the step's usage socket is held by pid " + std::to_string(peer.pid) +
                     ", not its supervisor " + std::to_string(supervisor_pid));
  }
  std::string reply;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[16384];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return makeError("the step's supervisor did not answer in time");
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return makeError(errnoText("reading the step's usage"));
    // A supervisor's answer always holds its tasks: nothing at all is a refusal (we are not
    // root or its user) or a supervisor that ended meanwhile, not an empty step.
    if (n == 0 && reply.empty()) return makeError("the step's supervisor closed without an answer");
    if (n == 0) return reply;
    reply.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace drover
