#pragma once
// droverd's one port, shared by its two transports, so a node still has one port to configure
// and open (as slurmd's): the controller's gRPC channel (sstat's usage, sbcast's blocks, API
// clients) and the frame transport (src/wire) that carries the job path, LaunchStep and
// SignalStep, straight to the agent's state thread without gRPC's thread hops. A connection's
// first byte tells them apart: gRPC opens with HTTP/2's client preface "PRI * HTTP/2.0", a
// frame with its 4-byte big-endian length, whose first byte is at most 0x04 (kMaxFrameBytes
// is 64 MiB), never 'P'. gRPC's connections are handed to its server as accepted sockets.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "wire/frame_server.h"
#include "wire/tcp_listener.h"

namespace grpc {
class Server;
}

namespace drover::agent {

class SharedPort {
 public:
  // A connection that says nothing for this long is closed: an idle peer must not hold a
  // descriptor of the agent's for ever (both kinds of client send at once after connecting).
  static constexpr std::chrono::milliseconds kFirstByteWait{30000};

  // Binds host:port (0 = any free port) and accepts on `io`. Throws on a bind failure.
  // `grpc_server` is started and listens on no port of its own; it must outlive this.
  SharedPort(boost::asio::io_context& io, const std::string& host, std::uint16_t port,
             grpc::Server* grpc_server, wire::FrameHandler frames,
             std::chrono::milliseconds first_byte_wait = kFirstByteWait);

  std::uint16_t port() const { return listener_.port(); }
  void stop() { listener_.stop(); }   // no more connections (those open go on)

 private:
  wire::TcpListener listener_;
};

}  // namespace drover::agent
