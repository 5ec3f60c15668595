#pragma once
// Server side of the frame transport. Runs on the caller's io_context (the controller's or the
// agent's state thread), so handlers touch state without posting. Each connection carries one
// or more request/reply exchanges in order.
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "drover/v1/frame.pb.h"
#include "wire/tcp_listener.h"

namespace drover::wire {

// Takes the whole reply frame, as encodeReplyFrame (wire/frame_codec.h) makes it.
using Responder = std::function<void(std::string)>;
using FrameHandler = std::function<void(drover::v1::FrameRequest, Responder)>;

// A connection whose next request has not arrived this long after the connect or the last
// reply is closed: an idle or stalled peer holds no descriptor for ever (every client sends its
// request at once; the time a handler takes does not count).
inline constexpr std::chrono::milliseconds kIdleClose{30000};

// Serves the exchanges of one connection accepted elsewhere (droverd's port, which it shares
// with gRPC: agent/shared_port.h) as FrameServer serves each connection it accepts.
void serveConnection(boost::asio::ip::tcp::socket socket, FrameHandler handler,
                     std::chrono::milliseconds idle_close = kIdleClose);

class FrameServer {
 public:
  // Binds host:port (port 0 = any free port) and starts accepting. Throws on a bind failure:
  // a daemon cannot run without its listening socket.
  FrameServer(boost::asio::io_context& io, const std::string& host, std::uint16_t port,
              FrameHandler handler, std::chrono::milliseconds idle_close = kIdleClose);

  std::uint16_t port() const { return listener_.port(); }
  void stop() { listener_.stop(); }

 private:
  TcpListener listener_;
};

}  // namespace drover::wire
