// --send-libs's library search (cli/shared_libs.h) on real ELF files of this machine: /bin/sh
// needs libc.so.6, found where the dynamic linker finds it, in LD_LIBRARY_PATH first, past a
// file there that is not a loadable object, through ld.so.conf's includes; a script needs
// nothing; --exclude's list and its directory match.
#include "cli/shared_libs.h"
#include "drover/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace drover::cli {
namespace {

namespace fs = std::filesystem;

class SharedLibsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("drover-libs-" + std::to_string(::getpid()) + "-" + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The libc.so.6 /bin/sh loads (by the system's own search).
  static std::string systemLibc() {
    auto libs = sharedLibraries("/bin/sh", "");
    EXPECT_TRUE(libs.ok());
    for (const auto& lib : *libs) {
      if (lib.name == "libc.so.6") return lib.path;
    }
    return "";
  }
  void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  fs::path dir_;
};

TEST_F(SharedLibsTest, ReadsTheDynamicSection) {
  auto info = readElfDynamic("/bin/sh");
  ASSERT_TRUE(info.ok()) << info.error();
  EXPECT_TRUE(info->dynamic);
  EXPECT_EQ(info->elf64, sizeof(void*) == 8);
  EXPECT_NE(std::find(info->needed.begin(), info->needed.end(), "libc.so.6"), info->needed.end());
  write(dir_ / "script", "#!/bin/sh\necho hi\n");
  EXPECT_FALSE(readElfDynamic((dir_ / "script").string()).ok());
  EXPECT_FALSE(readElfDynamic((dir_ / "missing").string()).ok());
}

TEST_F(SharedLibsTest, FindsLibcWhereTheLoaderDoesAndFollowsItsNeeds) {
  auto libs = sharedLibraries("/bin/sh", "");
  ASSERT_TRUE(libs.ok()) << libs.error();
  const std::string libc = systemLibc();
  ASSERT_FALSE(libc.empty());
  EXPECT_TRUE(fs::exists(libc));
  // libc needs the dynamic linker: found through libc, named by libc.
  bool loader = false;
  for (const auto& lib : *libs) {
    if (lib.name.find("ld-linux") != std::string::npos) {
      loader = true;
      EXPECT_EQ(lib.needed_by, libc);
    }
  }
  EXPECT_TRUE(loader);
  // BcastExclude's default (slurm.conf's, and cluster.conf's bcast.exclude).
  auto dirs = parseBcastExclude(config::bcastExcludeText(config::BcastConfig{}));
  ASSERT_TRUE(dirs.ok());
  EXPECT_TRUE(inExcludedDirectory(libc, *dirs));
}

TEST_F(SharedLibsTest, LdLibraryPathComesFirstAndSkipsWhatIsNotLoadable) {
  const std::string libc = systemLibc();
  fs::create_directories(dir_ / "good");
  fs::copy_file(libc, dir_ / "good" / "libc.so.6");
  write(dir_ / "bad" / "libc.so.6", "not an object");
  const std::string path = (dir_ / "bad").string() + "::" + (dir_ / "good").string();
  auto libs = sharedLibraries("/bin/sh", path);
  ASSERT_TRUE(libs.ok()) << libs.error();
  ASSERT_FALSE(libs->empty());
  EXPECT_EQ(libs->front().name, "libc.so.6");
  EXPECT_EQ(libs->front().path, (dir_ / "good" / "libc.so.6").string());
  EXPECT_EQ(libs->front().needed_by, "/bin/sh");
}

TEST_F(SharedLibsTest, LdSoConfIncludesAreSearchedBeforeTheDefaults) {
  fs::create_directories(dir_ / "conf-lib");
  fs::copy_file(systemLibc(), dir_ / "conf-lib" / "libc.so.6");
  write(dir_ / "ld.so.conf", "# comment\ninclude ld.so.conf.d/*.conf\n");
  write(dir_ / "ld.so.conf.d" / "a.conf", (dir_ / "conf-lib").string() + "  # ours\n");
  auto libs = sharedLibraries("/bin/sh", "", (dir_ / "ld.so.conf").string());
  ASSERT_TRUE(libs.ok()) << libs.error();
  ASSERT_FALSE(libs->empty());
  EXPECT_EQ(libs->front().path, (dir_ / "conf-lib" / "libc.so.6").string());
}

TEST_F(SharedLibsTest, AScriptNeedsNothingAndAMissingFileIsAnError) {
  write(dir_ / "script", "#!/bin/sh\necho hi\n");
  auto libs = sharedLibraries((dir_ / "script").string(), "");
  ASSERT_TRUE(libs.ok()) << libs.error();
  EXPECT_TRUE(libs->empty());
  EXPECT_FALSE(sharedLibraries((dir_ / "missing").string(), "").ok());
}

TEST(BcastExclude, ListsAndMatches) {
  EXPECT_TRUE(parseBcastExclude("NONE")->empty());
  EXPECT_TRUE(parseBcastExclude("none")->empty());
  EXPECT_EQ(*parseBcastExclude("/opt/lib/,/usr/lib"),
            (std::vector<std::string>{"/opt/lib", "/usr/lib"}));
  EXPECT_FALSE(parseBcastExclude("/usr/lib,lib").ok());
  const std::vector<std::string> dirs{"/usr/lib", "/lib"};
  EXPECT_TRUE(inExcludedDirectory("/usr/lib/x86_64-linux-gnu/libc.so.6", dirs));
  EXPECT_TRUE(inExcludedDirectory("/lib/libm.so.6", dirs));
  EXPECT_FALSE(inExcludedDirectory("/usr/lib64/libm.so.6", dirs));
  EXPECT_FALSE(inExcludedDirectory("/usr/libexec/x.so", dirs));
  EXPECT_FALSE(inExcludedDirectory("/home/u/libfoo.so", dirs));
  EXPECT_TRUE(inExcludedDirectory("/anything.so", {"/"}));
}

}  // namespace
}  // namespace drover::cli
