// The CLI's client against a real frame-transport server on loopback and a real munged:
// authenticated calls, how each failure is classified and worded, and that a dead or stalled
// controller is an error within the message timeout, never a hang.
#include "cli/controller_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <chrono>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <thread>

#include "munged_process.h"
#include "wire/frame_server.h"
#include "wire/method_table.h"

namespace drover::cli {
namespace {

// A controller stand-in that authenticates like droverctld (wire::MethodTable) and answers from
// fixed data, so each reply and failure kind the CLIs handle can be produced on demand.
class FixedController {
 public:
  explicit FixedController(const std::string& munge_socket) : table_(munge_socket) {
    using wire::Outcome;
    table_.add<v1::PingRequest, v1::PingReply>(
        "/drover.v1.Controller/Ping",
        [](const rpc::Caller& caller, const v1::PingRequest&, wire::Reply_<v1::PingReply> done) {
          v1::PingReply rep;
          rep.set_controller_host("ctl-host");
          rep.set_caller_uid(caller.uid);
          done(Outcome::ok(), rep);
        });
    table_.add<v1::GetNodesRequest, v1::GetNodesReply>(
        "/drover.v1.Controller/GetNodes",
        [](const rpc::Caller&, const v1::GetNodesRequest& req, wire::Reply_<v1::GetNodesReply> done) {
          v1::GetNodesReply rep;
          if (req.names_size() > 0) return done(Outcome{5, "Node x not found"}, rep);
          rep.add_nodes()->set_name("node01");
          done(Outcome::ok(), rep);
        });
    table_.add<v1::UpdateNodeRequest, v1::UpdateNodeReply>(
        "/drover.v1.Controller/UpdateNode",
        [](const rpc::Caller&, const v1::UpdateNodeRequest&, wire::Reply_<v1::UpdateNodeReply> done) {
          done(Outcome{7, "UpdateNode is for root and operators only"}, v1::UpdateNodeReply{});
        });
    table_.add<v1::GetJobsRequest, v1::GetJobsReply>(
        "/drover.v1.Controller/GetJobs",
        [](const rpc::Caller&, const v1::GetJobsRequest&, wire::Reply_<v1::GetJobsReply> done) {
          v1::GetJobsReply rep;
          for (int id = 1; id <= 2; ++id) {
            auto* job = rep.add_jobs();
            job->set_job_id(id);
            job->set_name("a name longer than the short-string buffer");
          }
          done(Outcome::ok(), rep);
        });
    server_ = std::make_unique<wire::FrameServer>(
        io_, "127.0.0.1", 0, [this](v1::FrameRequest f, wire::Responder r) {
          table_.dispatch(std::move(f), std::move(r));
        });
    work_.emplace(io_.get_executor());
    thread_ = std::thread([this] { io_.run(); });
  }
  ~FixedController() {
    boost::asio::post(io_, [this] { server_->stop(); });
    work_.reset();
    io_.stop();
    thread_.join();
  }
  int port() const { return server_->port(); }

 private:
  boost::asio::io_context io_;
  wire::MethodTable table_;
  std::unique_ptr<wire::FrameServer> server_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::thread thread_;
};

class ControllerClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto munged = testing::MungedProcess::start();
    if (!munged.ok()) GTEST_SKIP() << "no munged: " << munged.error();
    munged_ = std::move(*munged);
  }

  ControllerClient clientFor(int port, int timeout_ms) {
    ControllerAddress a;
    a.host = "127.0.0.1";
    a.target = "127.0.0.1:" + std::to_string(port);
    a.munge_socket = munged_->socket();
    a.timeout_ms = timeout_ms;
    return ControllerClient(a);
  }

  std::unique_ptr<testing::MungedProcess> munged_;
};

// A listening socket that never accepts: the TCP handshake completes (backlog), nothing answers.
struct StalledListener {
  StalledListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd, 16);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~StalledListener() { ::close(fd); }
  int fd = -1;
  int port = 0;
};

