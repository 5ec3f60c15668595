// sdiag: options, and the report compared byte for byte with the reference Slurm's sdiag
// (golden/sdiag/, captured on the reference cluster), the captured values injected. The RPC
// rows carry the captured Slurm names and ids: the layout and the sort are under test here,
// Drover's own names are the controller's (ctld/rpc_ids.h, tests/e2e/test_sdiag.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cli/sdiag.h"
#include "cli/sdiag_view.h"

namespace drover::cli {
namespace {

// A capture without its trailing "exit=N" line.
std::string golden(const std::string& name) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/sdiag/" + name);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const auto exit_line = s.rfind("exit=");
  EXPECT_NE(exit_line, std::string::npos) << name;
  return s.substr(0, exit_line);
}

class SdiagView : public ::testing::Test {
 protected:
  void SetUp() override {
    // The captures were made in UTC; sdiag prints local time.
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

void addRow(google::protobuf::RepeatedPtrField<v1::RpcCallStats>* rows, const std::string& name,
            std::uint32_t id, std::uint64_t count, std::uint64_t total_us) {
  v1::RpcCallStats* r = rows->Add();
  r->set_name(name);
  r->set_id(id);
  r->set_count(count);
  r->set_total_us(total_us);
}

// sdiag-root.txt's values.
v1::GetStatisticsReply rootCapture() {
  v1::GetStatisticsReply s;
  s.set_time(1796175521);
  s.set_data_since(1796175382);
  s.set_server_threads(3);
  s.set_jobs_submitted(49);
  s.set_jobs_started(35);
  s.set_jobs_completed(29);
  s.set_jobs_canceled(14);
  s.set_jobs_failed(0);
  s.set_job_states_time(1796175502);
  s.set_jobs_pending(4);
  s.set_schedule_last_us(35);
  s.set_schedule_max_us(5937);
  s.set_schedule_cycles(32);
  s.set_schedule_total_us(32 * 1190 + 31);  // the mean is truncated
  s.set_backfill_last_when(1796172837);
  s.set_gettimeofday_latency_us(26);
  // Given in another order than printed: the last five first (no tie is split).
  auto* t = s.mutable_rpc_types();
  addRow(t, "MESSAGE_EPILOG_COMPLETE", 6012, 6, 5617);
  addRow(t, "REQUEST_NODE_INFO", 2007, 5, 10717);
  addRow(t, "MESSAGE_NODE_REGISTRATION_STATUS", 1002, 4, 2486);
  addRow(t, "REQUEST_HET_JOB_ALLOC_INFO", 4027, 2, 758);
  addRow(t, "REQUEST_PING", 1008, 2, 2603);
  addRow(t, "REQUEST_FED_INFO", 2049, 43, 40626);
  addRow(t, "REQUEST_STEP_COMPLETE", 5016, 33, 26312);
  addRow(t, "REQUEST_JOB_STEP_CREATE", 5001, 29, 109274);
  addRow(t, "REQUEST_JOB_INFO_SINGLE", 2021, 28, 19809);
  addRow(t, "REQUEST_COMPLETE_JOB_ALLOCATION", 5017, 27, 95688);
  addRow(t, "REQUEST_RESOURCE_ALLOCATION", 4001, 27, 66879);
  addRow(t, "REQUEST_JOB_READY", 4019, 27, 19592);
  addRow(t, "REQUEST_PARTITION_INFO", 2009, 15, 11780);
  addRow(t, "REQUEST_UPDATE_JOB", 3001, 15, 35317);
  addRow(t, "REQUEST_KILL_JOB", 5032, 14, 31020);
  addRow(t, "REQUEST_SUBMIT_BATCH_JOB", 4003, 10, 28080);
  addRow(t, "REQUEST_JOB_USER_INFO", 2039, 9, 7438);
  addRow(t, "REQUEST_COMPLETE_BATCH_SCRIPT", 5018, 8, 10713);
  addRow(t, "REQUEST_JOB_INFO", 2003, 7, 303594);
  auto* u = s.mutable_rpc_users();
  addRow(u, "root", 0, 118, 422040);
  addRow(u, "alice", 1001, 193, 406263);
  return s;
}

TEST_F(SdiagView, DefaultReportMatchesTheReferenceByteForByte) {
  EXPECT_EQ(renderSdiag(rootCapture(), SdiagSort::kCount), golden("sdiag-root.txt"));
}

TEST_F(SdiagView, ReportAfterResetOmitsTheMeansAsTheReference) {
  // sdiag-after-reset.txt: no pass since the reset, so no mean cycle, depth or rate.
  v1::GetStatisticsReply s;
  s.set_time(1796175522);
  s.set_data_since(1796175522);
  s.set_server_threads(3);
  s.set_job_states_time(1796175502);
  s.set_jobs_pending(4);
  s.set_schedule_last_us(35);
  s.set_backfill_last_when(1796172837);
  s.set_gettimeofday_latency_us(26);
  addRow(s.mutable_rpc_types(), "REQUEST_STATS_INFO", 2035, 1, 352);
  addRow(s.mutable_rpc_users(), "root", 0, 1, 352);
  EXPECT_EQ(renderSdiag(s, SdiagSort::kCount), golden("sdiag-after-reset.txt"));
  // -T (sdiag-sort-time.txt) with its values: one row, the same layout.
  s.mutable_rpc_types(0)->set_count(3);
  s.mutable_rpc_types(0)->set_total_us(1063);
  s.mutable_rpc_users(0)->set_count(3);
  s.mutable_rpc_users(0)->set_total_us(1063);
  EXPECT_EQ(renderSdiag(s, SdiagSort::kAveTime), golden("sdiag-sort-time.txt"));
}

TEST_F(SdiagView, BackfillMeansFollowTheirFiguresOnceACycleRan) {
  v1::GetStatisticsReply s = rootCapture();
  s.set_backfilled_since_start(7);
  s.set_backfilled_since_reset(5);
  s.set_backfill_cycles(4);
  s.set_backfill_last_us(120);
  s.set_backfill_max_us(900);
  s.set_backfill_total_us(1203);
  s.set_backfill_last_depth(6);
  s.set_backfill_last_depth_tried(4);
  s.set_backfill_depth_total(21);
  s.set_backfill_depth_tried_total(13);
  s.set_backfill_last_queue(9);
  s.set_backfill_queue_total(30);
  const std::string report = renderSdiag(s, SdiagSort::kCount);
  const std::string block = report.substr(report.find("Backfilling stats"),
                                          report.find("Latency for") - report.find("Backfilling stats"));
  EXPECT_EQ(block,
            "Backfilling stats\n"
            "\tTotal backfilled jobs (since last slurm start): 7\n"
            "\tTotal backfilled jobs (since last stats cycle start): 5\n"
            "\tTotal backfilled heterogeneous job components: 0\n"
            "\tTotal cycles: 4\n"
            "\tLast cycle when: Wed Dec 02 00:53:57 2026 (1796172837)\n"
            "\tLast cycle: 120\n"
            "\tMax cycle:  900\n"
            "\tMean cycle: 300\n"
            "\tLast depth cycle: 6\n"
            "\tLast depth cycle (try sched): 4\n"
            "\tDepth Mean: 5\n"
            "\tDepth Mean (try depth): 3\n"
            "\tLast queue length: 9\n"
            "\tQueue length mean: 7\n"
            "\tLast table size: 0\n"
            "\tMean table size: 0\n\n");
}

TEST_F(SdiagView, CyclesPerMinuteOnlyAfterAMinute) {
  v1::GetStatisticsReply s = rootCapture();
  s.set_time(s.data_since() + 60);
  EXPECT_EQ(renderSdiag(s, SdiagSort::kCount).find("Cycles per minute"), std::string::npos);
  s.set_time(s.data_since() + 61);
  EXPECT_NE(renderSdiag(s, SdiagSort::kCount).find("\tCycles per minute: 32\n"), std::string::npos);
}

// The names of the RPC table's rows, top to bottom.
std::vector<std::string> order(const std::string& report, const std::string& table) {
  std::vector<std::string> names;
  auto at = report.find(table);
  std::istringstream lines(report.substr(at + table.size() + 1));
  std::string line;
  while (std::getline(lines, line) && !line.empty()) {
    names.push_back(line.substr(1, line.find_first_of(" (", 1) - 1));
  }
  return names;
}

TEST_F(SdiagView, SortsByIdTotalTimeAndAverage) {
  v1::GetStatisticsReply s;
  s.set_time(100);
  s.set_data_since(100);
  auto* t = s.mutable_rpc_types();
  addRow(t, "B", 20, 10, 100);  // ave 10
  addRow(t, "A", 30, 1, 500);   // ave 500
  addRow(t, "C", 10, 5, 300);   // ave 60
  auto* u = s.mutable_rpc_users();
  addRow(u, "bob", 1002, 3, 30);
  addRow(u, "alice", 1001, 1, 40);
  const std::string kTypes = "Remote Procedure Call statistics by message type";
  const std::string kUsers = "Remote Procedure Call statistics by user";
  using V = std::vector<std::string>;
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kCount), kTypes), (V{"B", "C", "A"}));
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kId), kTypes), (V{"C", "B", "A"}));
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kTotalTime), kTypes), (V{"A", "C", "B"}));
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kAveTime), kTypes), (V{"A", "C", "B"}));
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kCount), kUsers), (V{"bob", "alice"}));
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kId), kUsers), (V{"alice", "bob"}));
  EXPECT_EQ(order(renderSdiag(s, SdiagSort::kAveTime), kUsers), (V{"alice", "bob"}));
}

