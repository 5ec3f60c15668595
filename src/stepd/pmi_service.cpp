#include "stepd/pmi_service.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace drover::stepd {
namespace {

constexpr std::size_t kReadChunk = 16 * 1024;

}  // namespace

PmiService::PmiService(pmi::NodeServer::Options options, IoForwarder& io)
    : server_(std::move(options)), io_(io) {
  sockets_.resize(server_.options().ranks.size());
}

PmiService::~PmiService() {
  for (auto& s : sockets_) {
    if (s.fd >= 0) ::close(s.fd);
    if (s.task_end >= 0) ::close(s.task_end);
  }
}

Result<int> PmiService::openTask(std::size_t local) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return makeError(std::string("PMI socket pair: ") + std::strerror(errno));
  Socket& s = sockets_.at(local);
  s.fd = pair[0];
  s.task_end = pair[1];
  return s.task_end;
}

void PmiService::closeTaskEnd(std::size_t local) {
  Socket& s = sockets_.at(local);
  if (s.task_end >= 0) ::close(s.task_end);
  s.task_end = -1;
}

std::vector<std::pair<std::string, std::string>> PmiService::taskVariables(std::size_t local,
                                                                           int task_fd) const {
  const pmi::NodeServer::Options& o = server_.options();
  return {{"PMI_FD", std::to_string(task_fd)},
          {"PMI_JOBID", o.jobid},
          {"PMI_RANK", std::to_string(o.ranks.at(local))},
          {"PMI_SIZE", std::to_string(o.size)},
          {"SLURM_MPI_TYPE", "pmi2"}};
}

void PmiService::addPollFds(std::vector<pollfd>& fds) {
  slots_.clear();
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    const Socket& s = sockets_[i];
    if (s.fd < 0) continue;
    fds.push_back(pollfd{s.fd, static_cast<short>(POLLIN | (s.unsent.empty() ? 0 : POLLOUT)), 0});
    slots_.push_back(i);
  }
}

void PmiService::handlePoll(const std::vector<pollfd>& fds, std::size_t first) {
  for (std::size_t k = 0; k < slots_.size() && first + k < fds.size(); ++k) {
    const short revents = fds[first + k].revents;
    if (revents == 0) continue;
    if (revents & POLLOUT) writeTask(slots_[k]);
    if (revents & (POLLIN | POLLHUP | POLLERR)) readTask(slots_[k]);
  }
}

void PmiService::readTask(std::size_t local) {
  Socket& s = sockets_[local];
  char buffer[kReadChunk];
  const ssize_t n = ::recv(s.fd, buffer, sizeof buffer, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    closeTask(local);
    return;
  }
  server_.received(local, std::string_view(buffer, static_cast<std::size_t>(n)));
  if (const std::string& error = server_.protocolError(local); !error.empty()) {
    // The MPI library sees its PMI socket close and fails its call with its own message.
    std::fprintf(stderr, "drover-stepd: PMI of task %u: %s\n", server_.options().ranks[local],
                 error.c_str());
    closeTask(local);
  }
}

void PmiService::writeTask(std::size_t local) {
  Socket& s = sockets_[local];
  while (!s.unsent.empty() && s.fd >= 0) {
    const ssize_t n = ::send(s.fd, s.unsent.data(), s.unsent.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      closeTask(local);
      return;
    }
    s.unsent.erase(0, static_cast<std::size_t>(n));
  }
}

void PmiService::closeTask(std::size_t local) {
  Socket& s = sockets_[local];
  if (s.fd < 0) return;
  ::close(s.fd);
  s.fd = -1;
  s.unsent.clear();
  server_.closed(local);
}

void PmiService::exchange() {
  if (auto mapping = io_.takePmiStart()) server_.start(*mapping);
  for (const auto& done : io_.takePmiFencesDone()) server_.fenceDone(done.sequence, done.pairs);
  if (auto fence = server_.takeFence()) io_.sendPmiFence(*fence);
  for (const auto& abort : server_.takeAborts()) io_.sendPmiAbort(abort);
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    Socket& s = sockets_[i];
    std::string out = server_.takeOutput(i);
    if (s.fd < 0) continue;
    s.unsent += out;
    writeTask(i);
  }
}

}  // namespace drover::stepd
