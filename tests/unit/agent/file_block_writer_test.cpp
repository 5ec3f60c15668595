// sbcast on a node (agent/file_block_writer.h): blocks written as the job's user, never as
// root. Run as root (as the tests are), the writer takes the user's uid and gid, so the file
// is theirs, a directory they may not write refuses it, and -f/-p behave as sbcast's.
#include "agent/file_block_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace drover::agent {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

class FileBlockWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to write as another user";
    dir_ = std::filesystem::temp_directory_path() /
           ("file_block_writer_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "open");
    std::filesystem::create_directories(dir_ / "closed");
    ::chmod((dir_ / "open").c_str(), 0777);
    ::chmod((dir_ / "closed").c_str(), 0755);   // root's: nobody may not create files here
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  FileBlock block(const std::filesystem::path& path, std::uint64_t offset, std::string_view data,
                  bool last) {
    FileBlock b;
    b.uid = kNobody;
    b.gid = kNogroup;
    b.groups = {kNogroup};
    b.path = path.string();
    b.offset = offset;
    b.data = data;
    b.last = last;
    return b;
  }
  static std::string contents(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path dir_;
};

TEST_F(FileBlockWriterTest, BlocksMakeTheUsersFile) {
  const auto path = dir_ / "open" / "copy";
  EXPECT_EQ(writeFileBlockAsUser(block(path, 0, "hello ", false)), 0);
  EXPECT_EQ(writeFileBlockAsUser(block(path, 6, "world", true)), 0);
  EXPECT_EQ(contents(path), "hello world");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_gid, kNogroup);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST_F(FileBlockWriterTest, ExistingFileNeedsForce) {
  const auto path = dir_ / "open" / "copy";
  EXPECT_EQ(writeFileBlockAsUser(block(path, 0, "first version", true)), 0);
  EXPECT_EQ(writeFileBlockAsUser(block(path, 0, "second", true)), EEXIST);
  auto forced = block(path, 0, "second", true);
  forced.force = true;
  EXPECT_EQ(writeFileBlockAsUser(forced), 0);
  EXPECT_EQ(contents(path), "second");   // truncated, not overwritten in place
}

TEST_F(FileBlockWriterTest, UsersPermissionsApply) {
  EXPECT_EQ(writeFileBlockAsUser(block(dir_ / "closed" / "copy", 0, "x", true)),
            EACCES);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "closed" / "copy"));
  // A root-owned file in a directory the user may write is still not the user's to replace.
  const auto roots = dir_ / "open" / "roots";
  std::ofstream(roots) << "root's";
  ::chmod(roots.c_str(), 0644);
  auto forced = block(roots, 0, "x", true);
  forced.force = true;
  EXPECT_EQ(writeFileBlockAsUser(forced), EACCES);
  EXPECT_EQ(contents(roots), "root's");
}

TEST_F(FileBlockWriterTest, PreserveSetsModeAndTimesOnTheLastBlock) {
  const auto path = dir_ / "open" / "kept";
  auto b = block(path, 0, "data", true);
  b.preserve = true;
  b.mode = 0640;
  b.atime = 1000000000;
  b.mtime = 1100000000;
  EXPECT_EQ(writeFileBlockAsUser(b), 0);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_atim.tv_sec, 1000000000);
  EXPECT_EQ(st.st_mtim.tv_sec, 1100000000);
}

TEST_F(FileBlockWriterTest, LaterBlockOfAMissingFileFails) {
  EXPECT_EQ(writeFileBlockAsUser(block(dir_ / "open" / "gone", 100, "x", true)),
            ENOENT);
}

}  // namespace
}  // namespace drover::agent
