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

FrameServer::FrameServer(asio::io_context& io, const std::string& host, std::uint16_t port,
                         FrameHandler handler)
    : listener_(io, host, port, [handler = std::move(handler)](tcp::socket socket) {
        serveConnection(std::move(socket), handler);
      }) {}

}  // namespace drover::wire
