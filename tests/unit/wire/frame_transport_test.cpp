// The frame transport end to end: a real munged, a real TCP server on 127.0.0.1 port 0, and
// the CLI client.
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio.hpp>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "auth/munge_credential.h"
#include "auth/request_binding.h"
#include "drover/v1/controller.pb.h"
#include "munged_process.h"
#include "wire/frame_client.h"
#include "wire/frame_codec.h"
#include "wire/frame_server.h"
#include "wire/method_table.h"

namespace drover::wire {
namespace {

constexpr char kPing[] = "/drover.v1.Controller/Ping";

class FrameTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto munged = testing::MungedProcess::start();
    ASSERT_TRUE(munged) << munged.error();
    munged_ = std::move(*munged);
    table_ = std::make_unique<MethodTable>(munged_->socket());
    table_->add<drover::v1::PingRequest, drover::v1::PingReply>(
        kPing, [](const rpc::Caller& caller, const drover::v1::PingRequest&,
                  Reply_<drover::v1::PingReply> done) {
          drover::v1::PingReply reply;
          reply.set_cluster_name("test");
          reply.set_caller_uid(caller.uid);
          done(Outcome::ok(), reply);
        });
    server_ = std::make_unique<FrameServer>(io_, "127.0.0.1", 0,
                                            [this](drover::v1::FrameRequest f, Responder r) {
                                              table_->dispatch(std::move(f), std::move(r));
                                            });
    work_.emplace(io_.get_executor());
    thread_ = std::thread([this] { io_.run(); });
    opts_.port = server_->port();
    opts_.munge_socket = munged_->socket();
    opts_.timeout_ms = 2000;
  }

  void TearDown() override {
    if (!thread_.joinable()) return;
    boost::asio::post(io_, [this] { server_->stop(); });
    work_.reset();
    io_.stop();
    thread_.join();
  }

  // Sends a hand-made frame, for the cases the client never produces.
  drover::v1::FrameReply rawExchange(const drover::v1::FrameRequest& frame) {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket sock(io);
    sock.connect({boost::asio::ip::make_address("127.0.0.1"), opts_.port});
    std::string body = frame.SerializeAsString();
    boost::asio::write(sock, boost::asio::buffer(encodeHeader(body.size()) + body));
    unsigned char header[kHeaderBytes];
    boost::asio::read(sock, boost::asio::buffer(header));
    std::string reply_body(decodeHeader(header), '\0');
    boost::asio::read(sock, boost::asio::buffer(reply_body));
    drover::v1::FrameReply reply;
    reply.ParseFromString(reply_body);
    return reply;
  }

  std::unique_ptr<testing::MungedProcess> munged_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::unique_ptr<MethodTable> table_;
  std::unique_ptr<FrameServer> server_;
  std::thread thread_;
  ClientOptions opts_;
};

TEST_F(FrameTransportTest, AuthenticatedCallReportsTheCaller) {
  drover::v1::PingReply reply;
  CallError error;
  ASSERT_TRUE(call(opts_, kPing, drover::v1::PingRequest(), &reply, &error)) << error.message;
  EXPECT_EQ(reply.cluster_name(), "test");
  EXPECT_EQ(reply.caller_uid(), getuid());
}

TEST_F(FrameTransportTest, MissingCredentialIsDenied) {
  drover::v1::FrameRequest frame;
  frame.set_method(kPing);
  auto reply = rawExchange(frame);
  EXPECT_EQ(reply.code(), 7);
  EXPECT_NE(reply.message().find("authentication failed"), std::string::npos);
}

TEST_F(FrameTransportTest, ReplayedCredentialIsDenied) {
  drover::v1::PingRequest ping;
  auto cred = auth::encodeCredential(auth::bindingPayload(kPing, ping), munged_->socket());
  ASSERT_TRUE(cred);
  drover::v1::FrameRequest frame;
  frame.set_method(kPing);
  frame.set_credential(*cred);
  EXPECT_EQ(rawExchange(frame).code(), 0);
  auto again = rawExchange(frame);
  EXPECT_EQ(again.code(), 7);
  EXPECT_NE(again.message().find("replayed"), std::string::npos) << again.message();
}

TEST_F(FrameTransportTest, CredentialFromAnotherKeyIsDenied) {
  auto other = testing::MungedProcess::start();
  ASSERT_TRUE(other) << other.error();
  ClientOptions opts = opts_;
  opts.munge_socket = (*other)->socket();
  drover::v1::PingReply reply;
  CallError error;
  EXPECT_FALSE(call(opts, kPing, drover::v1::PingRequest(), &reply, &error));
  EXPECT_EQ(error.code, 7);
}

