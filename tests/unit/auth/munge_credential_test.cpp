// MUNGE credentials against real munged instances (each with its own key).
#include "auth/munge_credential.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "auth/request_binding.h"
#include "drover/v1/controller.pb.h"
#include "drover/v1/jobs.pb.h"
#include "munged_process.h"

namespace drover::auth {
namespace {

using testing::MungedProcess;

class MungeCredentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = MungedProcess::start();
    ASSERT_TRUE(started.ok()) << started.error();
    munged_ = std::move(*started);
  }
  void TearDown() override { munged_.reset(); }

  std::unique_ptr<MungedProcess> munged_;
};

v1::GetNodesRequest nodesRequest(std::initializer_list<const char*> names) {
  v1::GetNodesRequest request;
  for (const char* name : names) request.add_names(name);
  return request;
}

TEST_F(MungeCredentialTest, RoundTripCarriesPayloadAndOurIdentity) {
  const std::string payload = bindingPayload("/drover.v1.Controller/GetNodes", nodesRequest({"n1"}));
  auto credential = encodeCredential(payload, munged_->socket());
  ASSERT_TRUE(credential.ok()) << credential.error();

  auto decoded = decodeCredential(*credential, munged_->socket());
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded->uid, ::getuid());
  EXPECT_EQ(decoded->gid, ::getgid());
  EXPECT_EQ(decoded->payload, payload);
}

TEST_F(MungeCredentialTest, CredentialIsBoundToMethodAndRequest) {
  const auto request_a = nodesRequest({"n1"});
  const std::string payload_a = bindingPayload("/drover.v1.Controller/GetNodes", request_a);
  auto credential = encodeCredential(payload_a, munged_->socket());
  ASSERT_TRUE(credential.ok()) << credential.error();
  auto decoded = decodeCredential(*credential, munged_->socket());
  ASSERT_TRUE(decoded.ok()) << decoded.error();

  struct Case {
    std::string name;
    std::string method;
    v1::GetNodesRequest request;
  };
  const std::vector<Case> others = {
      {"other request body", "/drover.v1.Controller/GetNodes", nodesRequest({"n2"})},
      {"extra element", "/drover.v1.Controller/GetNodes", nodesRequest({"n1", "n2"})},
      {"empty request", "/drover.v1.Controller/GetNodes", nodesRequest({})},
      {"other method", "/drover.v1.Controller/GetPartitions", request_a},
  };
  for (const Case& c : others) {
    EXPECT_NE(decoded->payload, bindingPayload(c.method, c.request)) << c.name;
  }
  EXPECT_EQ(decoded->payload, bindingPayload("/drover.v1.Controller/GetNodes", nodesRequest({"n1"})));
}

TEST_F(MungeCredentialTest, VerifyBoundCredentialChecksMethodAndRequest) {
  struct Case {
    std::string name;
    std::string method;
    v1::GetNodesRequest request;
    std::string error;  // empty = accepted
  };
  const std::string kGetNodes = "/drover.v1.Controller/GetNodes";
  const std::vector<Case> cases = {
      {"same call", kGetNodes, nodesRequest({"n1"}), ""},
      {"other request", kGetNodes, nodesRequest({"n2"}), "credential is bound to another request"},
      {"other method", "/drover.v1.Controller/GetPartitions", nodesRequest({"n1"}),
       "credential is bound to another method (/drover.v1.Controller/GetNodes, not "
       "/drover.v1.Controller/GetPartitions)"},
  };
  for (const Case& c : cases) {
    // A fresh credential per case: each one authenticates a single call.
    auto credential = encodeCredential(bindingPayload(kGetNodes, nodesRequest({"n1"})), munged_->socket());
    ASSERT_TRUE(credential.ok()) << credential.error();
    auto verified = verifyBoundCredential(*credential, c.method, c.request, munged_->socket());
    if (c.error.empty()) {
      ASSERT_TRUE(verified.ok()) << c.name << ": " << verified.error();
      EXPECT_EQ(verified->uid, ::getuid()) << c.name;
    } else {
      ASSERT_FALSE(verified.ok()) << c.name;
      EXPECT_EQ(verified.error(), c.error) << c.name;
    }
  }
}

