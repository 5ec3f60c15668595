// MUNGE authentication end to end through a real gRPC server on 127.0.0.1 and a real munged.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "auth/munge_credential.h"
#include "auth/request_binding.h"
#include "drover/v1/controller.grpc.pb.h"
#include "munged_process.h"
#include "rpc/client.h"
#include "rpc/method_recorder.h"
#include "rpc/server_auth.h"

namespace drover::rpc {
namespace {

using testing::MungedProcess;

constexpr const char* kPing = "/drover.v1.Controller/Ping";
constexpr const char* kGetNodes = "/drover.v1.Controller/GetNodes";

// Handlers do what every Drover handler does first: authenticate, then act as the caller.
class AuthenticatingController final : public v1::Controller::Service {
 public:
  explicit AuthenticatingController(std::string munge_socket) : munge_socket_(std::move(munge_socket)) {}

  grpc::Status Ping(grpc::ServerContext* ctx, const v1::PingRequest* request, v1::PingReply* reply) override {
    Caller caller;
    if (auto status = authenticate(*ctx, *request, munge_socket_, &caller); !status.ok()) return status;
    reply->set_caller_uid(caller.uid);
    reply->set_caller_gid(caller.gid);
    // Lets the test see whether the method recorder ran.
    auto recorded = ctx->client_metadata().find("X-Drover-Method");
    if (recorded != ctx->client_metadata().end()) {
      reply->set_controller_host(std::string(recorded->second.data(), recorded->second.size()));
    }
    return grpc::Status::OK;
  }

  grpc::Status GetNodes(grpc::ServerContext* ctx, const v1::GetNodesRequest* request,
                        v1::GetNodesReply* reply) override {
    Caller caller;
    if (auto status = authenticate(*ctx, *request, munge_socket_, &caller); !status.ok()) return status;
    reply->set_time(caller.uid);
    return grpc::Status::OK;
  }

 private:
  std::string munge_socket_;
};

int unusedLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);  // nothing listens on it now
  return ntohs(addr.sin_port);
}

// Parameter: whether the server installs methodRecorderFactory() (else the method is derived
// from the request type).
class AuthenticatedRpcTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    auto started = MungedProcess::start();
    ASSERT_TRUE(started.ok()) << started.error();
    munged_ = std::move(*started);
    service_ = std::make_unique<AuthenticatingController>(munged_->socket());

    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    if (GetParam()) {
      std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
      creators.push_back(methodRecorderFactory());
      builder.experimental().SetInterceptorCreators(std::move(creators));
    }
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_ != nullptr);
    ASSERT_GT(port, 0);
    opts_.target = "127.0.0.1:" + std::to_string(port);
    opts_.munge_socket = munged_->socket();
    opts_.timeout_ms = 5000;
    stub_ = v1::Controller::NewStub(makeChannel(opts_.target));
  }

  void TearDown() override {
    if (server_) server_->Shutdown();
    munged_.reset();
  }

  grpc::Status ping(const ClientOptions& opts, v1::PingReply* reply) {
    grpc::ClientContext ctx;
    v1::PingRequest request;
    auto prepared = prepareCall(ctx, kPing, request, opts);
    if (!prepared.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, prepared.error());
    return stub_->Ping(&ctx, request, reply);
  }

  std::unique_ptr<MungedProcess> munged_;
  std::unique_ptr<AuthenticatingController> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Controller::Stub> stub_;
  ClientOptions opts_;
};

void expectDenied(const grpc::Status& status, const std::string& why) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  EXPECT_NE(status.error_message().find("authentication failed: " + why), std::string::npos)
      << status.error_message();
}

TEST_P(AuthenticatedRpcTest, ProperCallReportsCallerIdentity) {
  v1::PingReply reply;
  const grpc::Status status = ping(opts_, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.caller_uid(), ::getuid());
  EXPECT_EQ(reply.caller_gid(), ::getgid());
  EXPECT_EQ(reply.controller_host(), GetParam() ? kPing : "");
}

