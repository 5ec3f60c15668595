// The supervisor's end of srun's I/O stream against a plain socket standing in for srun: the
// hello frame, output frames, the exit frame after the last output, and back-pressure (a
// reader that stops reading fills the task's pipe instead of the supervisor's memory).
#include "stepd/io_forwarder.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "drover/v1/step_io.pb.h"

namespace drover::stepd {
namespace {

class IoForwarderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(listener_, 4), 0);
    socklen_t len = sizeof addr;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    address_ = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  }
  void TearDown() override {
    closePeer();
    close(listener_);
  }

  // srun's side closes: a forwarder destroyed after this does not wait out its 10 s linger.
  void closePeer() {
    if (peer_ >= 0) close(peer_);
    peer_ = -1;
  }

  std::unique_ptr<IoForwarder> connect(std::vector<std::uint32_t> ranks) {
    IoForwarder::Hello hello{"secret", 3, "node04", std::move(ranks)};
    auto forwarder = IoForwarder::connect(address_, hello, 2000);
    EXPECT_TRUE(forwarder.ok()) << (forwarder.ok() ? "" : forwarder.error());
    peer_ = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    return forwarder.ok() ? std::move(*forwarder) : nullptr;
  }

  // One round of the supervisor's poll loop.
  static void round(IoForwarder& forwarder, int timeout_ms) {
    std::vector<pollfd> fds;
    forwarder.addPollFds(fds);
    if (poll(fds.data(), fds.size(), timeout_ms) > 0) forwarder.handlePoll(fds, 0);
  }

  // Reads frames from the srun side until `count` arrived (driving the forwarder meanwhile).
  std::vector<drover::v1::StepIoFromStepd> frames(IoForwarder& forwarder, std::size_t count) {
    std::vector<drover::v1::StepIoFromStepd> got;
    std::string payload;
    while (got.size() < count) {
      auto next = reader_.next(payload);
      if (next == FrameReader::Next::kFrame) {
        got.emplace_back().ParseFromString(payload);
        continue;
      }
      EXPECT_EQ(next, FrameReader::Next::kNeedMore);
      round(forwarder, 0);
      pollfd pfd{peer_, POLLIN, 0};
      if (poll(&pfd, 1, 100) <= 0) continue;
      char buf[65536];
      ssize_t n = read(peer_, buf, sizeof buf);
      if (n <= 0) break;
      reader_.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }

  int listener_ = -1;
  int peer_ = -1;
  std::string address_;
  FrameReader reader_;
};

TEST_F(IoForwarderTest, HelloThenOutputThenExit) {
  auto forwarder = connect({4, 5});
  ASSERT_TRUE(forwarder);
  auto pipes = forwarder->openTask(5);
  ASSERT_TRUE(pipes.ok());
  ASSERT_EQ(write(pipes->stdout_fd, "out\n", 4), 4);
  ASSERT_EQ(write(pipes->stderr_fd, "err\n", 4), 4);
  forwarder->closeTaskEnds(5);  // the "task" is gone: its pipes reach EOF
  forwarder->taskEnded(5, 3, 0);

  auto got = frames(*forwarder, 4);
  ASSERT_EQ(got.size(), 4u);
  ASSERT_TRUE(got[0].has_hello());
  EXPECT_EQ(got[0].hello().io_key(), "secret");
  EXPECT_EQ(got[0].hello().node_id(), 3u);
  EXPECT_EQ(got[0].hello().node_name(), "node04");
  EXPECT_EQ(got[0].hello().ranks_size(), 2);
  std::string out, err;
  for (int i : {1, 2}) {
    ASSERT_TRUE(got[i].has_output());
    EXPECT_EQ(got[i].output().rank(), 5u);
    (got[i].output().stream() == drover::v1::StepIoOutput::STDERR ? err : out) +=
        got[i].output().data();
  }
  EXPECT_EQ(out, "out\n");
  EXPECT_EQ(err, "err\n");
  ASSERT_TRUE(got[3].has_exit());  // after the task's last output
  EXPECT_EQ(got[3].exit().rank(), 5u);
  EXPECT_EQ(got[3].exit().exit_code(), 3);
  EXPECT_TRUE(forwarder->finished());
  closePeer();
}

