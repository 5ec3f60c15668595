#include "wire/tcp_listener.h"

#include <boost/asio.hpp>

namespace drover::wire {
namespace asio = boost::asio;
using asio::ip::tcp;

class TcpListener::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(asio::io_context& io, const std::string& host, std::uint16_t port, Accepted accepted)
      : acceptor_(io), accepted_(std::move(accepted)) {
    const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
    tcp::endpoint endpoint(
        asio::ip::make_address(bracketed ? host.substr(1, host.size() - 2) : host), port);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  void accept() {
    auto self = shared_from_this();
    acceptor_.async_accept([self](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !self->acceptor_.is_open()) return;
      if (!ec) self->accepted_(std::move(socket));
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
  Accepted accepted_;
};

TcpListener::TcpListener(asio::io_context& io, const std::string& host, std::uint16_t port,
                         Accepted accepted)
    : impl_(std::make_shared<Impl>(io, host, port, std::move(accepted))) {
  impl_->accept();
}

TcpListener::~TcpListener() { impl_->stop(); }

std::uint16_t TcpListener::port() const { return impl_->port(); }

void TcpListener::stop() { impl_->stop(); }

}  // namespace drover::wire