TEST_F(FrameTransportTest, UnknownMethodIsUnimplemented) {
  drover::v1::PingReply reply;
  CallError error;
  EXPECT_FALSE(call(opts_, "/drover.v1.Controller/Nope", drover::v1::PingRequest(), &reply, &error));
  EXPECT_EQ(error.code, 12);
}

TEST_F(FrameTransportTest, DeadControllerFailsFastWithAClearMessage) {
  ClientOptions opts = opts_;
  {
    // A port that was just free and is closed again: nothing listens there.
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    opts.port = probe.local_endpoint().port();
  }
  const auto begin = std::chrono::steady_clock::now();
  drover::v1::PingReply reply;
  CallError error;
  EXPECT_FALSE(call(opts, kPing, drover::v1::PingRequest(), &reply, &error));
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::milliseconds(1000));
  EXPECT_EQ(error.code, 14);
  EXPECT_NE(describe(error, opts).find("Unable to contact drover controller at 127.0.0.1:"),
            std::string::npos);
}

TEST(DescribeCallError, SaysAccessDeniedOnce) {
  ClientOptions opts;
  opts.host = "127.0.0.1";
  opts.port = 7817;
  CallError denied;
  denied.code = 7;
  denied.message = "not your job";
  EXPECT_EQ(describe(denied, opts), "Access/permission denied: not your job");
  // The controller's reservation refusals already start so.
  denied.message = "Access/permission denied: reservations are changed by root";
  EXPECT_EQ(describe(denied, opts), denied.message);
  CallError invalid;
  invalid.code = 3;
  invalid.message = "Invalid job id specified";
  EXPECT_EQ(describe(invalid, opts), invalid.message);
}

TEST_F(FrameTransportTest, ManySequentialCalls) {
  for (int i = 0; i < 200; ++i) {
    drover::v1::PingReply reply;
    CallError error;
    ASSERT_TRUE(call(opts_, kPing, drover::v1::PingRequest(), &reply, &error)) << error.message;
  }
}

}  // namespace
}  // namespace drover::wire

namespace drover::wire {
namespace {

// True when the server closes `sock` within 5 s (a read sees the end); false if it stays open.
bool closedByServer(boost::asio::ip::tcp::socket& sock) {
  timeval five{5, 0};
  ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &five, sizeof five);
  char byte = 0;
  boost::system::error_code ec;
  sock.read_some(boost::asio::buffer(&byte, 1), ec);
  return ec == boost::asio::error::eof;
}

// An idle or stalled peer is closed after the idle wait (200 ms here, 30 s in the daemons):
// before its first request, halfway through one, and after an answered one.
TEST_F(FrameTransportTest, IdlePeersAreClosed) {
  std::unique_ptr<FrameServer> quick;
  std::promise<std::uint16_t> bound;
  boost::asio::post(io_, [&] {
    quick = std::make_unique<FrameServer>(
        io_, "127.0.0.1", 0,
        [this](drover::v1::FrameRequest f, Responder r) { table_->dispatch(std::move(f), std::move(r)); },
        std::chrono::milliseconds(200));
    bound.set_value(quick->port());
  });
  const std::uint16_t port = bound.get_future().get();
  boost::asio::io_context io;
  const boost::asio::ip::tcp::endpoint at(boost::asio::ip::make_address("127.0.0.1"), port);

  boost::asio::ip::tcp::socket silent(io);
  silent.connect(at);
  EXPECT_TRUE(closedByServer(silent));

  boost::asio::ip::tcp::socket stalled(io);
  stalled.connect(at);
  boost::asio::write(stalled, boost::asio::buffer(encodeHeader(100)));   // no body follows
  EXPECT_TRUE(closedByServer(stalled));

  // One exchange (refused: no credential), then nothing more from the peer.
  boost::asio::ip::tcp::socket answered(io);
  answered.connect(at);
  drover::v1::FrameRequest frame;
  frame.set_method(kPing);
  const std::string body = frame.SerializeAsString();
  boost::asio::write(answered, boost::asio::buffer(encodeHeader(body.size()) + body));
  unsigned char header[kHeaderBytes];
  boost::asio::read(answered, boost::asio::buffer(header));
  std::string reply(decodeHeader(header), '\0');
  boost::asio::read(answered, boost::asio::buffer(reply));
  EXPECT_TRUE(closedByServer(answered));

  std::promise<void> stopped;
  boost::asio::post(io_, [&] {
    quick.reset();
    stopped.set_value();
  });
  stopped.get_future().wait();
}

}  // namespace
}  // namespace drover::wire
