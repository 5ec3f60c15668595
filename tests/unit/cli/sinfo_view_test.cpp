#include "cli/sinfo_view.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "cli/cli_common.h"
#include "cli/sinfo.h"
#include "cli/sinfo_reservations.h"
#include "reference_cluster.h"
#include "sinfo_render.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;
using testing::kCaptureTime;
using testing::NodeBuilder;
using testing::referenceNodes;
using testing::referencePartitions;

class SinfoViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);  // the goldens were captured with TZ=UTC
    tzset();
  }
  std::string render(const std::vector<std::string>& args,
                     const std::vector<v1::NodeInfo>& nodes = referenceNodes()) {
    return testing::renderSinfoArgs(args, nodes);
  }
};

TEST_F(SinfoViewTest, DefaultViewMatchesGolden080) {
  EXPECT_EQ(render({}), goldenStdout("080-sinfo-default.txt"));
}

TEST_F(SinfoViewTest, NodeLongMatchesGolden081IncludingDateLine) {
  EXPECT_EQ(render({"-N", "-l"}), goldenStdout("081-sinfo-N-l.txt"));
  EXPECT_EQ(render({"-Nl"}), goldenStdout("081-sinfo-N-l.txt"));
}

TEST_F(SinfoViewTest, FormatCodesMatchGolden082) {
  EXPECT_EQ(render({"-N", "-o", "%N %P %c %m %G %T %C %O %e"}), goldenStdout("082-sinfo-o-gres.txt"));
}

TEST_F(SinfoViewTest, LongFormatNamesFieldsAsTheOCodesPrintThem) {
  // Headers as the reference Slurm 22.05 printed them for these -O lists (captured by hand):
  // width 20 and left-justified by default, no separator, ":[.]N" for width and justification.
  const std::string fields = "Partition,Available,Time,Nodes,StateCompact,NodeList";
  const std::string text = render({"-O", fields});
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "PARTITION           AVAIL               TIMELIMIT           NODES               "
            "STATE               NODELIST            ");
  EXPECT_EQ(text, render({"-o", "%20P%20a%20l%20D%20t%20N"}));
  EXPECT_EQ(render({"-h", "-O", "nodelist:12,CPUS:.5,Memory"}),
            render({"-h", "-o", "%12N%.5c%20m"}));
  const std::string sized = render({"-O", "NodeList:12,CPUs:.5,Memory,Gres,StateLong,PartitionName,Reason"});
  EXPECT_EQ(sized.substr(0, sized.find('\n')),
            "NODELIST     CPUSMEMORY              GRES                STATE               "
            "PARTITION           REASON              ");
  EXPECT_EQ(render({"-N", "-h", "-O", "NodeList,CPUsState"}), render({"-N", "-h", "-o", "%20N%20C"}));
  // -O wins over -o, as Slurm's.
  EXPECT_EQ(render({"-o", "%P", "-O", "Nodes"}), render({"-O", "Nodes"}));
}

TEST_F(SinfoViewTest, SortKeysOrderRowsAsSlurms) {
  // As the reference Slurm 22.05 sorted them: by printed value, '-' descending, stable over
  // the default order; "#P" is the configured order; a letter sinfo does not print is ignored.
  const std::string by_default = render({"-h", "-o", "%P %t %D"});
  EXPECT_EQ(by_default, "gpu* mix 1\ngpu* alloc 3\ndebug mix 1\ndebug alloc 1\n");
  EXPECT_EQ(render({"-h", "-o", "%P %t %D", "-S", "P"}),
            "debug mix 1\ndebug alloc 1\ngpu* mix 1\ngpu* alloc 3\n");
  EXPECT_EQ(render({"-h", "-o", "%P %t %D", "-S", "-D,P"}),
            "gpu* alloc 3\ndebug mix 1\ndebug alloc 1\ngpu* mix 1\n");
  EXPECT_EQ(render({"-h", "-o", "%P %t %D", "-S", "#P"}), by_default);
  EXPECT_EQ(render({"-h", "-o", "%P %t %D", "-S", "Q"}), by_default);
  EXPECT_EQ(render({"-N", "-h", "-o", "%N %P", "-S", "-N"}),
            "node04 gpu*\nnode03 gpu*\nnode02 gpu*\nnode02 debug\nnode01 gpu*\nnode01 debug\n");
}

