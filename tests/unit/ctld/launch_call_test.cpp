// The controller's calls to an agent on the job path, against a port nobody listens on (real
// munged for the credential): LaunchStep keeps trying a refused connection up to the message
// timeout (an agent restarting there), SignalStep gives up at once.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "ctld/launch_call.h"
#include "munged_process.h"

namespace drover::ctld {
namespace {

// A loopback port that was free a moment ago: bound, read back, closed.
std::uint16_t closedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(LaunchCall, LaunchWaitsForARefusingAgentAndSignalDoesNot) {
  auto munged = testing::MungedProcess::start();
  ASSERT_TRUE(munged.ok()) << munged.error();
  rpc::ClientOptions options;
  options.munge_socket = (*munged)->socket();
  options.timeout_ms = 600;
  const AgentEndpoint agent{"127.0.0.1", closedPort()};
  using Clock = std::chrono::steady_clock;

  auto t0 = Clock::now();
  const LaunchCallResult launched = callLaunchStep(agent, v1::LaunchStepRequest{}, options);
  const auto launch_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  EXPECT_FALSE(launched.why.empty());
  EXPECT_TRUE(launched.unreachable);
  EXPECT_GE(launch_ms.count(), 450) << "LaunchStep gave up before the message timeout";

  t0 = Clock::now();
  const std::string why = callSignalStep(agent, v1::SignalStepRequest{}, options);
  const auto signal_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  EXPECT_FALSE(why.empty());
  EXPECT_LT(signal_ms.count(), 300) << "SignalStep waited for a refusing agent";
}

}  // namespace
}  // namespace drover::ctld
