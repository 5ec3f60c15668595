// StepIoServer against a node connection that dies mid-round: a raw TCP client in this process
// speaks the supervisor's side of the protocol (a hello), then resets the connection, so the
// server's next send to it fails at a chosen moment.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "drover/v1/step_io.pb.h"
#include "stepd/io_frames.h"
#include "stepio/step_io_server.h"

namespace drover::stepio {
namespace {

int connectTo(std::uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Closes with a reset (linger 0), as a node whose supervisor was killed may: the server's
// next send to it fails instead of filling a buffer.
void resetConnection(int fd) {
  linger hard{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  close(fd);
}

// srun -i 0 (stdin to task 0) while a signal is forwarded: in one poll round the signal's
// frame to task 0's node fails (the node reset its connection), which ends the task as lost,
// and srun's input is readable too. The input then has no connection to go to; it is dropped,
// and the step ends with the task lost (before the fix, readStdin sent it through the task's
// connection pointer, which closing the connection had just cleared: a null dereference).
TEST(StepIoLostConnection, InputAfterTheTasksConnectionFailedInTheSameRoundIsDropped) {
  int input[2];
  ASSERT_EQ(pipe2(input, O_CLOEXEC), 0);
  const int sink = open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(sink, 0);
  StepIoOptions options;
  options.listen_host = "127.0.0.1";
  options.num_tasks = 1;
  options.stdin_mode = StdinMode::kOneTask;
  options.stdin_task = 0;
  options.stdin_fd = input[0];
  options.stdout_fd = sink;
  options.stderr_fd = sink;
  auto server = StepIoServer::listen(options);
  ASSERT_TRUE(server.ok()) << server.error();
  StepIoServer& srv = **server;

  const int node = connectTo(srv.port());
  ASSERT_GE(node, 0);
  drover::v1::StepIoFromStepd hello;
  hello.mutable_hello()->set_io_key(srv.key());
  hello.mutable_hello()->set_node_id(0);
  hello.mutable_hello()->set_node_name("node01");
  hello.mutable_hello()->add_ranks(0);
  std::string frame;
  stepd::appendFrame(hello, frame);
  ASSERT_EQ(write(node, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
  for (int round = 0; round < 50 && srv.connectedNodes() == 0; ++round) srv.runOnce(100);
  ASSERT_EQ(srv.connectedNodes(), 1u);

  resetConnection(node);
  ASSERT_EQ(write(input[1], "x\n", 2), 2);
  srv.forwardSignal(SIGINT);
  for (int round = 0; round < 50 && !srv.done(); ++round) srv.runOnce(100);

  ASSERT_TRUE(srv.done());
  const auto ends = srv.taskEnds();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_TRUE(ends[0].lost);
  EXPECT_EQ(ends[0].node_name, "node01");
  server->reset();
  close(input[0]);
  close(input[1]);
  close(sink);
}

}  // namespace
}  // namespace drover::stepio
