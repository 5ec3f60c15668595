// sbcast's options (man sbcast) and srun --bcast's destination and executable rules.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "cli/file_broadcast.h"
#include "cli/sbcast.h"
#include "cli/bcast_defaults.h"
#include "cli/srun_bcast.h"
#include "common/bcast_path.h"

namespace drover::cli {
namespace {

TEST(SbcastArgs, EveryOptionAndTheTwoFiles) {
  auto cmd = parseSbcastArgs({"-f", "-p", "-C", "-F", "4", "-j", "12.3", "-s", "2m", "-t", "30",
                              "-v", "-v", "src.bin", "/tmp/dst.bin"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_TRUE(cmd->force);
  EXPECT_TRUE(cmd->preserve);
  EXPECT_EQ(cmd->compress, "lz4");
  EXPECT_EQ(cmd->fanout, 4);
  ASSERT_TRUE(cmd->job);
  EXPECT_EQ(cmd->job->job_id, 12u);
  EXPECT_EQ(cmd->job->step_id, 3);
  EXPECT_EQ(cmd->block_size, 2u << 20);
  EXPECT_EQ(cmd->timeout_s, 30);
  EXPECT_EQ(cmd->verbose, 2);
  EXPECT_EQ(cmd->files, (std::vector<std::string>{"src.bin", "/tmp/dst.bin"}));
  auto files = sbcastFiles(*cmd);
  ASSERT_TRUE(files.ok()) << files.error();
  EXPECT_EQ(files->source, "src.bin");
  EXPECT_EQ(files->dest, "/tmp/dst.bin");
}

TEST(SbcastArgs, LongFormsAndOptionsAfterTheFiles) {
  auto cmd = parseSbcastArgs({"a", "/b", "--force", "--preserve", "--compress=none",
                              "--jobid=7+0", "--size=512k", "--timeout=5", "--fanout=8",
                              "--send-libs", "--exclude=NONE"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_TRUE(cmd->force);
  EXPECT_TRUE(cmd->preserve);
  EXPECT_EQ(cmd->compress, "none");
  EXPECT_EQ(cmd->job->job_id, 7u);
  EXPECT_FALSE(cmd->job->step_id);
  EXPECT_EQ(cmd->block_size, 512u * 1024);
  EXPECT_EQ(cmd->send_libs, true);
  EXPECT_EQ(cmd->exclude, "NONE");
  EXPECT_EQ(parseSbcastArgs({"--send-libs=no", "a", "b"})->send_libs, false);
  EXPECT_EQ(parseSbcastArgs({"a", "b"})->send_libs, std::nullopt);  // cluster.conf's bcast.send_libs
  EXPECT_EQ(parseSbcastArgs({"-C", "a", "b"})->compress, "lz4");
  EXPECT_EQ(parseSbcastArgs({"--compress=zlib", "a", "b"})->compress, "zlib");
  EXPECT_EQ(parseSbcastArgs({"--exclude=/opt/lib,/usr/lib", "a", "b"})->exclude,
            "/opt/lib,/usr/lib");
  EXPECT_EQ(cmd->files, (std::vector<std::string>{"a", "/b"}));
}

TEST(SbcastArgs, Errors) {
  // A wrong count of names parses; sbcastFiles says what is wrong (printed as usage).
  for (const auto& [names, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"only"}, "Need two file names, have 1 names"},
           {{"a", "b", "c"}, "Need two file names, have 3 names"},
           {{"-f"}, "Need two file names, have 0 names"},
           {{"a", ""}, "Need two file names, have an empty one"}}) {
    auto cmd = parseSbcastArgs(names);
    ASSERT_TRUE(cmd.ok()) << cmd.error();
    auto files = sbcastFiles(*cmd);
    ASSERT_FALSE(files.ok());
    EXPECT_EQ(files.error(), why);
  }
  auto bad = parseSbcastArgs({"--bogus", "a", "b"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("unrecognized option '--bogus'"), std::string::npos);
  EXPECT_FALSE(parseSbcastArgs({"-C", "-Czstd", "a", "b"}).ok());
  EXPECT_FALSE(parseSbcastArgs({"-t", "0", "a", "b"}).ok());
  EXPECT_FALSE(parseSbcastArgs({"-F", "x", "a", "b"}).ok());
  EXPECT_FALSE(parseSbcastArgs({"--send-libs=maybe", "a", "b"}).ok());
  auto relative = parseSbcastArgs({"--exclude=/usr/lib,lib", "a", "b"});
  ASSERT_FALSE(relative.ok());
  EXPECT_EQ(relative.error(), "Invalid exclude path 'lib': not an absolute directory");
  // --version needs no files.
  auto version = parseSbcastArgs({"-V"});
  ASSERT_TRUE(version.ok());
  EXPECT_TRUE(version->version);
}

TEST(SbcastJobId, Forms) {
  EXPECT_EQ(parseSbcastJobId("42")->job_id, 42u);
  EXPECT_FALSE(parseSbcastJobId("42")->step_id);
  EXPECT_EQ(parseSbcastJobId("42.0")->step_id, 0);
  EXPECT_EQ(parseSbcastJobId("42+0.5")->step_id, 5);
  for (const char* bad : {"", "x", "0", "42.", "42.batch", "42+", ".3", "-1", "42.3.4",
                          "99999999999999999999"}) {
    EXPECT_FALSE(parseSbcastJobId(bad).ok()) << bad;
  }
  auto het = parseSbcastJobId("42+1");
  ASSERT_FALSE(het.ok());
  EXPECT_NE(het.error().find("heterogeneous"), std::string::npos);
}

TEST(SbcastSize, SuffixesAndBounds) {
  EXPECT_EQ(*parseSbcastSize("4096"), 4096u);
  EXPECT_EQ(*parseSbcastSize("4k"), 4096u);
  EXPECT_EQ(*parseSbcastSize("4K"), 4096u);
  EXPECT_EQ(*parseSbcastSize("1m"), 1u << 20);
  EXPECT_FALSE(parseSbcastSize("0").ok());
  EXPECT_FALSE(parseSbcastSize("k").ok());
  EXPECT_FALSE(parseSbcastSize("1g").ok());
  // One block travels in one gRPC message (4 MiB): -s is bounded to 3 MiB, at least 1 KiB.
  EXPECT_EQ(boundedBlockSize(0), kMaxBroadcastBlock);
  EXPECT_EQ(boundedBlockSize(8u << 20), kMaxBroadcastBlock);
  EXPECT_EQ(boundedBlockSize(10), 1024u);
  EXPECT_EQ(boundedBlockSize(65536), 65536u);
}

TEST(BcastPath, DirectoryGetsSlurmsNamePerNode) {
  EXPECT_EQ(bcastPath("/tmp/prog", 12, "0", "node1"), "/tmp/prog");
  EXPECT_EQ(bcastPath("/tmp/", 12, "3", "node1"), "/tmp/slurm_bcast_12.3_node1");
  EXPECT_EQ(bcastPath("/tmp/", 12, "3", "node2"), "/tmp/slurm_bcast_12.3_node2");
  EXPECT_EQ(bcastFileName(7, "batch", "gpu001"), "slurm_bcast_7.batch_gpu001");
  EXPECT_TRUE(isBcastDirectory("/x/"));
  EXPECT_FALSE(isBcastDirectory("/x"));
  EXPECT_FALSE(isBcastDirectory(""));
}

TEST(SrunBcast, Destination) {
  // --bcast alone: --chdir, else the current directory, as a directory.
  EXPECT_EQ(bcastDestination("", std::nullopt, "/home/alice"), "/home/alice/");
  EXPECT_EQ(bcastDestination("", std::string("/scratch"), "/home/alice"), "/scratch/");
  EXPECT_EQ(bcastDestination("", std::string("work"), "/home/alice"), "/home/alice/work/");
  // A path: that file; a path ending in '/': that directory; relative from the current one.
  EXPECT_EQ(bcastDestination("/tmp/mine", std::nullopt, "/home/alice"), "/tmp/mine");
  // BcastParameters' DestDir comes before --chdir (man srun), a given path before both.
  EXPECT_EQ(bcastDestination("", std::string("/scratch"), "/home/alice", "/local"), "/local/");
  EXPECT_EQ(bcastDestination("mine", std::nullopt, "/home/alice", "/local"), "/home/alice/mine");
  EXPECT_EQ(bcastDestination("/tmp/", std::nullopt, "/home/alice"), "/tmp/");
  EXPECT_EQ(bcastDestination("copy", std::string("/scratch"), "/home/alice"), "/home/alice/copy");
}

TEST(SrunBcast, FindsTheExecutableAsSrunRunsIt) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sbcast_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "bin");
  const auto prog = dir / "bin" / "tool";
  std::ofstream(prog) << "#!/bin/sh\n";
  ::chmod(prog.c_str(), 0755);
  const auto plain = dir / "bin" / "data";
  std::ofstream(plain) << "x";
  ::chmod(plain.c_str(), 0644);
  const std::string path_env = "/nonexistent:" + (dir / "bin").string();
  EXPECT_EQ(findExecutable("tool", path_env, "/"), prog.string());
  EXPECT_FALSE(findExecutable("data", path_env, "/"));   // not executable
  EXPECT_FALSE(findExecutable("missing", path_env, "/"));
  EXPECT_EQ(findExecutable("bin/tool", "", dir.string()), (dir / "bin/tool").string());
  EXPECT_EQ(findExecutable(prog.string(), "", "/"), prog.string());
  // An empty PATH entry is the current directory.
  EXPECT_EQ(findExecutable("tool", ":/nonexistent", (dir / "bin").string()),
            (dir / "bin" / "tool").string());
  std::filesystem::remove_all(dir);
}

TEST(BcastDefaults, AnOptionGivenWinsElseClusterConfsBcastSection) {
  config::BcastConfig conf;
  EXPECT_EQ(bcastCodecFor(std::nullopt, conf), BcastCodec::kNone);
  EXPECT_EQ(bcastCodecFor(std::string(""), conf), BcastCodec::kLz4);  // -C alone
  EXPECT_FALSE(sendLibsFor(std::nullopt, conf));
  EXPECT_EQ(bcastExcludeFor(std::nullopt, conf), "/lib,/usr/lib,/lib64,/usr/lib64");
  EXPECT_EQ(bcastDirectoryFor(conf, "/home/alice"), "/home/alice");
  conf.compression = "zlib";
  conf.send_libs = true;
  conf.exclude.clear();
  conf.dest_dir = "/scratch";
  EXPECT_EQ(bcastCodecFor(std::nullopt, conf), BcastCodec::kZlib);
  EXPECT_EQ(bcastCodecFor(std::string("none"), conf), BcastCodec::kNone);
  EXPECT_EQ(bcastCodecFor(std::string(""), conf), BcastCodec::kLz4);
  EXPECT_TRUE(sendLibsFor(std::nullopt, conf));
  EXPECT_FALSE(sendLibsFor(false, conf));
  EXPECT_EQ(bcastExcludeFor(std::nullopt, conf), "none");
  EXPECT_EQ(bcastExcludeFor(std::string("/opt"), conf), "/opt");
  EXPECT_EQ(bcastDirectoryFor(conf, "/home/alice"), "/scratch");
}

}  // namespace
}  // namespace drover::cli
