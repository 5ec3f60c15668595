// The usage socket's two ends in one process: the agent's end takes an answer only from the
// pid it expects, and a supervisor that is not listening is an error, not a hang.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <poll.h>
#include <thread>

#include "common/step_usage_socket.h"

namespace drover {
namespace {

std::string uniqueName(const char* what) {
  return stepUsageSocketName("/spool", std::string("test-") + what + "-" + std::to_string(getpid()),
                             12, 3, 1);
}

// Answers one request with `reply`, as the supervisor's poll loop does.
std::thread answerOnce(int fd, std::string reply) {
  return std::thread([fd, reply] {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) == 1) answerUsageRequest(fd, [&] { return reply; });
  });
}

TEST(StepUsageSocket, NamesAreAbstractAndPerAgentStepAndRun) {
  const std::string a = stepUsageSocketName("/var/spool/drover/n1", "n1", 12, -5, 0);
  EXPECT_EQ(a[0], '\0');
  EXPECT_EQ(a.substr(1, 19), "drover-stepd-usage/");
  EXPECT_EQ(a.substr(a.size() - 11), "/n1/12.-5.0");
  // Another agent on the host (another node, or another cluster's node of the same name).
  EXPECT_NE(a, stepUsageSocketName("/var/spool/drover/n1", "n2", 12, -5, 0));
  EXPECT_NE(a, stepUsageSocketName("/tmp/other-cluster/n1", "n1", 12, -5, 0));
  EXPECT_NE(a, stepUsageSocketName("/var/spool/drover/n1", "n1", 12, -5, 1));
  const std::string no_run = stepUsageSocketName("/s", "n1", 12, 0, std::nullopt);
  EXPECT_EQ(no_run.substr(no_run.size() - 8), "/n1/12.0");
}

TEST(StepUsageSocket, TheSupervisorsAnswerIsReadToItsEnd) {
  const std::string name = uniqueName("answer");
  auto fd = listenForUsage(name);
  ASSERT_TRUE(fd.ok()) << fd.error();
  const std::string big(100000, 'x');   // more than one read
  auto t = answerOnce(*fd, big);
  auto got = askStepUsage(name, getpid(), 5000);
  t.join();
  ASSERT_TRUE(got.ok()) << got.error();
  EXPECT_EQ(*got, big);
  // A second supervisor of the same name (the same step and run) cannot take it over.
  EXPECT_FALSE(listenForUsage(name).ok());
  close(*fd);
}

TEST(StepUsageSocket, AnAnswerFromAnotherPidIsRefused) {
  const std::string name = uniqueName("impostor");
  auto fd = listenForUsage(name);
  ASSERT_TRUE(fd.ok()) << fd.error();
  auto t = answerOnce(*fd, "forged");
  auto got = askStepUsage(name, getpid() + 1, 5000);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().find("not its supervisor"), std::string::npos) << got.error();
  t.join();
  close(*fd);
}

// Any user may connect to an abstract socket: the supervisor answers only root and its own
// user (the agent's), and closes on anyone else, which the asking end takes as a refusal.
TEST(StepUsageSocket, OtherUsersGetNoAnswer) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to ask as another user";
  const std::string name = uniqueName("other-user");
  auto fd = listenForUsage(name);
  ASSERT_TRUE(fd.ok()) << fd.error();
  auto t = answerOnce(*fd, "figures");
  const pid_t parent = getpid();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    auto got = askStepUsage(name, parent, 5000);
    _exit(!got.ok() && got.error().find("without an answer") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  t.join();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  close(*fd);
}

TEST(StepUsageSocket, NoSupervisorListeningIsAnErrorAtOnce) {
  auto got = askStepUsage(uniqueName("nobody"), getpid(), 5000);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().find("does not answer"), std::string::npos) << got.error();
}

TEST(StepUsageSocket, ASupervisorThatNeverAnswersTimesOut) {
  const std::string name = uniqueName("silent");
  auto fd = listenForUsage(name);
  ASSERT_TRUE(fd.ok());
  auto got = askStepUsage(name, getpid(), 200);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().find("in time"), std::string::npos) << got.error();
  close(*fd);
}

}  // namespace
}  // namespace drover