TEST_P(AuthenticatedRpcTest, CallWithoutCredentialIsDenied) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::PingReply reply;
  const grpc::Status status = stub_->Ping(&ctx, v1::PingRequest(), &reply);
  expectDenied(status, "no MUNGE credential");
  EXPECT_EQ(describeFailure(status, opts_).rfind("Access/permission denied: authentication failed: ", 0), 0u)
      << describeFailure(status, opts_);
}

TEST_P(AuthenticatedRpcTest, CredentialFromAnotherKeyIsDenied) {
  auto other = MungedProcess::start();
  ASSERT_TRUE(other.ok()) << other.error();
  ClientOptions foreign = opts_;
  foreign.munge_socket = (*other)->socket();
  v1::PingReply reply;
  expectDenied(ping(foreign, &reply), "credential invalid (made with another MUNGE key");
}

TEST_P(AuthenticatedRpcTest, ReplayedCredentialIsDenied) {
  v1::PingRequest request;
  auto credential = auth::encodeCredential(auth::bindingPayload(kPing, request), munged_->socket());
  ASSERT_TRUE(credential.ok()) << credential.error();
  for (int attempt = 0; attempt < 2; ++attempt) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    ctx.AddMetadata("x-drover-munge", *credential);
    v1::PingReply reply;
    const grpc::Status status = stub_->Ping(&ctx, request, &reply);
    if (attempt == 0) {
      EXPECT_TRUE(status.ok()) << status.error_message();
    } else {
      expectDenied(status, "credential replayed");
    }
  }
}

TEST_P(AuthenticatedRpcTest, CredentialForAnotherRequestIsDenied) {
  v1::GetNodesRequest signed_request;
  signed_request.add_names("gpu001");
  v1::GetNodesRequest sent_request;
  sent_request.add_names("gpu002");
  grpc::ClientContext ctx;
  ASSERT_TRUE(prepareCall(ctx, kGetNodes, signed_request, opts_).ok());
  v1::GetNodesReply reply;
  expectDenied(stub_->GetNodes(&ctx, sent_request, &reply), "credential is bound to another request");
}

TEST_P(AuthenticatedRpcTest, CredentialForAnotherMethodIsDenied) {
  // An empty GetNodesRequest and an empty PingRequest serialize identically; only the method
  // line tells them apart.
  grpc::ClientContext ctx;
  ASSERT_TRUE(prepareCall(ctx, kGetNodes, v1::GetNodesRequest(), opts_).ok());
  v1::PingReply reply;
  expectDenied(stub_->Ping(&ctx, v1::PingRequest(), &reply), "credential is bound to another method");
}

TEST_P(AuthenticatedRpcTest, PrepareCallWithoutMungedNamesTheSocket) {
  ClientOptions broken = opts_;
  broken.munge_socket = "/nonexistent/drover/munge.socket";
  grpc::ClientContext ctx;
  auto prepared = prepareCall(ctx, kPing, v1::PingRequest(), broken);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.error().find(broken.munge_socket), std::string::npos) << prepared.error();
}

TEST_P(AuthenticatedRpcTest, DeadControllerGivesConnectFailureQuickly) {
  ClientOptions dead = opts_;
  dead.target = "127.0.0.1:" + std::to_string(unusedLoopbackPort());
  dead.timeout_ms = 2000;
  auto stub = v1::Controller::NewStub(makeChannel(dead.target));
  grpc::ClientContext ctx;
  v1::PingRequest request;
  ASSERT_TRUE(prepareCall(ctx, kPing, request, dead).ok());
  v1::PingReply reply;
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status status = stub->Ping(&ctx, request, &reply);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(describeFailure(status, dead),
            "Unable to contact drover controller at " + dead.target + " (connect failure)");
  EXPECT_LE(elapsed, std::chrono::milliseconds(dead.timeout_ms + 500));
}

INSTANTIATE_TEST_SUITE_P(MethodSource, AuthenticatedRpcTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Recorded") : std::string("FromRequestType");
                         });

}  // namespace
}  // namespace drover::rpc
