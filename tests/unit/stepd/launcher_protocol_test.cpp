// The launcher's wire format: what droverd sends and the launcher answers, and every way a
// message can be wrong (each a clear error, never a crash or a read past the end).
#include "stepd/launcher_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace drover::stepd {
namespace {

std::string u32(std::uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A payload from raw strings, for messages the encoders would never write.
std::string strings(const std::vector<std::string>& items) {
  std::string out = u32(static_cast<std::uint32_t>(items.size()));
  for (const auto& item : items) out += u32(static_cast<std::uint32_t>(item.size())) + item;
  return out;
}

class SocketPair {
 public:
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  ~SocketPair() {
    closeWriter();
    ::close(fds_[0]);
  }
  int reader() const { return fds_[0]; }
  int writer() const { return fds_[1]; }
  void send(const std::string& bytes) {
    ASSERT_EQ(::write(fds_[1], bytes.data(), bytes.size()), ssize_t(bytes.size()));
  }
  void closeWriter() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

TEST(LauncherProtocolTest, OrderRoundTripsWithBinaryRequestAndEmptyArguments) {
  LaunchOrder order;
  order.log_path = "/spool/steps/7.-5.log";
  order.request = std::string("\0\x01\xff request", 11);
  order.argv = {"/bin/drover-stepd", "--spool", "/spool", "--groups", ""};
  auto decoded = decodeLaunchOrder(encodeLaunchOrder(order));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded->log_path, order.log_path);
  EXPECT_EQ(decoded->request, order.request);
  EXPECT_EQ(decoded->argv, order.argv);
}

TEST(LauncherProtocolTest, RepliesRoundTrip) {
  auto pid = decodeLaunchReply(encodeLaunchReply(LaunchReply{4242, {}}));
  ASSERT_TRUE(pid.ok()) << pid.error();
  EXPECT_EQ(pid->pid, 4242);
  EXPECT_TRUE(pid->error.empty());
  auto error = decodeLaunchReply(encodeLaunchReply(LaunchReply{0, "cannot open step log x"}));
  ASSERT_TRUE(error.ok()) << error.error();
  EXPECT_EQ(error->pid, 0);
  EXPECT_EQ(error->error, "cannot open step log x");
}

struct BadCase {
  std::string name;
  std::string payload;
  std::string expected;   // a part of the error
};

TEST(LauncherProtocolTest, MalformedOrdersAreClearErrors) {
  const std::string good = encodeLaunchOrder(LaunchOrder{"/log", "req", {"/bin/stepd"}});
  const std::vector<BadCase> cases = {
      {"empty", "", "too short for the 4-byte string count"},
      {"count cut", std::string("\x01\x00", 2), "too short"},
      {"count beyond the bytes", u32(1000) + u32(0), "claims 1000 strings in 4 bytes"},
      {"huge count", u32(0xffffffff), "claims 4294967295 strings"},
      {"length cut", u32(2) + u32(4) + "abcd" + std::string("\x01\x00", 2),
       "string 2 of 2 has no length"},
      {"string longer than the rest", u32(1) + u32(50) + "short", "claims 50 bytes, 5 left"},
      {"string without length", u32(2) + u32(0) + "abcd", "string 2 of 2"},
      {"trailing bytes", good + "zz", "2 bytes after the last string"},
      {"no strings", strings({}), "the order is empty"},
      {"wrong tag", strings({"lunch", "/log", "req", "/bin/stepd"}), "not \"lunch\""},
      {"no argv", strings({"launch", "/log", "req"}), "3 strings"},
      {"only the tag", strings({"launch"}), "1 strings"},
      {"empty log path", strings({"launch", "", "req", "/bin/stepd"}), "log path is empty"},
  };
  for (const auto& c : cases) {
    auto decoded = decodeLaunchOrder(c.payload);
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_NE(decoded.error().find(c.expected), std::string::npos)
        << c.name << ": " << decoded.error();
    EXPECT_EQ(decoded.error().rfind("launcher launch order: ", 0), 0u) << c.name;
  }
}

TEST(LauncherProtocolTest, MalformedRepliesAreClearErrors) {
  const std::vector<BadCase> cases = {
      {"empty", "", "too short"},
      {"one string", strings({"pid"}), "1 strings; expected 2"},
      {"three strings", strings({"pid", "1", "2"}), "3 strings; expected 2"},
      {"unknown kind", strings({"pidfd", "3"}), "unknown kind \"pidfd\""},
      {"zero pid", strings({"pid", "0"}), "\"0\" is not a process id"},
      {"negative pid", strings({"pid", "-5"}), "\"-5\" is not a process id"},
      {"pid with junk", strings({"pid", "12x"}), "\"12x\" is not a process id"},
      {"empty pid", strings({"pid", ""}), "\"\" is not a process id"},
      {"pid too large", strings({"pid", "99999999999"}), "is not a process id"},
      {"cut", u32(1) + u32(3) + "pi", "claims 3 bytes, 2 left"},
      {"count beyond the bytes", u32(2) + u32(3) + "pi", "claims 2 strings in 6 bytes"},
  };
  for (const auto& c : cases) {
    auto decoded = decodeLaunchReply(c.payload);
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_NE(decoded.error().find(c.expected), std::string::npos)
        << c.name << ": " << decoded.error();
  }
  // An error reply without a message still says something.
  auto silent = decodeLaunchReply(strings({"error", ""}));
  ASSERT_TRUE(silent.ok());
  EXPECT_EQ(silent->error, "the launcher gave no reason");
}

TEST(LauncherProtocolTest, FramesArriveWholeAndInOrder) {
  SocketPair pair;
  ASSERT_TRUE(writeFrame(pair.writer(), "first").ok());
  ASSERT_TRUE(writeFrame(pair.writer(), "").ok());
  // Still within the socket's buffer, so one process can write it before reading.
  ASSERT_TRUE(writeFrame(pair.writer(), std::string(60000, 'x')).ok());
  auto a = readFrame(pair.reader(), 1000);
  auto b = readFrame(pair.reader(), 1000);
  ASSERT_TRUE(a.ok() && *a) << (a.ok() ? "" : a.error());
  EXPECT_EQ(**a, "first");
  ASSERT_TRUE(b.ok() && *b);
  EXPECT_EQ(**b, "");
  pair.closeWriter();
  auto c = readFrame(pair.reader(), 1000);
  ASSERT_TRUE(c.ok() && *c) << (c.ok() ? "" : c.error());
  EXPECT_EQ(c->value().size(), 60000u);
  // Then the writer's end: a clean end between frames.
  auto end = readFrame(pair.reader(), 1000);
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_FALSE(end->has_value());
}

TEST(LauncherProtocolTest, BrokenFramesAreClearErrors) {
  struct Case {
    std::string name;
    std::string bytes;
    bool close_after;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"length cut by the end", std::string("\x05\x00", 2), true,
       "closed inside a frame's length (2 of 4 bytes)"},
      {"payload cut by the end", u32(10) + "abc", true, "closed inside a frame (3 of 10 bytes)"},
      {"over the limit", u32(kMaxLauncherFrame + 1), false, "over the limit"},
      {"nothing in time", "", false, "no complete launcher message within 50 ms"},
      {"payload late", u32(10) + "abc", false, "3 of 10 bytes came"},
  };
  for (const auto& c : cases) {
    SocketPair pair;
    if (!c.bytes.empty()) pair.send(c.bytes);
    if (c.close_after) pair.closeWriter();
    auto frame = readFrame(pair.reader(), 50);
    ASSERT_FALSE(frame.ok()) << c.name;
    EXPECT_NE(frame.error().find(c.expected), std::string::npos) << c.name << ": "
                                                                 << frame.error();
  }
}

TEST(LauncherProtocolTest, WritingToAClosedPeerIsAnErrorNotSigpipe) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ::close(fds[0]);
  auto sent = writeFrame(fds[1], "order");
  ::close(fds[1]);
  ASSERT_FALSE(sent.ok());
  EXPECT_NE(sent.error().find("cannot write to the launcher connection"), std::string::npos)
      << sent.error();
}

}  // namespace
}  // namespace drover::stepd
