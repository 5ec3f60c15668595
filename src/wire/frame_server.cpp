#include "wire/frame_server.h"

#include <array>
#include <boost/asio.hpp>

#include "wire/frame_codec.h"

namespace drover::wire {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, FrameHandler handler)
      : socket_(std::move(socket)), handler_(std::move(handler)) {}

  void start() { readHeader(); }

 private:
  void readHeader() {
    auto self = shared_from_this();
    asio::async_read(socket_, asio::buffer(header_), [self](boost::system::error_code ec, std::size_t) {
      if (ec) return;  // peer closed or failed: nothing to answer
      const std::uint32_t length = decodeHeader(self->header_.data());
      if (length > kMaxFrameBytes) return;
      self->body_.resize(length);
      self->readBody();
    });
  }

  void readBody() {
    auto self = shared_from_this();
    asio::async_read(socket_, asio::buffer(body_), [self](boost::system::error_code ec, std::size_t) {
      if (ec) return;
      drover::v1::FrameRequest request;
      if (!request.ParseFromString(self->body_)) {
        drover::v1::FrameReply reply;
        reply.set_code(3);  // INVALID_ARGUMENT
        reply.set_message("malformed request frame");
        self->respond(std::move(reply));
        return;
      }
      self->handler_(std::move(request), [self](drover::v1::FrameReply reply) {
        self->respond(std::move(reply));
      });
    });
  }

  void respond(drover::v1::FrameReply reply) {
    std::string body = reply.SerializeAsString();
    out_ = encodeHeader(static_cast<std::uint32_t>(body.size())) + body;
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(out_), [self](boost::system::error_code ec, std::size_t) {
      if (!ec) self->readHeader();
    });
  }

  tcp::socket socket_;
  FrameHandler handler_;
  std::array<unsigned char, kHeaderBytes> header_{};
  std::string body_;
  std::string out_;
};

}  // namespace

void serveConnection(tcp::socket socket, FrameHandler handler) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::make_shared<Connection>(std::move(socket), std::move(handler))->start();
}

class FrameServer::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(asio::io_context& io, const std::string& host, std::uint16_t port, FrameHandler handler)
      : acceptor_(io), handler_(std::move(handler)) {
    tcp::endpoint endpoint(asio::ip::make_address(host), port);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  void accept() {
    auto self = shared_from_this();
    acceptor_.async_accept([self](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !self->acceptor_.is_open()) return;
      if (!ec) serveConnection(std::move(socket), self->handler_);
      self->accept();
    });
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  void stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  }

 private:
  tcp::acceptor acceptor_;
  FrameHandler handler_;
};

FrameServer::FrameServer(asio::io_context& io, const std::string& host, std::uint16_t port,
                         FrameHandler handler)
    : impl_(std::make_shared<Impl>(io, host, port, std::move(handler))) {
  impl_->accept();
}

FrameServer::~FrameServer() { impl_->stop(); }

std::uint16_t FrameServer::port() const { return impl_->port(); }

void FrameServer::stop() { impl_->stop(); }

}  // namespace drover::wire
