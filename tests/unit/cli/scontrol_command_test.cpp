#include "cli/scontrol.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli/batch_script_write.h"
#include "cli/node_values.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;

TEST(ScontrolHostlistTest, MatchesGoldens096To099) {
  struct Case {
    std::string verb, arg, golden;
  };
  const std::vector<Case> cases = {
      {"hostnames", "node[01-03,7]", "096-scontrol-show-hostnames.txt"},
      {"hostlist", "node01,node02,node03,node07", "097-scontrol-show-hostlist.txt"},
      {"hostlist", "node3,node1,node2", "098-scontrol-show-hostlist-unsorted.txt"},
      {"hostlistsorted", "node3,node1,node2", "099-scontrol-show-hostlistsorted.txt"},
  };
  for (const auto& c : cases) {
    auto out = hostlistCommand(c.verb, c.arg);
    ASSERT_TRUE(out.ok()) << c.verb << " " << c.arg << ": " << out.error();
    EXPECT_EQ(*out, goldenStdout(c.golden)) << c.verb << " " << c.arg;
  }
}

TEST(ScontrolHostlistTest, ReadsHostFileAndRejectsBadExpressions) {
  const std::string path = ::testing::TempDir() + "/cli_hosts.txt";
  {
    std::ofstream f(path);
    f << "node2\nnode1 node3,node[5-6]\n";
  }
  auto out = hostlistCommand("hostlist", path);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(*out, "node[2,1,3,5-6]\n");
  std::remove(path.c_str());
  EXPECT_FALSE(hostlistCommand("hostnames", "node[3-").ok());
}

TEST(ScontrolUpdateTest, ParsesNodeUpdates) {
  struct Case {
    std::vector<std::string> words;
    std::string nodes, state, reason;
  };
  const std::vector<Case> cases = {
      {{"nodename=node01", "state=drain", "reason=bad dimm"}, "node01", "DRAIN", "bad dimm"},
      {{"NodeName=node[01-02]", "State=RESUME"}, "node[01-02]", "RESUME", ""},
      {{"NODENAME=node01", "STATE=Down", "REASON=dead fan"}, "node01", "DOWN", "dead fan"},
      {{"nodename=node01", "state=undrain"}, "node01", "UNDRAIN", ""},
      {{"nodename=node01", "state=idle"}, "node01", "IDLE", ""},
      {{"nodename=node01", "state=res"}, "node01", "RESUME", ""},
      {{"nodename=node01", "reason=just a note"}, "node01", "", "just a note"},
      // Double quotes at either end are dropped, each on its own, single quotes kept: what the
      // reference's scontrol stored for each of these (interactive mode keeps a line's quotes).
      {{"nodename=node01", "state=drain", "reason=\"x y\""}, "node01", "DRAIN", "x y"},
      {{"nodename=node01", "state=drain", "reason=\"x y"}, "node01", "DRAIN", "x y"},
      {{"nodename=node01", "state=drain", "reason=x\"y z\""}, "node01", "DRAIN", "x\"y z"},
      {{"nodename=node01", "state=drain", "reason='x y'"}, "node01", "DRAIN", "'x y'"},
  };
  for (const auto& c : cases) {
    auto req = parseUpdateNode(c.words);
    ASSERT_TRUE(req.ok()) << c.words[0] << " " << req.error();
    EXPECT_EQ(req->nodes(), c.nodes);
    EXPECT_EQ(req->state(), c.state);
    EXPECT_EQ(req->reason(), c.reason);
  }
}

TEST(ScontrolUpdateTest, RejectsBadUpdates) {
  struct Case {
    std::vector<std::string> words;
    std::string error_part;
  };
  const std::vector<Case> cases = {
      {{"nodename=node01", "state=drain"}, "You must specify a reason when DOWNING or DRAINING a node"},
      {{"nodename=node01", "state=down", "reason="}, "You must specify a reason"},
      {{"nodename=node01", "state=sleepy"}, "Valid states are: DRAIN DOWN IDLE RESUME UNDRAIN"},
      {{"nodename=node01", "state=d"}, "Invalid input: state=d"},
      {{"state=resume"}, "No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\""},
      {{"state=sleepy"}, "No valid entity in update command"},  // the entity first, as the reference
      {{"nodename=node01", "weight=5"}, "not supported"},
      {{"nodename=node01", "garbage"}, "Invalid input: garbage"},
  };
  for (const auto& c : cases) {
    auto req = parseUpdateNode(c.words);
    ASSERT_FALSE(req.ok()) << c.words.back();
    EXPECT_NE(req.error().find(c.error_part), std::string::npos) << req.error();
  }
}

TEST(TresTest, MemoryUnitsAsSlurm) {
  EXPECT_EQ(formatTresMemory(65536), "64G");
  EXPECT_EQ(formatTresMemory(64000), "62.50G");
  EXPECT_EQ(formatTresMemory(12000), "12000M");
  EXPECT_EQ(formatTresMemory(262144), "256G");
  EXPECT_EQ(formatTresMemory(1048576), "1T");
  EXPECT_EQ(formatTresMemory(1000), "1000M");
}

}  // namespace
}  // namespace drover::cli

namespace drover::cli {
namespace {

TEST(ScontrolWriteBatchScript, FileNamedByTheLeadingNumberAsSlurms) {
  EXPECT_EQ(defaultBatchScriptFile("7109"), "slurm-7109.sh");
  EXPECT_EQ(defaultBatchScriptFile("7109_1"), "slurm-7109.sh");   // the reference's name
  EXPECT_EQ(defaultBatchScriptFile("abc"), "slurm-0.sh");
}

TEST(ScontrolWriteBatchScript, ReadsTheJobOfTheLeadingNumberAsSlurms) {
  // The reference wrote job 7053's script (no array) for 7053_0, 7053_1, 7053_[1-2], 7053_x,
  // 7053.0 and 7053x, and array 7054's for 7054_7 (no such task); "abc" and "" named no job.
  for (const char* id : {"7053", "7053_0", "7053_1", "7053_[1-2]", "7053_x", "7053.0", "7053x"}) {
    EXPECT_EQ(batchScriptJobId(id), "7053") << id;
  }
  EXPECT_EQ(batchScriptJobId("7054_7"), "7054");
  EXPECT_EQ(batchScriptJobId("abc"), "0");
  EXPECT_EQ(batchScriptJobId(""), "0");
}

TEST(ScontrolWriteBatchScript, ArgumentErrorsAsTheReferencePrintedThem) {
  struct Case {
    std::vector<std::string> words;
    std::string stderr_text;
  };
  const std::vector<Case> cases = {
      {{"write", "bogus", "12"}, "invalid write argument:bogus\n"},
      {{"write", "batch_script", "12", "a", "b"}, "too many arguments for keyword:write\n"},
      {{"write", "batch_script"}, "too few arguments for keyword:write\n"},
      {{"write"}, "too few arguments for keyword:write\n"},
  };
  for (const auto& c : cases) {
    ::testing::internal::CaptureStderr();
    const int code = writeBatchScript(c.words);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), c.stderr_text) << c.words.size();
    EXPECT_EQ(code, 1);
  }
}

}  // namespace
}  // namespace drover::cli
