// The supervisor launcher as real processes: this test process plays droverd, a forked child
// runs the launcher loop, and the "supervisor" it forks reports the state it started in.
#include "stepd/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace drover::stepd {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the forked supervisor writes to its stdout (the step log): one "key=value" per line.
int reportState(const LaunchOrder& order) {
  std::printf("ppid=%d\n", static_cast<int>(::getppid()));
  std::printf("session_leader=%d\n", ::getsid(0) == ::getpid() ? 1 : 0);
  sigset_t mask;
  ::sigprocmask(SIG_SETMASK, nullptr, &mask);
  std::printf("blocked=%d%d%d%d\n", sigismember(&mask, SIGTERM), sigismember(&mask, SIGCHLD),
              sigismember(&mask, SIGRTMIN), sigismember(&mask, SIGUSR1));
  struct sigaction usr1 {};
  ::sigaction(SIGUSR1, nullptr, &usr1);
  std::printf("usr1_default=%d\n", usr1.sa_handler == SIG_DFL ? 1 : 0);
  int open_fds = 0;
  for (int fd = 3; fd < 1024; ++fd) open_fds += ::fcntl(fd, F_GETFD) >= 0 ? 1 : 0;
  std::printf("other_fds=%d\n", open_fds);
  char stdin_target[64] = {};
  (void)!::readlink("/proc/self/fd/0", stdin_target, sizeof stdin_target - 1);
  std::printf("stdin=%s\n", stdin_target);
  int* tid_address = nullptr;
  ::prctl(PR_GET_TID_ADDRESS, &tid_address, 0, 0, 0);
  std::printf("glibc_tid_is_own=%d\n",
              tid_address != nullptr && *tid_address == static_cast<int>(::gettid()) ? 1 : 0);
  std::printf("request=%s\n", order.request.c_str());
  std::string args;
  for (const auto& a : order.argv) args += (args.empty() ? "" : " ") + a;
  std::printf("argv=%s\n", args.c_str());
  return order.argv.size() > 1 ? std::atoi(order.argv[1].c_str()) : 0;
}

class LauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(launcherSupported().ok()) << launcherSupported().error();
    dir_ = fs::temp_directory_path() /
           ("drover-launcher-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    std::fflush(nullptr);
    launcher_ = ::fork();
    ASSERT_GE(launcher_, 0);
    if (launcher_ == 0) {
      ::close(pair[0]);
      // A disposition droverd might have had: the supervisor must not inherit it.
      ::signal(SIGUSR1, SIG_IGN);
      ::_exit(runLauncher(pair[1], reportState));
    }
    ::close(pair[1]);
    fd_ = pair[0];
    auto hello = readFrame(fd_, 10000);
    ASSERT_TRUE(hello.ok() && *hello) << (hello.ok() ? "launcher closed" : hello.error());
    auto ready = decodeLaunchReply(**hello);
    ASSERT_TRUE(ready.ok()) << ready.error();
    EXPECT_EQ(ready->pid, launcher_);
  }

  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    if (launcher_ > 0) {
      int status = 0;
      ASSERT_EQ(::waitpid(launcher_, &status, 0), launcher_);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == expected_launcher_exit_)
          << "launcher status " << status;
    }
    fs::remove_all(dir_);
  }

  Result<LaunchReply> order(const std::string& payload) {
    if (auto sent = writeFrame(fd_, payload); !sent) return makeError(sent.error());
    auto frame = readFrame(fd_, 10000);
    if (!frame) return makeError(frame.error());
    if (!*frame) return makeError("the launcher closed its connection");
    return decodeLaunchReply(**frame);
  }

  LaunchOrder step(const std::string& exit_code) {
    return LaunchOrder{(dir_ / "step.log").string(), "the request",
                       {"drover-stepd", exit_code, "--spool", "/x"}};
  }

  fs::path dir_;
  pid_t launcher_ = 0;
  int fd_ = -1;
  int expected_launcher_exit_ = 0;
};

