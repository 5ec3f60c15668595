#include "wire/frame_server.h"

#include <array>
#include <boost/asio.hpp>
#include <chrono>

#include "wire/frame_codec.h"
#include "wire/status_codes.h"

namespace drover::wire {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, FrameHandler handler, std::chrono::milliseconds idle_close)
      : socket_(std::move(socket)),
        idle_timer_(socket_.get_executor()),
        handler_(std::move(handler)),
        idle_close_(idle_close) {}

  void start() { readHeader(); }

 private:
  // The whole request must arrive within idle_close of the last reply (or of the connect);
  // the time a handler takes does not count.
  void readHeader() {
    auto self = shared_from_this();
    idle_timer_.expires_after(idle_close_);
    idle_timer_.async_wait([self](boost::system::error_code ec) {
      if (ec) return;   // cancelled: the request came, or the connection ended
      boost::system::error_code ignored;
      self->socket_.close(ignored);
    });
    asio::async_read(socket_, asio::buffer(header_), [self](boost::system::error_code ec, std::size_t) {
      if (ec) {  // peer closed or failed: nothing to answer
        self->idle_timer_.cancel();
        return;
      }
      const std::uint32_t length = decodeHeader(self->header_.data());
      if (length > kMaxFrameBytes) {
        self->idle_timer_.cancel();
        return;
      }
      self->body_.resize(length);
      self->readBody();
    });
  }

  void readBody() {
    auto self = shared_from_this();
    asio::async_read(socket_, asio::buffer(body_), [self](boost::system::error_code ec, std::size_t) {
      self->idle_timer_.cancel();
      if (ec) return;
      drover::v1::FrameRequest request;
      if (!request.ParseFromString(self->body_)) {
        self->respond(encodeReplyFrame(status::kInvalidArgument, "malformed request frame", nullptr));
        return;
      }
      self->handler_(std::move(request), [self](std::string frame) { self->respond(std::move(frame)); });
    });
  }

  void respond(std::string frame) {
    out_ = std::move(frame);
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(out_), [self](boost::system::error_code ec, std::size_t) {
      if (!ec) self->readHeader();
    });
  }

  tcp::socket socket_;
  asio::steady_timer idle_timer_;
  FrameHandler handler_;
  const std::chrono::milliseconds idle_close_;
  std::array<unsigned char, kHeaderBytes> header_{};
  std::string body_;
  std::string out_;
};

}  // namespace

void serveConnection(tcp::socket socket, FrameHandler handler,
                     std::chrono::milliseconds idle_close) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::make_shared<Connection>(std::move(socket), std::move(handler), idle_close)->start();
}

FrameServer::FrameServer(asio::io_context& io, const std::string& host, std::uint16_t port,
                         FrameHandler handler, std::chrono::milliseconds idle_close)
    : listener_(io, host, port, [handler = std::move(handler), idle_close](tcp::socket socket) {
        serveConnection(std::move(socket), handler, idle_close);
      }) {}

}  // namespace drover::wire
