// srun --pty's side of the user's terminal, on a real pseudo-terminal standing in for it:
// its size, raw mode and the exact mode restored, SIGWINCH (read with srun's other signals)
// answered with the new size.
#include "cli/srun_terminal.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

#include "cli/srun_signals.h"

namespace drover::cli {
namespace {

class SrunTerminalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    winsize ws{};
    ws.ws_row = 37;
    ws.ws_col = 111;
    ASSERT_EQ(openpty(&master_, &slave_, nullptr, nullptr, &ws), 0);
  }
  void TearDown() override {
    close(master_);
    close(slave_);
  }
  termios mode() const {
    termios t{};
    EXPECT_EQ(tcgetattr(slave_, &t), 0);
    return t;
  }
  int master_ = -1, slave_ = -1;
};

bool sameMode(const termios& a, const termios& b) {
  return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_cflag == b.c_cflag &&
         a.c_lflag == b.c_lflag && std::memcmp(a.c_cc, b.c_cc, sizeof a.c_cc) == 0;
}

TEST_F(SrunTerminalTest, RawWhileOpenThenTheSameModeAsBefore) {
  const termios before = mode();
  ASSERT_TRUE(before.c_lflag & ICANON);
  {
    auto terminal = PtyTerminal::open(slave_);
    ASSERT_TRUE(terminal.ok()) << terminal.error();
    EXPECT_TRUE((*terminal)->isTerminal());
    ASSERT_TRUE((*terminal)->size());
    EXPECT_EQ(*(*terminal)->size(), (WindowSize{37, 111}));
    ASSERT_TRUE((*terminal)->enterRawMode().ok());
    const termios raw = mode();
    // Every key passes through: no line editing, echo, key signals or CR/NL translation.
    EXPECT_FALSE(raw.c_lflag & (ICANON | ECHO | ISIG | IEXTEN));
    EXPECT_FALSE(raw.c_iflag & (ICRNL | IXON));
    EXPECT_FALSE(raw.c_oflag & OPOST);
    EXPECT_EQ(raw.c_cc[VMIN], 1);
    EXPECT_TRUE(sameMode(raw, rawModeOf(before)));
  }
  EXPECT_TRUE(sameMode(mode(), before));
}

TEST_F(SrunTerminalTest, RestoreIsIdempotent) {
  const termios before = mode();
  auto terminal = PtyTerminal::open(slave_);
  ASSERT_TRUE(terminal.ok());
  ASSERT_TRUE((*terminal)->enterRawMode().ok());
  (*terminal)->restore();
  EXPECT_TRUE(sameMode(mode(), before));
  termios changed = before;
  changed.c_lflag &= ~ECHO;  // someone else's change after the restore stays
  ASSERT_EQ(tcsetattr(slave_, TCSANOW, &changed), 0);
  terminal->reset();
  EXPECT_FALSE(mode().c_lflag & ECHO);
}

TEST_F(SrunTerminalTest, SigwinchIsReadWithSrunsSignalsThenTheNewSizeAnswered) {
  SignalWatch signals({.window_size = true});
  auto terminal = PtyTerminal::open(slave_);
  ASSERT_TRUE(terminal.ok());
  PtyTerminal& t = **terminal;
  EXPECT_FALSE(t.resized());  // nothing changed yet
  winsize ws{};
  ws.ws_row = 50;
  ws.ws_col = 132;
  ASSERT_EQ(ioctl(master_, TIOCSWINSZ, &ws), 0);
  // This process does not own the terminal, so the kernel's SIGWINCH goes elsewhere: send it.
  ASSERT_EQ(kill(getpid(), SIGWINCH), 0);
  EXPECT_EQ(signals.wait(2000), SIGWINCH);
  auto size = t.resized();
  ASSERT_TRUE(size);
  EXPECT_EQ(*size, (WindowSize{50, 132}));
  EXPECT_FALSE(t.resized());  // answered once
}

TEST(SrunSignalsTest, SigwinchIsWatchedOnlyWhenAskedFor) {
  {
    SignalWatch plain;
    // Not blocked, so its default action (ignore) takes it: nothing to read.
    ASSERT_EQ(kill(getpid(), SIGWINCH), 0);
    EXPECT_EQ(plain.wait(100), std::nullopt);
  }
  SignalWatch pty({.window_size = true});
  ASSERT_EQ(kill(getpid(), SIGWINCH), 0);
  EXPECT_EQ(pty.wait(2000), SIGWINCH);
}

TEST(SrunTerminalNoTtyTest, NotATerminalChangesNothing) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  auto terminal = PtyTerminal::open(fds[0]);
  ASSERT_TRUE(terminal.ok());
  EXPECT_FALSE((*terminal)->isTerminal());
  EXPECT_FALSE((*terminal)->size());
  EXPECT_FALSE((*terminal)->resized());
  EXPECT_TRUE((*terminal)->enterRawMode().ok());
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace drover::cli