TEST_F(ControllerClientTest, AuthenticatedCallsAndFailureKinds) {
  FixedController service(munged_->socket());
  const int port = service.port();
  ASSERT_NE(port, 0);

  auto client = clientFor(port, 5000);
  auto ping = client.ping();
  ASSERT_TRUE(ping.ok()) << ping.error();
  EXPECT_EQ(ping->controller_host(), "ctl-host");
  EXPECT_EQ(ping->caller_uid(), static_cast<std::uint32_t>(::getuid()));
  EXPECT_EQ(client.lastFailure(), FailureKind::kNone);

  auto all = client.getNodes(v1::GetNodesRequest{});
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ(all->nodes_size(), 1);

  v1::GetNodesRequest one;
  one.add_names("x");
  auto missing = client.getNodes(one);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(client.lastFailure(), FailureKind::kNotFound);
  EXPECT_EQ(missing.error(), "Node x not found");

  auto denied = client.updateNode(v1::UpdateNodeRequest{});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(client.lastFailure(), FailureKind::kDenied);
  EXPECT_NE(denied.error().find("root and operators only"), std::string::npos) << denied.error();

  auto unimplemented = client.reconfigure(v1::ReconfigureRequest{});
  ASSERT_FALSE(unimplemented.ok());
  EXPECT_EQ(client.lastFailure(), FailureKind::kOther);
}

// squeue parses thousands of rows into one arena: the reply must be an arena message, so its rows
// and strings live there too (a message merely placed in arena memory allocates each on the heap).
TEST_F(ControllerClientTest, JobsParsedIntoAnArenaLiveOnIt) {
  FixedController service(munged_->socket());
  auto client = clientFor(service.port(), 5000);
  google::protobuf::Arena arena;
  auto reply = client.getJobs(v1::GetJobsRequest{}, &arena);
  ASSERT_TRUE(reply.ok()) << reply.error();
  ASSERT_EQ((*reply)->jobs_size(), 2);
  EXPECT_EQ((*reply)->GetArena(), &arena);
  EXPECT_EQ((*reply)->jobs(1).GetArena(), &arena);
  EXPECT_EQ((*reply)->jobs(1).name(), "a name longer than the short-string buffer");
}

TEST_F(ControllerClientTest, ControllerDownIsAClearErrorNotAHang) {
  int port = 0;
  {
    StalledListener probe;  // take a free port, then release it: nothing listens there
    port = probe.port;
  }
  auto client = clientFor(port, 3000);
  const auto start = std::chrono::steady_clock::now();
  auto reply = client.getNodes(v1::GetNodesRequest{});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(client.lastFailure(), FailureKind::kUnreachable);
  EXPECT_NE(reply.error().find("Unable to contact"), std::string::npos) << reply.error();
  EXPECT_NE(reply.error().find(std::to_string(port)), std::string::npos) << reply.error();
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000 + 1000));
}

TEST_F(ControllerClientTest, StalledControllerGivesUpAtTheMessageTimeout) {
  StalledListener stalled;
  auto client = clientFor(stalled.port, 300);
  const auto start = std::chrono::steady_clock::now();
  auto reply = client.ping();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(client.lastFailure(), FailureKind::kUnreachable);
  EXPECT_LT(elapsed, std::chrono::milliseconds(300 + 2000));
}

TEST(ControllerClientNoMungeTest, MissingMungeSocketIsNamedInTheError) {
  ControllerAddress a;
  a.host = "127.0.0.1";
  a.target = "127.0.0.1:1";
  a.munge_socket = "/nonexistent/munge.socket";
  a.timeout_ms = 1000;
  ControllerClient client(a);
  auto reply = client.ping();
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.error().find("/nonexistent/munge.socket"), std::string::npos) << reply.error();
}

}  // namespace
}  // namespace drover::cli
