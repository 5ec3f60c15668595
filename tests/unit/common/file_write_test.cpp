// replaceFile: the new contents whole or the old ones, never a temporary left behind; writeAll:
// everything written, also past a pipe's capacity.
#include "common/file_write.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace drover {
namespace {

namespace fs = std::filesystem;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class FileWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("drover-file-write-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileWrite, ReplaceFileSwapsContentsWholeAndLeavesNoTemporary) {
  const std::string path = (dir_ / "f").string();
  EXPECT_EQ(replaceFile(path, "first\n"), 0);
  EXPECT_EQ(replaceFile(path, "second\n"), 0);
  EXPECT_EQ(contents(path), "second\n");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  // A rename that fails (over a non-empty directory) keeps the old contents and no temporary.
  const std::string blocked = (dir_ / "d").string();
  fs::create_directories(fs::path(blocked) / "inside");
  EXPECT_NE(replaceFile(blocked, "x"), 0);
  EXPECT_TRUE(fs::is_directory(blocked));
  EXPECT_FALSE(fs::exists(blocked + ".tmp"));
  EXPECT_EQ(replaceFile((dir_ / "missing" / "f").string(), "x"), ENOENT);
}

TEST_F(FileWrite, WriteAllContinuesShortWritesAndReportsAClosedReader) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string big(1 << 20, 'x');  // far more than a pipe holds: several short writes
  std::string read_back;
  std::thread reader([&] {
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) read_back.append(buf, static_cast<std::size_t>(n));
  });
  EXPECT_TRUE(writeAll(fds[1], big));
  ::close(fds[1]);
  reader.join();
  EXPECT_EQ(read_back.size(), big.size());

  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  signal(SIGPIPE, SIG_IGN);
  errno = 0;
  EXPECT_FALSE(writeAll(fds[1], "lost"));
  EXPECT_EQ(errno, EPIPE);
  ::close(fds[1]);
}

}  // namespace
}  // namespace drover
