#include "agent/shared_port.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio.hpp>
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

}  // namespace

class SharedPort::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(asio::io_context& io, const std::string& host, std::uint16_t port, grpc::Server* server,
       wire::FrameHandler frames)
      : acceptor_(io), server_(server), frames_(std::move(frames)) {
    // numericHost's IPv6 form is bracketed, as gRPC's targets.
    const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
    tcp::endpoint endpoint(asio::ip::make_address(bracketed ? host.substr(1, host.size() - 2) : host),
                           port);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  void accept() {
    auto self = shared_from_this();
    acceptor_.async_accept([self](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !self->acceptor_.is_open()) return;
      if (!ec) self->sort(std::make_shared<tcp::socket>(std::move(socket)));
      self->accept();
    });
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  }

 private:
  // Waits for the connection's first byte without taking it, then gives the connection to the
  // transport it belongs to. A peer that closes first is dropped.
  void sort(std::shared_ptr<tcp::socket> socket) {
    auto self = shared_from_this();
    auto first = std::make_shared<char>(0);
    socket->async_receive(
        asio::buffer(first.get(), 1), tcp::socket::message_peek,
        [self, socket, first](boost::system::error_code ec, std::size_t n) {
          if (ec || n == 0) return;
          if (*first == kHttp2PrefaceStart) {
            handToGrpc(std::move(*socket), self->server_);
          } else {
            wire::serveConnection(std::move(*socket), self->frames_);
          }
        });
  }

  tcp::acceptor acceptor_;
  grpc::Server* server_;
  wire::FrameHandler frames_;
};

SharedPort::SharedPort(asio::io_context& io, const std::string& host, std::uint16_t port,
                       grpc::Server* grpc_server, wire::FrameHandler frames)
    : impl_(std::make_shared<Impl>(io, host, port, grpc_server, std::move(frames))) {
  impl_->accept();
}

SharedPort::~SharedPort() { impl_->stop(); }

std::uint16_t SharedPort::port() const { return impl_->port(); }

void SharedPort::stop() { impl_->stop(); }

}  // namespace drover::agent
