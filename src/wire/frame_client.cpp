#include "wire/frame_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

#include "auth/munge_credential.h"
#include "auth/request_binding.h"
#include "drover/v1/frame.pb.h"
#include "wire/frame_codec.h"
#include "wire/status_codes.h"

namespace drover::wire {
namespace {

using status::kDeadlineExceeded;
using status::kInternal;
using status::kUnauthenticated;
using status::kUnavailable;

using SteadyClock = std::chrono::steady_clock;

class Socket {
 public:
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  int fd_ = -1;
};

int remainingMs(SteadyClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

bool waitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    pollfd pfd{fd, events, 0};
    int ready = poll(&pfd, 1, remainingMs(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

bool fail(CallError* error, int code, std::string message) {
  error->code = code;
  error->message = std::move(message);
  return false;
}

bool connectTo(Socket& sock, const ClientOptions& opts, SteadyClock::time_point deadline,
               CallError* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(opts.port);
  if (getaddrinfo(opts.host.c_str(), port.c_str(), &hints, &found) != 0 || !found)
    return fail(error, kUnavailable, "cannot resolve " + opts.host);
  int rc = -1;
  for (addrinfo* ai = found; ai && rc != 0; ai = ai->ai_next) {
    if (sock.fd_ >= 0) close(sock.fd_);
    sock.fd_ = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (sock.fd_ < 0) continue;
    rc = connect(sock.fd_, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (!waitFor(sock.fd_, POLLOUT, deadline)) {
        freeaddrinfo(found);
        return fail(error, kDeadlineExceeded, "connect timed out");
      }
      int so_error = 0;
      socklen_t len = sizeof so_error;
      getsockopt(sock.fd_, SOL_SOCKET, SO_ERROR, &so_error, &len);
      rc = so_error == 0 ? 0 : -1;
      errno = so_error;
    }
  }
  freeaddrinfo(found);
  if (rc != 0) return fail(error, kUnavailable, strerror(errno));
  int one = 1;
  setsockopt(sock.fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return true;
}

bool writeAll(int fd, const std::string& data, SteadyClock::time_point deadline, CallError* error) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!waitFor(fd, POLLOUT, deadline)) return fail(error, kDeadlineExceeded, "send timed out");
    } else {
      return fail(error, kUnavailable, std::string("send: ") + strerror(errno));
    }
  }
  return true;
}

bool readExact(int fd, char* out, std::size_t size, SteadyClock::time_point deadline,
               CallError* error) {
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = recv(fd, out + got, size - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n == 0) {
      return fail(error, kUnavailable, "the server closed the connection");
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!waitFor(fd, POLLIN, deadline))
        return fail(error, kDeadlineExceeded, "no reply within the message timeout");
    } else {
      return fail(error, kUnavailable, std::string("recv: ") + strerror(errno));
    }
  }
  return true;
}

}  // namespace

bool call(const ClientOptions& opts, const std::string& method,
          const google::protobuf::MessageLite& request, google::protobuf::MessageLite* reply,
          CallError* error) {
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(opts.timeout_ms);
  error->sent = false;
  auto credential = auth::encodeCredential(auth::bindingPayload(method, request), opts.munge_socket);
  if (!credential) return fail(error, kUnauthenticated, credential.error());

  drover::v1::FrameRequest frame;
  frame.set_method(method);
  frame.set_credential(*credential);
  // The server checks the credential against the request it parses, re-serialized
  // deterministically, so the payload's own byte order does not matter.
  request.SerializeToString(frame.mutable_payload());
  std::string body = frame.SerializeAsString();

  Socket sock;
  if (!connectTo(sock, opts, deadline, error)) return false;
  if (!writeAll(sock.fd_, encodeHeader(static_cast<std::uint32_t>(body.size())) + body, deadline,
                error))
    return false;
  error->sent = true;
  unsigned char header[kHeaderBytes];
  if (!readExact(sock.fd_, reinterpret_cast<char*>(header), kHeaderBytes, deadline, error))
    return false;
  const std::uint32_t length = decodeHeader(header);
  if (length > kMaxFrameBytes) return fail(error, kInternal, "reply frame too large");
  // Not zero-filled first: every byte is read into it.
  const auto reply_body = std::make_unique_for_overwrite<char[]>(length);
  if (!readExact(sock.fd_, reply_body.get(), length, deadline, error)) return false;

  FrameReplyView frame_reply;
  if (!parseFrameReply({reply_body.get(), length}, &frame_reply))
    return fail(error, kInternal, "malformed reply");
  if (frame_reply.code != 0) return fail(error, frame_reply.code, frame_reply.message);
  if (!reply->ParseFromArray(frame_reply.payload.data(), static_cast<int>(frame_reply.payload.size())))
    return fail(error, kInternal, "malformed reply payload");
  return true;
}

namespace {
constexpr std::string_view kAccessDenied = "Access/permission denied";
}  // namespace

std::string describe(const CallError& error, const ClientOptions& opts) {
  const std::string where = opts.host + ":" + std::to_string(opts.port);
  switch (error.code) {
    case kUnavailable:
    case kDeadlineExceeded:
      return "Unable to contact drover controller at " + where + " (connect failure): " +
             error.message;
    case status::kPermissionDenied:
    case kUnauthenticated:
      // A refusal the controller already words so (reservations) is not said twice.
      if (error.message.rfind(kAccessDenied, 0) == 0) return error.message;
      return std::string(kAccessDenied) + ": " + error.message;
    default:
      return error.message;
  }
}

}  // namespace drover::wire