TEST_F(IoForwarderTest, ASlowReaderFillsThePipeNotTheQueue) {
  auto forwarder = connect({0});
  ASSERT_TRUE(forwarder);
  auto pipes = forwarder->openTask(0);
  ASSERT_TRUE(pipes.ok());
  const int task_out = pipes->stdout_fd;
  fcntl(task_out, F_SETFL, fcntl(task_out, F_GETFL) | O_NONBLOCK);
  const std::string chunk(16384, 'x');
  std::size_t written = 0;
  // Nobody reads the socket: the task writes until its pipe is full while the supervisor
  // keeps polling.
  for (int stalls = 0; stalls < 3;) {
    ssize_t n = write(task_out, chunk.data(), chunk.size());
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      stalls = 0;
    } else {
      ++stalls;
    }
    round(*forwarder, 0);
    ASSERT_LT(written, 256u << 20) << "the supervisor never pushed back";
  }
  EXPECT_LE(forwarder->queuedBytes(), IoForwarder::kSendQueueLimit + IoForwarder::kReadChunk + 64);

  // Once srun reads again, every byte arrives.
  forwarder->closeTaskEnds(0);
  forwarder->taskEnded(0, 0, 0);
  std::size_t received = 0;
  bool exit_seen = false;
  while (!exit_seen) {
    auto got = frames(*forwarder, 1);
    ASSERT_EQ(got.size(), 1u);
    if (got[0].has_output()) received += got[0].output().data().size();
    exit_seen = got[0].has_exit();
  }
  EXPECT_EQ(received, written);
  closePeer();
}

TEST_F(IoForwarderTest, StdinAndSignalsFromSrun) {
  auto forwarder = connect({0, 1});
  ASSERT_TRUE(forwarder);
  auto t0 = forwarder->openTask(0);
  auto t1 = forwarder->openTask(1);
  ASSERT_TRUE(t0.ok() && t1.ok());
  std::string frames_out;
  drover::v1::StepIoToStepd input;
  input.mutable_input()->add_ranks(0);
  input.mutable_input()->set_data("to zero\n");
  input.mutable_input()->set_eof(true);
  appendFrame(input, frames_out);
  drover::v1::StepIoToStepd all;
  all.mutable_input()->set_data("to all\n");
  appendFrame(all, frames_out);
  drover::v1::StepIoToStepd sig;
  sig.mutable_signal()->set_signal(10);
  appendFrame(sig, frames_out);
  ASSERT_EQ(write(peer_, frames_out.data(), frames_out.size()),
            static_cast<ssize_t>(frames_out.size()));
  std::vector<int> signals;
  while (signals.empty()) {
    round(*forwarder, 100);
    signals = forwarder->takeSignals();
  }
  EXPECT_EQ(signals, std::vector<int>{10});
  char buf[64];
  // Task 0's stdin got its bytes, then EOF (so "to all" was not for it any more).
  std::string zero;
  for (ssize_t n; (n = read(t0->stdin_fd, buf, sizeof buf)) > 0;) zero.append(buf, n);
  EXPECT_EQ(zero, "to zero\n");
  ssize_t n = read(t1->stdin_fd, buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "to all\n");
  closePeer();
}

