// How sinfo's partition view groups rows across partitions, against the reference Slurm 22.05's
// own output (golden/sinfo-merge/, README there): without a column naming the partition, the
// rows of gpu and debug merge where their printed values agree, each node counted once; -N keeps
// a row per node and partition; -s is ignored beside -o.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "cli/sinfo.h"
#include "cli/sinfo_view.h"
#include "reference_cluster.h"
#include "sinfo_render.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;
using testing::kCaptureTime;
using testing::NodeBuilder;
using testing::referencePartitions;

// The reference's nodes while golden/sinfo-merge/01-17 were captured.
std::vector<v1::NodeInfo> capturedNodes() {
  return {
      NodeBuilder("node01").port(6831).partitions({"gpu", "debug"}).build(),
      NodeBuilder("node02").port(6832).state(v1::NODE_MIXED).alloc(4, 16000, 0).partitions({"gpu", "debug"}).build(),
      NodeBuilder("node03").port(6833).partitions({"gpu"}).drain("probe").build(),
      NodeBuilder("node04").port(6834).state(v1::NODE_ALLOCATED).alloc(16, 65536, 0).partitions({"gpu"}).build(),
  };
}

std::string render(const std::vector<std::string>& args, const std::vector<v1::NodeInfo>& nodes) {
  return testing::renderSinfoArgs(args, nodes);
}

struct Case {
  std::string golden;
  std::vector<std::string> args;
};

class SinfoMergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void expectGoldens(const std::vector<Case>& cases, const std::vector<v1::NodeInfo>& nodes) {
    for (const auto& c : cases) {
      EXPECT_EQ(render(c.args, nodes), goldenStdout("sinfo-merge/" + c.golden + ".txt")) << c.golden;
    }
  }
};

TEST_F(SinfoMergeTest, RowsMergeAcrossPartitionsUnlessOneIsNamed) {
  expectGoldens({{"01-default", {}},
                 {"02-N-t", {"-o", "%N %t"}},
                 {"03-D-t", {"-o", "%D %t"}},
                 {"04-F-N", {"-o", "%F %N"}},
                 {"05-C-t", {"-o", "%C %t"}},
                 {"06-N-l-t", {"-o", "%N %l %t"}},
                 {"07-a-D-N", {"-o", "%a %D %N"}},
                 {"12-O-StateLong-Nodes-NodeList", {"-O", "StateLong,Nodes,NodeList"}},
                 {"13-p-debug-N-t", {"-p", "debug", "-o", "%N %t"}},
                 {"14-A", {"-o", "%A"}},
                 {"15-E-D-N", {"-o", "%E %D %N"}}},
                capturedNodes());
}

TEST_F(SinfoMergeTest, NodeOrientedKeepsARowPerNodeAndPartition) {
  expectGoldens({{"10-node-N-t", {"-N", "-o", "%N %t"}},
                 {"11-node-D-t", {"-N", "-o", "%D %t"}},
                 {"17-summarize-N", {"-s", "-N"}}},
                capturedNodes());
}

TEST_F(SinfoMergeTest, SummarizeMergesLikeTheOthersAndGivesWayToFormat) {
  expectGoldens({{"08-summarize-D-F-C", {"-s", "-o", "%D %F %C %N"}},
                 {"09-summarize", {"-s"}},
                 {"16-summarize-o-D-t", {"-s", "-o", "%D %t"}}},
                capturedNodes());
}

TEST_F(SinfoMergeTest, FlaggedStatesSortAboveEveryBaseState) {
  auto nodes = capturedNodes();
  nodes[0] = NodeBuilder("node01").port(6831).state(v1::NODE_DOWN).partitions({"gpu", "debug"}).build();
  nodes[0].set_reason("probe2");
  nodes[1] = NodeBuilder("node02").port(6832).state(v1::NODE_MIXED).alloc(4, 16000, 0)
                 .partitions({"gpu", "debug"}).drain("probe3").build();
  expectGoldens({{"18-down-draining-default", {}},
                 {"19-down-draining-E-D-t-N", {"-o", "%E %D %t %N"}}},
                nodes);
}