TEST_F(LauncherTest, SupervisorIsTheLaunchersSiblingAndStartsAsAnExecdOneWould) {
  auto reply = order(encodeLaunchOrder(step("7")));
  ASSERT_TRUE(reply.ok()) << reply.error();
  ASSERT_GT(reply->pid, 0) << reply->error;
  ASSERT_NE(reply->pid, launcher_);
  // Answered only once the child leads its own session (as posix_spawn returns after setsid).
  EXPECT_EQ(::getsid(reply->pid), reply->pid);
  // droverd's (here: this process's) child, so droverd reaps it and has its exit status.
  int status = 0;
  ASSERT_EQ(::waitpid(reply->pid, &status, 0), reply->pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  const std::string log = readFile(dir_ / "step.log");
  EXPECT_NE(log.find("ppid=" + std::to_string(::getpid()) + "\n"), std::string::npos) << log;
  EXPECT_NE(log.find("session_leader=1\n"), std::string::npos) << log;
  EXPECT_NE(log.find("blocked=1110\n"), std::string::npos) << log;
  EXPECT_NE(log.find("usr1_default=1\n"), std::string::npos) << log;
  EXPECT_NE(log.find("other_fds=0\n"), std::string::npos) << log;
  EXPECT_NE(log.find("stdin=/dev/null\n"), std::string::npos) << log;
  EXPECT_NE(log.find("glibc_tid_is_own=1\n"), std::string::npos) << log;
  EXPECT_NE(log.find("request=the request\n"), std::string::npos) << log;
  EXPECT_NE(log.find("argv=drover-stepd 7 --spool /x\n"), std::string::npos) << log;
  EXPECT_EQ(fs::status(dir_ / "step.log").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(LauncherTest, EachOrderGetsItsOwnSupervisor) {
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    auto reply = order(encodeLaunchOrder(step(std::to_string(i))));
    ASSERT_TRUE(reply.ok() && reply->pid > 0) << (reply.ok() ? reply->error : reply.error());
    pids.push_back(reply->pid);
  }
  for (int i = 0; i < 3; ++i) {
    int status = 0;
    ASSERT_EQ(::waitpid(pids[i], &status, 0), pids[i]);
    EXPECT_EQ(WEXITSTATUS(status), i);
  }
}

TEST_F(LauncherTest, BadOrderIsAnsweredWithAnErrorAndTheLauncherGoesOn) {
  auto bad = order("not an order");
  ASSERT_TRUE(bad.ok()) << bad.error();
  EXPECT_EQ(bad->pid, 0);
  EXPECT_NE(bad->error.find("launcher launch order"), std::string::npos) << bad->error;
  auto good = order(encodeLaunchOrder(step("0")));
  ASSERT_TRUE(good.ok() && good->pid > 0) << (good.ok() ? good->error : good.error());
  EXPECT_EQ(::waitpid(good->pid, nullptr, 0), good->pid);
}

TEST_F(LauncherTest, UnopenableLogIsAnErrorAndNothingRuns) {
  LaunchOrder o = step("0");
  o.log_path = (dir_ / "no-such-dir" / "step.log").string();
  auto reply = order(encodeLaunchOrder(o));
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(reply->pid, 0);
  EXPECT_NE(reply->error.find("cannot open step log " + o.log_path), std::string::npos)
      << reply->error;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), 0) << "only the launcher is a child here";
}

TEST_F(LauncherTest, FrameOverTheLimitEndsTheLauncher) {
  std::string head;
  const std::uint32_t len = kMaxLauncherFrame + 1;
  for (int i = 0; i < 4; ++i) head.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  ASSERT_EQ(::write(fd_, head.data(), head.size()), 4);
  auto end = readFrame(fd_, 10000);
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_FALSE(end->has_value()) << "the launcher answered a stream it cannot follow";
  expected_launcher_exit_ = 2;
}

}  // namespace
}  // namespace drover::stepd