TEST(SdiagArgs, OptionsAsSlurms) {
  auto plain = parseSdiagArgs({});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->reset);
  EXPECT_EQ(plain->sort, SdiagSort::kCount);
  auto reset = parseSdiagArgs({"-r"});
  ASSERT_TRUE(reset.ok());
  EXPECT_TRUE(reset->reset);
  EXPECT_TRUE(parseSdiagArgs({"--reset"})->reset);
  EXPECT_FALSE(parseSdiagArgs({"-r", "-a"})->reset);
  EXPECT_EQ(parseSdiagArgs({"-i"})->sort, SdiagSort::kId);
  EXPECT_EQ(parseSdiagArgs({"--sort-by-time"})->sort, SdiagSort::kTotalTime);
  EXPECT_EQ(parseSdiagArgs({"-T"})->sort, SdiagSort::kAveTime);
  EXPECT_EQ(parseSdiagArgs({"--sort-by-time2"})->sort, SdiagSort::kAveTime);
  EXPECT_EQ(parseSdiagArgs({"-M", "drover"})->cluster, "drover");
  EXPECT_EQ(parseSdiagArgs({"--cluster=x"})->cluster, "x");
  EXPECT_TRUE(parseSdiagArgs({"--help"})->help);
  EXPECT_TRUE(parseSdiagArgs({"--usage"})->usage);
  EXPECT_TRUE(parseSdiagArgs({"-V"})->version);
}

TEST(SdiagArgs, UnknownOptionsAsTheReferenceWordsThem) {
  // sdiag-bogus.txt and sdiag-json.txt (sdiag has no --json): getopt's words, printed bare.
  auto bogus = parseSdiagArgs({"--bogus"});
  ASSERT_FALSE(bogus.ok());
  EXPECT_EQ(bogus.error() + "\n", "bare: " + golden("sdiag-bogus.txt"));
  auto json = parseSdiagArgs({"--json"});
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.error() + "\n", "bare: " + golden("sdiag-json.txt"));
  EXPECT_EQ(parseSdiagArgs({"-x"}).error(),
            "bare: sdiag: invalid option -- 'x'\nTry \"sdiag --help\" for more information");
  EXPECT_EQ(parseSdiagArgs({"-M"}).error(),
            "bare: sdiag: option requires an argument -- 'M'\nTry \"sdiag --help\" for more "
            "information");
  auto extra = parseSdiagArgs({"extra"});
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error(),
            "unrecognized argument 'extra'\nTry \"sdiag --help\" for more information");
}

}  // namespace
}  // namespace drover::cli
