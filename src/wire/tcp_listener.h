#pragma once
// A listening TCP socket on an io_context that gives each accepted connection to a callback,
// on that io_context: the frame server's (wire/frame_server.h) and droverd's shared port's
// (agent/shared_port.h).
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace drover::wire {

class TcpListener {
 public:
  using Accepted = std::function<void(boost::asio::ip::tcp::socket)>;

  // Binds host (an IP address; an IPv6 one bare or in brackets) and port (0 = any free port)
  // and starts accepting. Throws on a bind failure: a daemon cannot run without its socket.
  TcpListener(boost::asio::io_context& io, const std::string& host, std::uint16_t port,
              Accepted accepted);
  ~TcpListener();   // stops
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;

  std::uint16_t port() const;
  void stop();   // no more connections (those accepted go on)

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace drover::wire
