// droverd's shared port with real sockets: frames reach the frame handler, HTTP/2 reaches the
// gRPC server, and a peer that says nothing is closed.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <thread>

#include "agent/shared_port.h"
#include "drover/v1/agent.grpc.pb.h"
#include "wire/frame_codec.h"

namespace drover::agent {
namespace {

using namespace std::chrono_literals;

class SharedPortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.RegisterService(&unimplemented_);   // every method answers UNIMPLEMENTED
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_);
    port_ = std::make_unique<SharedPort>(
        io_, "127.0.0.1", 0, server_.get(),
        [](v1::FrameRequest request, wire::Responder respond) {
          respond(wire::encodeReplyFrame(0, "frame " + request.method(), nullptr));
        },
        200ms);
    thread_ = std::thread([this] { io_.run(); });
  }

  void TearDown() override {
    port_->stop();
    work_.reset();
    io_.stop();
    thread_.join();
    port_.reset();
    server_->Shutdown(std::chrono::system_clock::now());
  }

  int connectToPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_->port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    return fd;
  }

  // What the peer sends next, or "" once it closed; nullopt after `wait` without either.
  static std::optional<std::string> receive(int fd, std::chrono::milliseconds wait) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) != 1) return std::nullopt;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  }

  v1::Agent::Service unimplemented_;
  std::unique_ptr<grpc::Server> server_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  std::unique_ptr<SharedPort> port_;
  std::thread thread_;
};

TEST_F(SharedPortTest, AFrameReachesTheFrameHandler) {
  const int fd = connectToPort();
  v1::FrameRequest request;
  request.set_method("/drover.v1.Agent/LaunchStep");
  const std::string body = request.SerializeAsString();
  const std::string out = wire::encodeHeader(static_cast<std::uint32_t>(body.size())) + body;
  ASSERT_EQ(::send(fd, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
  auto got = receive(fd, 5s);
  ASSERT_TRUE(got.has_value() && got->size() > wire::kHeaderBytes);
  v1::FrameReply reply;
  ASSERT_TRUE(reply.ParseFromString(got->substr(wire::kHeaderBytes)));
  EXPECT_EQ(reply.message(), "frame /drover.v1.Agent/LaunchStep");
  ::close(fd);
}

TEST_F(SharedPortTest, GrpcOnTheSamePortReachesTheGrpcServer) {
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_->port()),
                                     grpc::InsecureChannelCredentials());
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::AgentPingReply reply;
  const grpc::Status st = v1::Agent::NewStub(channel)->Ping(&ctx, v1::AgentPingRequest{}, &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED) << st.error_message();
}

TEST_F(SharedPortTest, APeerThatSaysNothingIsClosed) {
  const int fd = connectToPort();
  auto got = receive(fd, 5s);
  ASSERT_TRUE(got.has_value()) << "still open after 5 s (the wait is 200 ms)";
  EXPECT_EQ(*got, "");
  ::close(fd);
}

}  // namespace
}  // namespace drover::agent