TEST_F(SinfoViewTest, AllocMemAndGresUsedSplitRowsAsSlurms) {
  // As the reference Slurm 22.05 printed `sinfo -O Partition,AllocMem,GresUsed` with one job
  // (1000 MB, 2 GPUs) on node01: nodes that differ in them get rows of their own.
  auto busy = NodeBuilder("node01").partitions({"gpu"}).alloc(1, 1000, 2).build();
  busy.set_gres_used("gpu:2(IDX:0-1)");
  auto idle = NodeBuilder("node02").partitions({"gpu"}).build();
  idle.set_gres_used("gpu:0");
  auto plain = NodeBuilder("node03").partitions({"gpu"}).build();
  plain.set_gres_used("gpu:0");
  v1::PartitionInfo gpu;
  gpu.set_name("gpu");
  gpu.set_is_default(true);
  gpu.set_nodes("node[01-03]");
  auto cmd = parseSinfoArgs({"-O", "Partition,AllocMem,GresUsed,Nodes:.4"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  auto text = renderSinfo(cmd->options, {busy, idle, plain}, {gpu}, kCaptureTime);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text,
            "PARTITION           ALLOCMEM            GRES_USED           NODE\n"
            "gpu*                1000                gpu:2(IDX:0-1)         1\n"
            "gpu*                0                   gpu:0                  2\n");
  // -o has no letter for them: a digit there is a width, and a field without a letter is
  // printed as written, named in a warning, as the reference's `sinfo -o "%1"` (exit 0).
  std::vector<std::string> warnings;
  auto literal = renderSinfo(parseSinfoArgs({"-o", "%1"})->options, {busy}, {gpu}, kCaptureTime,
                             &warnings);
  ASSERT_TRUE(literal.ok()) << literal.error();
  EXPECT_EQ(*literal, "%1\n%1\n");
  EXPECT_EQ(warnings, std::vector<std::string>{"Invalid node format specification: "});
}

// The reference Slurm 22.05's four idle nodes (node01-04 on ports 6831-6834) as it showed
// them while these were captured.
std::vector<v1::NodeInfo> idleReferenceNodes() {
  auto node = [](std::string name, std::uint32_t port, std::uint64_t free_mb, double load,
                 std::vector<std::string> parts) {
    auto n = NodeBuilder(std::move(name)).port(port).freeMem(free_mb).partitions(std::move(parts)).build();
    n.set_cpu_load(load);
    return n;
  };
  return {node("node01", 6831, 21163, 1.37, {"gpu", "debug"}), node("node02", 6832, 21162, 1.37, {"gpu", "debug"}),
          node("node03", 6833, 17824, 2.08, {"gpu"}), node("node04", 6834, 21163, 1.5, {"gpu"})};
}

TEST_F(SinfoViewTest, CommentExtraAndPortAsTheReferencePrintedThem) {
  // Drover keeps no node comment or extra text: Slurm's unset "(null)", which glibc leaves
  // blank left-justified in under 6 columns (Comment:5) but cuts right-justified (Extra:.8
  // whole, -o %.3f "(nu").
  const auto nodes = idleReferenceNodes();
  // (-p gpu: the reference's rows, which it printed alike without -p, merging the partitions
  // when no column names one.)
  EXPECT_EQ(render({"-p", "gpu", "-O", "Comment,Extra,Port,NodeList"}, nodes),
            "COMMENT             EXTRA               PORT                NODELIST            \n"
            "(null)              (null)              6831                node[01-04]         \n");
  EXPECT_EQ(render({"-p", "gpu", "-O", "Comment:5,Extra:.8,Port:3"}, nodes), "COMME   EXTRAPOR\n       (null)683\n");
  EXPECT_EQ(render({"-O", "Partition,Port"}, nodes),
            "PARTITION           PORT                \ngpu*                6831                \n"
            "debug               6831                \n");
  EXPECT_EQ(render({"-N", "-O", "NodeList:8,Port:.6,Comment:8,Extra"}, nodes),
            "NODELIST  PORTCOMMENT EXTRA               \n"
            "node01    6831(null)  (null)              \n"
            "node01    6831(null)  (null)              \n"
            "node02    6832(null)  (null)              \n"
            "node02    6832(null)  (null)              \n"
            "node03    6833(null)  (null)              \n"
            "node04    6834(null)  (null)              \n");
  EXPECT_EQ(render({"-p", "gpu", "-o", "%5f|%.3f|"}, nodes), "AVAIL|AVA|\n     |(nu|\n");
  EXPECT_EQ(render({"-p", "gpu", "-O", "Features:5,Comment:6,Extra:.5,Gres:3,Port:.2,Port"}, nodes),
            "AVAILCOMMENEXTRAGREPOPORT                \n"
            "     (null)(nullgpu686831                \n");
}

TEST_F(SinfoViewTest, AllIsEveryFieldAsTheReferencePrintedIt) {
  const auto nodes = idleReferenceNodes();
  const std::string header =
      "AVAIL|ACTIVE_FEATURES|CPUS|TMP_DISK|FREE_MEM|AVAIL_FEATURES|GROUPS|OVERSUBSCRIBE|TIMELIMIT|"
      "MEMORY|HOSTNAMES|NODE_ADDR|PRIO_TIER|ROOT|JOB_SIZE|STATE|USER|VERSION|WEIGHT|S:C:T|NODES(A/I) "
      "|MAX_CPUS_PER_NODE |CPUS(A/I/O/T) |NODES |REASON |NODES(A/I/O/T) |GRES |TIMESTAMP "
      "|PRIO_JOB_FACTOR |DEFAULTTIME |PREEMPT_MODE |NODELIST |CPU_LOAD |PARTITION |PARTITION "
      "|ALLOCNODES |STATE |USER |CLUSTER |SOCKETS |CORES |THREADS ";
  const std::string gpu =
      "up|(null)|16|0|17824-21163|(null)|all|NO|1-00:00:00|65536|vm|127.0.0.1|1|no|1-infinite|idle|"
      "Unknown|22.05.8|1|2:8:1|0/4 |UNLIMITED |0/64/0/64 |4 |none |0/4/0/4 |gpu:8 |Unknown |1 "
      "|1:00:00 |OFF |node[01-04] |1.37-2.08 |gpu* |gpu |all |idle |Unknown |N/A |2 |8 |1 ";
  const std::string debug =
      "up|(null)|16|0|21162-21163|(null)|all|NO|30:00|65536|vm|127.0.0.1|1|no|1-infinite|idle|"
      "Unknown|22.05.8|1|2:8:1|0/2 |UNLIMITED |0/32/0/32 |2 |none |0/2/0/2 |gpu:8 |Unknown |10 "
      "|10:00 |OFF |node[01-02] |1.37 |debug |debug |all |idle |Unknown |N/A |2 |8 |1 ";
  const std::string all = header + "\n" + gpu + "\n" + debug + "\n";
  EXPECT_EQ(render({"-O", "All"}, nodes), all);
  // Any case, a width ignored; -o %all (alone) is the same; in a list, in its place.
  EXPECT_EQ(render({"-O", "ALL:5"}, nodes), all);
  EXPECT_EQ(render({"-o", "%all"}, nodes), all);
  EXPECT_EQ(render({"-o", "%ALL"}, nodes), all);
  EXPECT_EQ(render({"-O", "NodeList,All"}, nodes),
            "NODELIST            " + header + "\nnode[01-04]         " + gpu + "\nnode[01-02]         " +
                debug + "\n");
  EXPECT_EQ(render({"-h", "-O", "All,NodeList"}, nodes),
            gpu + "node[01-04]         \n" + debug + "node[01-02]         \n");
  // Nodes sharing a host name or address show it once (the reference's four nodes on one host).
  EXPECT_EQ(render({"-h", "-p", "gpu", "-o", "%n|%o|%N"}, nodes), "vm|127.0.0.1|node[01-04]\n");
}

// An unknown -O name: the reference's warning (its text says "job"), the name left out, exit
// 0 ("sinfo -O Partition,Bogus,NodeList" printed two columns). A bad size is still an error.
TEST_F(SinfoViewTest, LongFormatWarnsOfUnknownFieldsAndRefusesBadSizes) {
  auto cmd = parseSinfoArgs({"-O", "Partition,Bogus,NodeList"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  std::vector<std::string> warnings;
  auto text = renderSinfo(cmd->options, referenceNodes(), referencePartitions(), kCaptureTime, &warnings);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text,
            "PARTITION           NODELIST            \n"
            "gpu*                node[01-04]         \n"
            "debug               node[01-02]         \n");
  EXPECT_EQ(warnings, std::vector<std::string>{"sinfo: error: Invalid job format specification: Bogus"});
  // `type:[.][size][suffix]`, as the reference's sinfo printed `-O "Nodes:x,Partition:.6|"`.
  cmd = parseSinfoArgs({"-O", "Nodes:x,Partition:.6|"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  text = renderSinfo(cmd->options, referenceNodes(), referencePartitions(), kCaptureTime);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "NODESxPARTIT|\n4x  gpu*|\n2x debug|\n");
  cmd = parseSinfoArgs({"-O", "Nodes:10001"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  text = renderSinfo(cmd->options, referenceNodes(), referencePartitions(), kCaptureTime);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(), "Invalid size for -O field Nodes: 10001");
}

TEST_F(SinfoViewTest, JsonMatchesGolden083) {
  EXPECT_EQ(renderSinfoJson(referenceNodes()), goldenStdout("083-sinfo-json.txt"));
}

TEST_F(SinfoViewTest, NodeShortView) {
  EXPECT_EQ(render({"-N"}),
            "NODELIST   NODES PARTITION STATE \n"
            "node01         1      gpu* mix   \n"
            "node01         1     debug mix   \n"
            "node02         1      gpu* alloc \n"
            "node02         1     debug alloc \n"
            "node03         1      gpu* alloc \n"
            "node04         1      gpu* alloc \n");
}

TEST_F(SinfoViewTest, FiltersAndNoHeader) {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::string header = "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n";
  const std::vector<Case> cases = {
      {{"-p", "debug"},
       header + "debug        up      30:00      1    mix node01\n"
                "debug        up      30:00      1  alloc node02\n"},
      {{"--partition=nosuch"}, header},
      {{"-t", "ALLOC"},
       header + "gpu*         up 1-00:00:00      3  alloc node[02-04]\n"
                "debug        up      30:00      1  alloc node02\n"},
      {{"--states=mixed,idle"},
       header + "gpu*         up 1-00:00:00      1    mix node01\n"
                "debug        up      30:00      1    mix node01\n"},
      // A partition none of whose nodes is selected: a row of 0 nodes, as the reference's.
      {{"-n", "node[03-04]"}, header + "gpu*         up 1-00:00:00      2  alloc node[03-04]\n"
                                       "debug        up      30:00      0    n/a \n"},
      {{"-n", "nosuch"}, header + "gpu*         up 1-00:00:00      0    n/a \n"
                                  "debug        up      30:00      0    n/a \n"},
      {{"-h", "-p", "gpu"},
       "gpu*         up 1-00:00:00      1    mix node01\n"
       "gpu*         up 1-00:00:00      3  alloc node[02-04]\n"},
      {{"-N", "-h", "-n", "node04"}, "node04         1      gpu* alloc \n"},
      {{"-r", "-d"}, header + "gpu*         up 1-00:00:00      0    n/a \n"
                              "debug        up      30:00      0    n/a \n"},
      {{"-o", "%R|%D|%.3c|%a|%l|%L|%g|%h|%s|%F|%A|%C"},
       "PARTITION|NODES|CPU|AVAIL|TIMELIMIT|DEFAULTTIME|GROUPS|OVERSUBSCRIBE|JOB_SIZE|NODES(A/I/O/T)|NODES(A/I)|CPUS(A/I/O/T)\n"
       "gpu|4| 16|up|1-00:00:00|1:00:00|all|NO|1-infinite|4/0/0/4|4/0|51/13/0/64\n"
       "debug|2| 16|up|30:00|10:00|all|NO|1-infinite|2/0/0/2|2/0|19/13/0/32\n"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(render(c.args), c.expected) << "sinfo " << joined;
  }
}

TEST_F(SinfoViewTest, SummarizeAndLongPartitionViews) {
  EXPECT_EQ(render({"-s"}),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up 1-00:00:00          4/0/0/4 node[01-04]\n"
            "debug        up      30:00          2/0/0/2 node[01-02]\n");
  EXPECT_EQ(render({"-l", "-p", "gpu"}),
            "Mon Nov 30 12:29:05 2026\n"
            "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST\n"
            "gpu*         up 1-00:00:00 1-infinite   no       NO        all      1       mixed node01\n"
            "gpu*         up 1-00:00:00 1-infinite   no       NO        all      3   allocated node[02-04]\n");
}

TEST_F(SinfoViewTest, DrainedDownAndNotRespondingNodes) {
  auto nodes = referenceNodes();
  nodes[2] = NodeBuilder("node03").state(v1::NODE_IDLE).partitions({"gpu"}).drain("bad dimm").build();
  nodes[3] = NodeBuilder("node04").state(v1::NODE_DOWN).partitions({"gpu"}).notResponding().build();
  nodes[3].set_reason("Not responding");
  EXPECT_EQ(render({"-p", "gpu"}, nodes),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up 1-00:00:00      1  down* node04\n"
            "gpu*         up 1-00:00:00      1  drain node03\n"
            "gpu*         up 1-00:00:00      1    mix node01\n"
            "gpu*         up 1-00:00:00      1  alloc node02\n");
  EXPECT_EQ(render({"-N", "-h", "-t", "drain,down", "-o", "%N %T %E %C"}, nodes),
            "node03 drained bad dimm 0/0/16/16\n"
            "node04 down* Not responding 0/0/16/16\n");
  // debug has no dead node: its row of none, as the reference's `sinfo -t alloc -o "%P %N"`.
  EXPECT_EQ(render({"-h", "-d", "-o", "%P %t %N"}, nodes), "gpu* down* node04\ndebug n/a \n");
  // Both in gpu alone: the not-responding node first, as the reference listed drain* node04
  // above drain node03 (golden sinfo-merge/25).
  EXPECT_EQ(render({"-R"}, nodes),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "Not responding       Unknown   Unknown             node04\n"
            "bad dimm             root      2026-11-30T12:29:05 node03\n");
  EXPECT_EQ(render({"-R", "-h", "-n", "node03"}, nodes),
            "bad dimm             root      2026-11-30T12:29:05 node03\n");
  EXPECT_EQ(render({"-R"}), "REASON               USER      TIMESTAMP           NODELIST\n");
}

TEST_F(SinfoViewTest, NodesWithDifferentSizesShowMinimumPlusUnlessExact) {
  auto nodes = referenceNodes();
  nodes[3].mutable_configured()->set_cpus(32);
  EXPECT_EQ(render({"-h", "-p", "gpu", "-t", "alloc", "-o", "%c %D %N"}, nodes), "16+ 3 node[02-04]\n");
  EXPECT_EQ(render({"-h", "-e", "-p", "gpu", "-t", "alloc", "-o", "%c %D %N"}, nodes),
            "16 2 node[02-03]\n32 1 node04\n");
}

TEST_F(SinfoViewTest, EmptyPartitionShowsAsZeroNodes) {
  auto parts = referencePartitions();
  parts.push_back(testing::partition("spare", "", false, -1, -1, 1, 0));
  SinfoOptions opts;
  auto text = renderSinfo(opts, referenceNodes(), parts, kCaptureTime);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("spare        up   infinite      0    n/a \n"), std::string::npos) << *text;
}

// A letter sinfo does not know: printed as written, in the header and on every line, with
// the reference's warning (no "sinfo:" prefix) once per field, exit 0.
TEST_F(SinfoViewTest, AnUnknownLetterIsPrintedAsWritten) {
  SinfoOptions opts;
  opts.format = "%P %5Q|%.3Q %N";
  std::vector<std::string> warnings;
  auto text = renderSinfo(opts, referenceNodes(), referencePartitions(), kCaptureTime, &warnings);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text,
            "PARTITION %5Q|%.3Q NODELIST\n"
            "gpu* %5Q|%.3Q node[01-04]\n"
            "debug %5Q|%.3Q node[01-02]\n");
  EXPECT_EQ(warnings, (std::vector<std::string>{"Invalid node format specification: Q",
                                                "Invalid node format specification: Q"}));
}

TEST_F(SinfoViewTest, DateLineGoesAboveTheHeaderWithLongOrIterate) {
  // As the reference Slurm 22.05 printed them: -l and -i put the date line above the header,
  // whatever the format (-s keeps its own columns); -h drops both.
  const std::string date = "Mon Nov 30 12:29:05 2026\n";
  EXPECT_EQ(render({"-i", "2"}), date + goldenStdout("080-sinfo-default.txt"));
  EXPECT_EQ(render({"-i", "2", "-h"}), render({"-h"}));
  const std::string node_long = render({"-N", "-l"});   // the date line, the header, the rows
  EXPECT_EQ(render({"-N", "-l", "-h"}), node_long.substr(node_long.find('\n', date.size()) + 1));
  EXPECT_EQ(render({"-s", "-l"}), date + render({"-s"}));
  EXPECT_EQ(render({"-i", "1", "-o", "%P"}), date + "PARTITION\ngpu*\ndebug\n");
}

TEST_F(SinfoViewTest, EnvironmentFormatAppliesWithLongAndGivesWayToTheCommandLine) {
  setenv("SINFO_FORMAT", "%P", 1);
  auto with_long = parseSinfoArgs({"-l"});
  ASSERT_TRUE(with_long.ok()) << with_long.error();
  applyEnvironmentFormat(with_long->options);
  auto text = renderSinfo(with_long->options, referenceNodes(), referencePartitions(), kCaptureTime);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "Mon Nov 30 12:29:05 2026\nPARTITION\ngpu*\ndebug\n");
  for (const std::vector<std::string> line : {std::vector<std::string>{"-o", "%a"},
                                              std::vector<std::string>{"-O", "Available"}}) {
    auto cmd = parseSinfoArgs(line);
    ASSERT_TRUE(cmd.ok()) << cmd.error();
    applyEnvironmentFormat(cmd->options);
    EXPECT_NE(cmd->options.format, "%P") << line[0];
  }
  unsetenv("SINFO_FORMAT");
}

v1::ReservationInfo reservation(const std::string& name, std::int64_t start, std::int64_t end,
                                std::vector<std::string> nodes, bool active) {
  v1::ReservationInfo r;
  r.set_name(name);
  r.set_start_time(start);
  r.set_end_time(end);
  for (auto& n : nodes) r.add_nodes(n);
  r.set_active(active);
  return r;
}

TEST_F(SinfoViewTest, ReservationsAsTheReferenceSlurmListedThem) {
  // Captured from the reference Slurm 22.05 (sinfo -T, then sinfo -T -h) with these three.
  const std::vector<v1::ReservationInfo> reservations = {
      reservation("r1", 1796152910, 1796152910 + 3600, {"node01", "node02"}, false),
      reservation("maint_window", 1796149310, 1796149310 + 86400, {"node03"}, true),
      reservation("a_much_longer_reservation_name", 1796156518, 1827692518, {"node04"}, false),
  };
  auto cmd = parseSinfoArgs({"-T", "-o", "%P", "-p", "debug"});   // neither applies to -T
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_TRUE(cmd->options.reservations);
  EXPECT_EQ(renderSinfoReservations(cmd->options, reservations, kCaptureTime),
            "RESV_NAME                          STATE           START_TIME             END_TIME     DURATION  NODELIST\n"
            "r1                              INACTIVE  2026-12-01T19:21:50  2026-12-01T20:21:50     01:00:00  node[01-02]\n"
            "maint_window                      ACTIVE  2026-12-01T18:21:50  2026-12-02T18:21:50   1-00:00:00  node03\n"
            "a_much_longer_reservation_name  INACTIVE  2026-12-01T20:21:58  2027-12-01T20:21:58  365-00:00:00  node04\n");
  SinfoOptions no_header;
  no_header.no_header = true;
  EXPECT_EQ(renderSinfoReservations(no_header, reservations, kCaptureTime),
            "r1         INACTIVE  2026-12-01T19:21:50  2026-12-01T20:21:50     01:00:00  node[01-02]\n"
            "maint_window    ACTIVE  2026-12-01T18:21:50  2026-12-02T18:21:50   1-00:00:00  node03\n"
            "a_much_longer_reservation_name  INACTIVE  2026-12-01T20:21:58  2027-12-01T20:21:58  365-00:00:00  node04\n");
  SinfoOptions long_format;
  long_format.long_format = true;
  EXPECT_EQ(renderSinfoReservations(long_format, {}, kCaptureTime),
            "Mon Nov 30 12:29:05 2026\nNo reservations in the system\n");
  EXPECT_EQ(renderSinfoReservations(no_header, {}, kCaptureTime), "No reservations in the system\n");
}

TEST(SinfoArgsTest, IterateAndFormatConflictsAsSlurms) {
  auto every = parseSinfoArgs({"--iterate=3"});
  ASSERT_TRUE(every.ok()) << every.error();
  EXPECT_EQ(every->options.iterate_s, 3);
  for (const std::string bad : {"0", "-1", "abc"}) {
    auto parsed = parseSinfoArgs({"-i", bad});
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().rfind("Error: invalid entry for --iterate=" + bad + ":", 0), 0u)
        << parsed.error();
  }
  for (const std::vector<std::string> line : {std::vector<std::string>{"-l", "-o", "%P"},
                                              std::vector<std::string>{"-O", "Partition", "-l"}}) {
    auto parsed = parseSinfoArgs(line);
    ASSERT_FALSE(parsed.ok()) << line[0];
    EXPECT_EQ(parsed.error(), kFormatWithLong);
  }
}

TEST(SinfoArgsTest, ParsesOptionsAndRejectsBadOnes) {
  auto ok = parseSinfoArgs({"-Nel", "--partition=gpu,debug", "-t", "idle", "--json", "-V"});
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_TRUE(ok->options.node_oriented);
  EXPECT_TRUE(ok->options.exact);
  EXPECT_TRUE(ok->options.long_format);
  EXPECT_TRUE(ok->options.json);
  EXPECT_TRUE(ok->version);
  EXPECT_EQ(ok->options.partitions, (std::vector<std::string>{"gpu", "debug"}));
  EXPECT_FALSE(parseSinfoArgs({"--bogus"}).ok());
  EXPECT_FALSE(parseSinfoArgs({"-t", "sleepy"}).ok());
  EXPECT_FALSE(parseSinfoArgs({"extra"}).ok());
  auto nodes = parseSinfoArgs({"-n", "node[01-02],node04"});
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes->options.nodes, (std::vector<std::string>{"node01", "node02", "node04"}));
}

}  // namespace
}  // namespace drover::cli
