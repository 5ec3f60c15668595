#include "agent/shared_port.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <chrono>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>

namespace drover::agent {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// The first byte of HTTP/2's client preface.
constexpr char kHttp2PrefaceStart = 'P';

// Hands an accepted connection to gRPC, which owns it from then on.
void handToGrpc(tcp::socket socket, grpc::Server* server) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  const int fd = ::fcntl(socket.native_handle(), F_DUPFD_CLOEXEC, 0);
  socket.close(ignored);
  if (fd < 0) return;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  grpc::AddInsecureChannelFromFd(server, fd);
}

// Waits for the connection's first byte without taking it, then gives the connection to the
// transport it belongs to. A peer that closes first, or says nothing in time, is dropped.
void sortConnection(tcp::socket accepted, grpc::Server* server, const wire::FrameHandler& frames,
                    std::chrono::milliseconds first_byte_wait) {
  auto socket = std::make_shared<tcp::socket>(std::move(accepted));
  auto first = std::make_shared<char>(0);
  auto deadline = std::make_shared<asio::steady_timer>(socket->get_executor(), first_byte_wait);
  deadline->async_wait([socket](boost::system::error_code ec) {
    if (ec) return;   // cancelled: the first byte came
    boost::system::error_code ignored;
    socket->close(ignored);
  });
  socket->async_receive(
      asio::buffer(first.get(), 1), tcp::socket::message_peek,
      [socket, first, deadline, server, frames](boost::system::error_code ec, std::size_t n) {
        deadline->cancel();
        if (ec || n == 0 || !socket->is_open()) return;
        if (*first == kHttp2PrefaceStart) {
          handToGrpc(std::move(*socket), server);
        } else {
          wire::serveConnection(std::move(*socket), frames);
        }
      });
}

}  // namespace

SharedPort::SharedPort(asio::io_context& io, const std::string& host, std::uint16_t port,
                       grpc::Server* grpc_server, wire::FrameHandler frames,
                       std::chrono::milliseconds first_byte_wait)
    : listener_(io, host, port,
                [grpc_server, frames = std::move(frames), first_byte_wait](tcp::socket socket) {
                  sortConnection(std::move(socket), grpc_server, frames, first_byte_wait);
                }) {}

}  // namespace drover::agent