TEST_F(MungeCredentialTest, SecondDecodeOfSameCredentialIsReplay) {
  auto credential = encodeCredential("payload", munged_->socket());
  ASSERT_TRUE(credential.ok()) << credential.error();
  ASSERT_TRUE(decodeCredential(*credential, munged_->socket()).ok());

  auto replayed = decodeCredential(*credential, munged_->socket());
  ASSERT_FALSE(replayed.ok());
  EXPECT_EQ(replayed.error(), "credential replayed");
}

TEST_F(MungeCredentialTest, CredentialFromAnotherKeyIsInvalid) {
  auto other = MungedProcess::start();
  ASSERT_TRUE(other.ok()) << other.error();
  auto credential = encodeCredential("payload", (*other)->socket());
  ASSERT_TRUE(credential.ok()) << credential.error();

  auto decoded = decodeCredential(*credential, munged_->socket());
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("another MUNGE key"), std::string::npos) << decoded.error();
}

TEST_F(MungeCredentialTest, GarbageAndTamperedCredentialsAreRejected) {
  auto real = encodeCredential("payload", munged_->socket());
  ASSERT_TRUE(real.ok()) << real.error();
  std::string tampered = *real;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';

  struct Case {
    std::string name;
    std::string credential;
  };
  const std::vector<Case> cases = {
      {"empty", ""},
      {"not munge", "hello"},
      {"munge prefix only", "MUNGE::"},
      {"bad base64", "MUNGE:!!!!:"},
      {"truncated", real->substr(0, real->size() / 2)},
      {"tampered", tampered},
  };
  for (const Case& c : cases) {
    auto decoded = decodeCredential(c.credential, munged_->socket());
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_FALSE(decoded.error().empty()) << c.name;
  }
}

TEST_F(MungeCredentialTest, EncodeWithoutMungedNamesTheSocket) {
  const std::string socket = "/nonexistent/drover/munge.socket";
  auto credential = encodeCredential("payload", socket);
  ASSERT_FALSE(credential.ok());
  EXPECT_NE(credential.error().find(socket), std::string::npos) << credential.error();
  EXPECT_NE(credential.error().find("munged"), std::string::npos) << credential.error();
}

// Contexts are per call, so threads encode and decode in parallel with no lock.
TEST_F(MungeCredentialTest, ParallelEncodeDecodeFromManyThreads) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 25;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        const std::string payload = "thread " + std::to_string(t) + " call " + std::to_string(i);
        auto credential = encodeCredential(payload, munged_->socket());
        auto decoded = credential.ok() ? decodeCredential(*credential, munged_->socket())
                                       : Result<DecodedCredential>(makeError(credential.error()));
        if (!decoded.ok() || decoded->payload != payload) ++failures[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// Not a pass/fail check: records what one encode and one decode cost here.
TEST_F(MungeCredentialTest, EncodeDecodeCost) {
  constexpr int kRounds = 200;
  std::vector<std::string> credentials;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) {
    auto credential = encodeCredential("payload " + std::to_string(i), munged_->socket());
    ASSERT_TRUE(credential.ok()) << credential.error();
    credentials.push_back(std::move(*credential));
  }
  const auto t1 = std::chrono::steady_clock::now();
  for (const auto& credential : credentials) ASSERT_TRUE(decodeCredential(credential, munged_->socket()).ok());
  const auto t2 = std::chrono::steady_clock::now();
  using us = std::chrono::duration<double, std::micro>;
  RecordProperty("encode_us", std::to_string(us(t1 - t0).count() / kRounds));
  RecordProperty("decode_us", std::to_string(us(t2 - t1).count() / kRounds));
  std::printf("munge encode %.1f us, decode %.1f us (mean of %d)\n", us(t1 - t0).count() / kRounds,
              us(t2 - t1).count() / kRounds, kRounds);
}

}  // namespace
}  // namespace drover::auth