// srun --pty: the window_size frame resizes task 0's terminal; input is typed into it and
// what the task writes on it comes back as its stdout.
TEST_F(IoForwarderTest, TerminalTaskTakesWindowSizesInputAndOutput) {
  auto forwarder = connect({0});
  ASSERT_TRUE(forwarder);
  auto ends = forwarder->openTerminalTask(0, 24, 80, getuid());
  ASSERT_TRUE(ends.ok()) << ends.error();
  const int slave = ends->terminal_fd;
  ASSERT_GE(slave, 0);
  EXPECT_EQ(ends->stdin_fd, -1);
  winsize ws{};
  ASSERT_EQ(ioctl(slave, TIOCGWINSZ, &ws), 0);
  EXPECT_EQ(ws.ws_row, 24);
  EXPECT_EQ(ws.ws_col, 80);

  std::string frames_out;
  drover::v1::StepIoToStepd resize;
  resize.mutable_window_size()->set_rows(50);
  resize.mutable_window_size()->set_cols(132);
  appendFrame(resize, frames_out);
  drover::v1::StepIoToStepd input;
  input.mutable_input()->add_ranks(0);
  input.mutable_input()->set_data("typed\n");
  appendFrame(input, frames_out);
  ASSERT_EQ(write(peer_, frames_out.data(), frames_out.size()),
            static_cast<ssize_t>(frames_out.size()));
  // The slave reads the typed line once the frames were handled, the resize before it.
  char buf[64];
  std::string line;
  for (int i = 0; i < 50 && line.find('\n') == std::string::npos; ++i) {
    round(*forwarder, 100);
    pollfd pfd{slave, POLLIN, 0};
    if (poll(&pfd, 1, 0) > 0) {
      ssize_t n = read(slave, buf, sizeof buf);
      if (n > 0) line.append(buf, static_cast<std::size_t>(n));
    }
  }
  EXPECT_EQ(line, "typed\n");
  ASSERT_EQ(ioctl(slave, TIOCGWINSZ, &ws), 0);
  EXPECT_EQ(ws.ws_row, 50);
  EXPECT_EQ(ws.ws_col, 132);

  // Output: the echo of the typed line, then what the "task" writes (ONLCR: CR LF).
  ASSERT_EQ(write(slave, "shown\n", 6), 6);
  forwarder->closeTaskEnds(0);  // the task's side is closed: the master reads EIO, its EOF
  forwarder->taskEnded(0, 0, 0);
  std::string out;
  bool exit_seen = false;
  while (!exit_seen) {
    auto got = frames(*forwarder, 1);
    ASSERT_EQ(got.size(), 1u);
    if (got[0].has_output()) {
      EXPECT_EQ(got[0].output().stream(), drover::v1::StepIoOutput::STDOUT);
      out += got[0].output().data();
    }
    exit_seen = got[0].has_exit();
  }
  EXPECT_EQ(out, "typed\r\nshown\r\n");
  closePeer();
}

// srun's input ends mid-line: the terminal (canonical, as a shell's `cat` keeps it) gets the
// bytes, then its EOF character twice, the first ending the line, the second read as end of
// file; the acknowledgement counts srun's bytes only.
TEST_F(IoForwarderTest, TerminalEndOfInputIsItsEofCharacterAfterTheLastByte) {
  auto forwarder = connect({0});
  ASSERT_TRUE(forwarder);
  auto ends = forwarder->openTerminalTask(0, 24, 80, getuid());
  ASSERT_TRUE(ends.ok()) << ends.error();
  const int slave = ends->terminal_fd;
  termios mode{};
  ASSERT_EQ(tcgetattr(slave, &mode), 0);
  mode.c_lflag &= ~ECHO;  // only the acknowledgement comes back
  ASSERT_EQ(tcsetattr(slave, TCSANOW, &mode), 0);

  std::string frames_out;
  drover::v1::StepIoToStepd input;
  input.mutable_input()->set_data("abc");
  input.mutable_input()->set_eof(true);
  appendFrame(input, frames_out);
  ASSERT_EQ(write(peer_, frames_out.data(), frames_out.size()),
            static_cast<ssize_t>(frames_out.size()));
  auto got = frames(*forwarder, 2);  // the hello, then the acknowledgement
  ASSERT_EQ(got.size(), 2u);
  ASSERT_TRUE(got[1].has_stdin_ack());
  EXPECT_EQ(got[1].stdin_ack().delivered(), 3u);

  // Both EOF characters are in once srun's bytes were acknowledged as written.
  fcntl(slave, F_SETFL, fcntl(slave, F_GETFL) | O_NONBLOCK);
  char buf[64];
  ssize_t n = read(slave, buf, sizeof buf);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(std::string(buf, 3), "abc");
  EXPECT_EQ(read(slave, buf, sizeof buf), 0);  // end of file, as a typed Ctrl-D
  forwarder->closeTaskEnds(0);
  forwarder->taskEnded(0, 0, 0);
  closePeer();
}

TEST_F(IoForwarderTest, UnreachableSrunIsAnError) {
  close(listener_);
  listener_ = socket(AF_INET, SOCK_STREAM, 0);  // bound nowhere: the port is now closed
  auto forwarder = IoForwarder::connect(address_, IoForwarder::Hello{}, 1000);
  ASSERT_FALSE(forwarder.ok());
  EXPECT_NE(forwarder.error().find("cannot connect to srun at " + address_), std::string::npos)
      << forwarder.error();
  EXPECT_FALSE(IoForwarder::connect("no-port", IoForwarder::Hello{}).ok());
}

}  // namespace
}  // namespace drover::stepd