TEST_F(SinfoMergeTest, NotRespondingSortsAboveDrainedAndDrainedNotRespondingAboveBoth) {
  // The reference with node02's slurmd stopped (idle*), node03 drained and node04 drained with
  // its slurmd stopped (drain*): drain* above idle* above drain above idle (20-25, README).
  std::vector<v1::NodeInfo> nodes = {
      NodeBuilder("node01").port(6831).partitions({"gpu", "debug"}).build(),
      NodeBuilder("node02").port(6832).partitions({"gpu", "debug"}).notResponding().build(),
      NodeBuilder("node03").port(6833).partitions({"gpu"}).drain("maint").build(),
      NodeBuilder("node04").port(6834).partitions({"gpu"}).drain("gone").notResponding().build(),
  };
  nodes[2].set_reason_time(1796196827);  // 2026-12-02T07:33:47Z
  nodes[3].set_reason_time(1796197013);  // 2026-12-02T07:36:53Z
  expectGoldens({{"20-not-responding-default", {}},
                 {"21-not-responding-N-t", {"-o", "%N %t"}},
                 {"22-not-responding-E-D-t-N", {"-o", "%E %D %t %N"}},
                 {"23-not-responding-node-t", {"-N", "-o", "%N %t %T"}},
                 {"24-not-responding-d", {"-d"}},
                 {"25-not-responding-R", {"-R"}}},
                nodes);
}

TEST_F(SinfoMergeTest, ReasonsListInTheReferencesOrder) {
  // sinfo-merge/26: by each node's last configured partition (node03 is in gpu alone), then
  // by state, then by name; not by reason or time.
  std::vector<v1::NodeInfo> nodes = {
      NodeBuilder("node01").port(6831).partitions({"gpu", "debug"}).drain("alpha").build(),
      NodeBuilder("node02").port(6832).partitions({"gpu", "debug"}).drain("zeta").build(),
      NodeBuilder("node03").port(6833).partitions({"gpu"}).drain("beta").build(),
      NodeBuilder("node04").port(6834).partitions({"gpu"}).build(),
  };
  nodes[0].set_reason_time(1796199957);  // 2026-12-02T08:25:57Z
  nodes[1].set_reason_time(1796199958);
  nodes[2].set_reason_time(1796199959);
  expectGoldens({{"26-reasons-R", {"-R"}}}, nodes);
}

TEST_F(SinfoMergeTest, EmptyPartitionRowOnlyWhenAColumnNamesIt) {
  // The reference with an added node-less partition "empty" (scontrol create, not captured to a
  // file): "empty 0" under %R, nothing under "%D %t" or "%l %D".
  auto parts = referencePartitions();
  parts.push_back(testing::partition("empty", "", false, 5, -1, 1, 0));
  auto text = [&parts](std::vector<std::string> args) {
    auto cmd = parseSinfoArgs(args);
    EXPECT_TRUE(cmd.ok());
    auto out = renderSinfo(cmd->options, capturedNodes(), parts, kCaptureTime);
    EXPECT_TRUE(out.ok());
    return out.ok() ? *out : std::string();
  };
  EXPECT_EQ(text({"-o", "%R %D"}), "PARTITION NODES\ngpu 4\ndebug 2\nempty 0\n");
  EXPECT_EQ(text({"-o", "%l %D"}), "TIMELIMIT NODES\n1-00:00:00 4\n30:00 2\n");
  EXPECT_EQ(text({"-o", "%D %t"}), goldenStdout("sinfo-merge/03-D-t.txt"));
  EXPECT_EQ(text({"-p", "empty", "-o", "%D %t"}), "NODES STATE\n");
  EXPECT_EQ(text({"-p", "empty", "-o", "%P %D %t"}), "PARTITION NODES STATE\nempty 0 n/a\n");
}

TEST_F(SinfoMergeTest, AllAndAPartitionConflictAsTheReferenceSaid) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-a", "-p", "gpu"}, {"-p", "gpu", "--all"}}) {
    auto cmd = parseSinfoArgs(args);
    ASSERT_FALSE(cmd.ok()) << args[0];
    EXPECT_EQ(cmd.error(),
              "Conflicting options, -a and -p, specified. Please choose one or the other.");
  }
  EXPECT_TRUE(parseSinfoArgs({"-a"}).ok());
}

}  // namespace
}  // namespace drover::cli
