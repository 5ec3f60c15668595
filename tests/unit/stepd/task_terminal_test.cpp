// srun --pty's pseudo-terminal on the supervisor's side (real ptys from /dev/ptmx), the
// session-wide signal its step needs, and the forwarder applying window_size frames to it.
#include "stepd/task_terminal.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/proc_stat.h"
#include "stepd/process_scan.h"

namespace drover::stepd {
namespace {

struct Closer {
  TaskTerminal& t;
  ~Closer() {
    if (t.master >= 0) close(t.master);
    if (t.slave >= 0) close(t.slave);
  }
};

winsize sizeOf(int fd) {
  winsize ws{};
  EXPECT_EQ(ioctl(fd, TIOCGWINSZ, &ws), 0);
  return ws;
}

TEST(TaskTerminalTest, OpensAPairOfTheRequestedSize) {
  auto t = openTaskTerminal(33, 101, 0);
  ASSERT_TRUE(t.ok()) << t.error();
  Closer closer{*t};
  EXPECT_EQ(t->path.rfind("/dev/pts/", 0), 0u) << t->path;
  EXPECT_TRUE(isatty(t->slave));
  EXPECT_EQ(sizeOf(t->slave).ws_row, 33);
  EXPECT_EQ(sizeOf(t->slave).ws_col, 101);
  // Neither end may leak into a task's exec or become the supervisor's terminal.
  EXPECT_TRUE(fcntl(t->master, F_GETFD) & FD_CLOEXEC);
  EXPECT_TRUE(fcntl(t->slave, F_GETFD) & FD_CLOEXEC);
  EXPECT_TRUE(fcntl(t->master, F_GETFL) & O_NONBLOCK);
  // Bytes written to the master come out of the slave (canonical mode: a whole line).
  ASSERT_EQ(write(t->master, "hi\n", 3), 3);
  char buf[16] = {};
  EXPECT_EQ(read(t->slave, buf, sizeof buf), 3);
  EXPECT_STREQ(buf, "hi\n");
}

TEST(TaskTerminalTest, ZeroSizeKeepsTheKernelsDefault) {
  auto t = openTaskTerminal(0, 0, 0);
  ASSERT_TRUE(t.ok()) << t.error();
  Closer closer{*t};
  EXPECT_EQ(sizeOf(t->slave).ws_row, 0);
  EXPECT_TRUE(setWindowSize(t->master, 50, 132));
  EXPECT_EQ(sizeOf(t->slave).ws_row, 50);
  EXPECT_EQ(sizeOf(t->slave).ws_col, 132);
  const int not_a_terminal = open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_FALSE(setWindowSize(not_a_terminal, 1, 1));
  close(not_a_terminal);
}

TEST(TaskTerminalTest, TheSlaveBelongsToTheTasksUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a terminal away";
  auto t = openTaskTerminal(24, 80, 65534);
  ASSERT_TRUE(t.ok()) << t.error();
  Closer closer{*t};
  struct stat st{};
  ASSERT_EQ(fstat(t->slave, &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_mode & 0777, 0620u);
}

TEST(TaskTerminalTest, EndOfInputIsTheEofCharacterOnlyInCanonicalMode) {
  auto t = openTaskTerminal(24, 80, 0);
  ASSERT_TRUE(t.ok()) << t.error();
  Closer closer{*t};
  termios mode{};
  ASSERT_EQ(tcgetattr(t->slave, &mode), 0);
  const std::string eof(1, static_cast<char>(mode.c_cc[VEOF]));
  EXPECT_EQ(endOfInputBytes(t->master, false), eof);
  EXPECT_EQ(endOfInputBytes(t->master, true), eof + eof);  // the first only ends the line
  cfmakeraw(&mode);
  ASSERT_EQ(tcsetattr(t->slave, TCSANOW, &mode), 0);
  EXPECT_EQ(endOfInputBytes(t->master, false), "");
}

// A shell with job control puts its jobs in process groups of their own: signalSession
// reaches them all, a kill of the leader's group would not.
TEST(ProcessScanTest, SignalSessionReachesEveryProcessGroupOfTheSession) {
  // The job is orphaned when its session leader dies: reparented to this process, which
  // reaps it, instead of to an init that may never reap.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int ready[2];
  ASSERT_EQ(pipe2(ready, O_CLOEXEC), 0);
  const pid_t leader = fork();
  ASSERT_GE(leader, 0);
  if (leader == 0) {
    setsid();
    const pid_t job = fork();
    if (job == 0) {
      setpgid(0, 0);
      for (;;) pause();
    }
    setpgid(job, job);  // as a shell does on both sides, so it holds before `ready`
    (void)!write(ready[1], &job, sizeof job);
    for (;;) pause();
  }
  close(ready[1]);
  pid_t job = 0;
  const bool got = read(ready[0], &job, sizeof job) == static_cast<ssize_t>(sizeof job);
  close(ready[0]);
  struct Reap {  // whatever the assertions say, nothing is left running
    pid_t leader;
    pid_t& job;
    ~Reap() {
      kill(leader, SIGKILL);
      waitpid(leader, nullptr, 0);  // ECHILD when already reaped
      if (job > 0) {
        kill(job, SIGKILL);
        waitpid(job, nullptr, 0);  // ours once its leader is gone
      }
      prctl(PR_SET_CHILD_SUBREAPER, 0);
    }
  } reap{leader, job};
  ASSERT_TRUE(got);
  ASSERT_NE(getpgid(job), getpgid(leader));
  bool found_job = false;
  for (const ProcStat& p : readAllProcStats()) {
    if (p.pid == job) found_job = p.session == leader && p.process_group == job;
  }
  EXPECT_TRUE(found_job);
  signalSession(leader, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(leader, &status, 0), leader);
  EXPECT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(waitpid(job, &status, 0), job);  // reparented here
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  job = 0;
}

}  // namespace
}  // namespace drover::stepd
