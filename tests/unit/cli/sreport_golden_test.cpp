// sreport's whole command (options, words, reports, errors, interactive mode) against captures
// of Slurm 22.05's sreport (golden/sreport/*.txt: "# command:", "# exit:", then the exact
// stdout and stderr). The reference's numbers come from its hourly rollups; each test gives
// job records that sum to the same minutes, and, where a percentage shows, a cluster capacity
// giving the same ratio (Slurm divides by the time the cluster was registered, Drover by its
// CPUs times the window). Times are the capture's: TZ=UTC, now 2026-12-02T01:59:25. The
// records go through the real data path: a SQLite accounting file and the controller's sums.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "acct/sqlite_store.h"
#include "cli/cli_common.h"
#include "cli/sreport.h"
#include "cli/sreport_query.h"
#include "ctld/usage_query.h"
#include "../temp_dir.h"

namespace drover::cli {
namespace {

using sreport::ReportData;

// A report's input as these tests give it: job records, which the loader writes to a real
// SQLite file and sums with the controller's QueryUsage code (as droverctld answers sreport),
// and the rest of what the real loader reads (capacity, account tree).
struct Data : ReportData {
  std::vector<acct::JobRecord> jobs;
};

// The report's data as the real command gets it: `data`'s records summed for `r` by the store
// and QueryUsage, over the report's window.
Result<ReportData> loadData(const Data& data, const sreport::ReportRequest& r, std::int64_t now) {
  ReportData d = data;
  d.window = sreport::reportWindow(r.start, r.end, now);
  TempDir dir;
  auto store = acct::SqliteAccountingStore::open(dir.file("acct.db"));
  if (!store.ok()) return makeError(store.error());
  acct::AcctBatch batch;
  batch.jobs = data.jobs;
  for (std::size_t i = 0; i < batch.jobs.size(); ++i) {
    if (batch.jobs[i].job_id == 0) batch.jobs[i].job_id = i + 1;
  }
  if (auto w = (*store)->apply(batch); !w.ok()) return makeError(w.error());
  auto reply = ctld::queryUsage(**store, rpc::Caller{}, sreport::usageRequest(r, d.window, now), "oracle", now);
  if (!reply.ok()) return makeError(reply.error());
  d.usage = sreport::usageSums(r, *reply);
  return d;
}

constexpr std::int64_t kDay1 = 1796083200;   // 2026-12-01T00:00:00Z
constexpr std::int64_t kDay2 = kDay1 + 86400;
constexpr std::int64_t kNow = kDay2 + 3600 + 59 * 60 + 25;
constexpr double kWindow = 93600;   // 2026-12-01T00:00 - 2026-12-02T02:00

class UtcEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};
const auto* const kUtc = ::testing::AddGlobalTestEnvironment(new UtcEnvironment);

struct Golden {
  std::vector<std::string> args;
  int exit_code = 0;
  std::string out, err;
};

Golden readGolden(const std::string& name) {
  std::ifstream f(std::string(DROVER_CLI_GOLDEN_DIR) + "/sreport/" + name + ".txt", std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  Golden g;
  const std::size_t nl = text.find('\n');
  std::istringstream cmd(text.substr(0, nl));
  std::string w;
  cmd >> w >> w >> w;   // "#", "command:", "sreport"
  for (; cmd >> w;) g.args.push_back(w);
  const std::size_t exit_at = text.find("# exit: ", nl);
  g.exit_code = std::atoi(text.c_str() + exit_at + 8);
  const std::size_t out_at = text.find("# stdout:\n") + 10;
  const std::size_t err_at = text.find("# stderr:\n", out_at);
  g.out = text.substr(out_at, err_at - out_at);
  g.err = text.substr(err_at + 10);
  return g;
}

acct::JobRecord ran(const std::string& tres, std::int64_t start, std::int64_t seconds) {
  acct::JobRecord j;
  j.account = "research";
  j.user = "alice";
  j.alloc_tres = j.req_tres = tres;
  j.submit = j.eligible = j.start = start;
  j.end = start + seconds;
  j.state = acct::JobState::kCompleted;
  return j;
}

// Eligible at the window's start, cancelled before it ran.
acct::JobRecord waited(std::int64_t seconds) {
  acct::JobRecord j = ran("billing=1,cpu=1,mem=4000M,node=1", kDay1, seconds);
  j.start = 0;
  j.state = acct::JobState::kCancelled;
  return j;
}

constexpr const char* kOneCpu = "billing=1,cpu=1,mem=4000M,node=1";

// Before the 02:00 rollup: 89 CPU minutes (5358 s), all in 00:00-01:00.
Data data89() {
  Data d;
  d.jobs = {ran(kOneCpu, kDay2, 2679), ran(kOneCpu, kDay2, 2679)};
  d.capacity = {{"cpu", 0.3514}, {"gres/gpu", 0.2}};
  return d;
}

// The same, with the cluster time and waiting of the Utilization capture (548 and 293 min).
Data data89Utilization() {
  Data d = data89();
  d.jobs.push_back(waited(17580));
  d.capacity = {{"cpu", 32880 / kWindow}};
  return d;
}

// After the rollup: 180 CPU minutes, 1 GPU minute, 373 minutes waited, 4388 reported.
Data data180() {
  Data d;
  d.jobs = {ran("billing=2,cpu=2,mem=8000M,node=1", kDay2, 5360),
            ran("billing=1,cpu=1,gres/gpu=1,mem=4000M,node=1", kDay2, 80), waited(22360)};
  d.capacity = {{"cpu", 263300 / kWindow}, {"gres/gpu", 131640 / kWindow}};
  return d;
}

// job SizesByAccount: CPU-seconds per job size as the reference's 2100 jobs summed them.
Data dataSizes() {
  Data d;
  const std::vector<std::pair<int, int>> size_seconds = {{1, 5278}, {2, 14}, {3, 9},  {4, 30},  {6, 10},
                                                         {8, 1},    {10, 12}, {14, 5}, {15, 320}, {16, 1},
                                                         {17, 1},   {18, 1},  {20, 3}, {30, 4}};
  for (const auto& [cpus, secs] : size_seconds) {
    const std::string n = std::to_string(cpus);
    d.jobs.push_back(ran("billing=" + n + ",cpu=" + n + ",node=1", kDay2, secs));
  }
  d.jobs.push_back(ran("billing=1,cpu=1,gres/gpu=1,node=1", kDay2, 80));
  return d;
}

Data dataJobCount() {
  Data d;
  for (int i = 0; i < 2042; ++i) d.jobs.push_back(ran(kOneCpu, kDay2 + i, 1));
  return d;
}

struct Outcome {
  std::string out, err;
  int exit_code = 0;
};

Outcome runWith(const std::vector<std::string>& args, Data data, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  data.cluster = "oracle";
  data.parents = {{"research", "root"}};
  data.proper_name = [](const std::string&) { return std::string(); };
  const SreportLoader load = [&](const sreport::ReportRequest& r, std::int64_t now) {
    return loadData(data, r, now);
  };
  Outcome r;
  r.exit_code = runSreportWith(args, "/usr/bin/sreport", kNow, SreportIo{in, false, out, err}, load);
  r.out = out.str();
  r.err = err.str();
  return r;
}

void expectGolden(const std::string& name, const Data& data) {
  SCOPED_TRACE(name);
  const Golden g = readGolden(name);
  const Outcome r = runWith(g.args, data);
  EXPECT_EQ(r.out, g.out);
  EXPECT_EQ(r.err, g.err);
  EXPECT_EQ(r.exit_code, g.exit_code);
}

TEST(SreportGolden, AccountUtilizationByUser) {
  for (const char* name : {"aubu_default", "aubu_P", "aubu_p", "aubu_n", "aubu_hours", "aubu_seconds",
                           "aubu_format", "aubu_formatw", "aubu_tree", "aubu_acct", "aubu_users",
                           "aubu_users_alice", "aubu_cluster", "aubu_endbefore", "aubu_hourwin",
                           "aubu_default_window", "round_start50", "aubu_percent", "aubu_minper",
                           "aubu_hourper", "aubu_secper", "aubu_tres", "aubu_tall"})
    expectGolden(name, data89());
  for (const char* name : {"aubu_default2", "aubu_P2", "aubu_percent2", "aubu_tcpu", "aubu_tgpu",
                           "aubu_tres_percent", "aubu_fmtcount", "aubu_fmt_badpct", "aubu_mixed",
                           "abbrev_aubu", "round_start10", "aubu_start_day", "aubu_tree_P", "aubu_fmt_left",
                           "allclusters", "minper_P"})
    expectGolden(name, data180());
}

TEST(SreportGolden, UserReports) {
  for (const char* name : {"ubua_default", "ubua_P", "ubua_tres", "ubua_percent", "topusage",
                           "topusage_count1", "topusage_P", "topusage_group", "topusage_tres",
                           "topusage_percent"})
    expectGolden(name, data89());
  for (const char* name : {"abbrev_top", "abbrev_ubua", "topusage_tgpu", "top_accounts"})
    expectGolden(name, data180());
}

TEST(SreportGolden, ClusterUtilization) {
  expectGolden("util", data89Utilization());
  expectGolden("util_P", data89Utilization());
  for (const char* name : {"util_n", "util_p", "util_hours", "util_tres", "util_format", "util_tcpu",
                           "util_badflag", "util_users"})
    expectGolden(name, data180());
  Data idle;
  idle.capacity = {{"cpu", 64}};
  expectGolden("util_overcommit", idle);
}

// Reported as a percentage: Slurm's is of the time the cluster was registered in the window
// (4.40% there); Drover counts the whole window, so Reported is 100.00% of it.
TEST(SreportGolden, UtilizationPercentReportsTheWholeWindow) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> cases = {
      {"util_percent", {"   4.40% \n", " 100.00% \n"}},
      {"util_tgpu", {"   4.40% \n", " 100.00% \n"}},
      {"util_minper", {"  4388(4.40%) \n", "4388(100.00%) \n"}},
  };
  for (const auto& [name, swap] : cases) {
    SCOPED_TRACE(name);
    Golden g = readGolden(name);
    const std::size_t at = g.out.find(swap.first);
    ASSERT_NE(at, std::string::npos);
    g.out.replace(at, swap.first.size(), swap.second);
    const Outcome r = runWith(g.args, data180());
    EXPECT_EQ(r.out, g.out);
    EXPECT_EQ(r.exit_code, g.exit_code);
  }
}

TEST(SreportGolden, JobSizes) {
  for (const char* name : {"sizes", "sizes_P", "sizes_flat", "sizes_acct", "sizes_percent", "sizes_hours",
                           "sizes_gpu", "sizes_grouping", "sizes_ind", "sizes_tres2", "sizes_n",
                           "sizes_acct_root", "sizes_acctparent", "sizes_users", "sizes_badgroup"})
    expectGolden(name, dataSizes());
  expectGolden("sizes_count", dataJobCount());
}

TEST(SreportGolden, ErrorsAndWarnings) {
  for (const char* name : {"nosuch", "nosuch_user", "nosuch_job", "nosuch_type", "cluster_only", "badopt",
                           "badtime", "aubu_badt", "aubu_badcond", "aubu_badformat", "aubu_tbad",
                           "abbrev_util"})
    expectGolden(name, data89());
}

TEST(SreportGolden, InteractiveMode) {
  const Golden g = readGolden("interactive");
  const Outcome r = runWith({}, data180(),
                        "cluster utilization start=2026-12-01T00:00:00 end=now\nparsable2\n"
                        "cluster utilization start=2026-12-01T00:00:00 end=now\nbogus\nquit\n");
  EXPECT_EQ(r.out, g.out);
  EXPECT_EQ(r.err, g.err);
  EXPECT_EQ(r.exit_code, g.exit_code);
  // `time` and `!!` (the last command again).
  const Golden g2 = readGolden("interactive2");
  const Outcome r2 = runWith({}, data180(),
                         "time minper\ncluster AccountUtilizationByUser start=2026-12-01T00:00:00 end=now\n"
                         "!!\nexit\n");
  EXPECT_EQ(r2.out, g2.out);
  EXPECT_EQ(r2.err, g2.err);
  EXPECT_EQ(r2.exit_code, g2.exit_code);
  // `time` without a format is an error; a bad one only a message; settings take no data.
  for (const auto& [name, input] : std::vector<std::pair<std::string, std::string>>{
           {"interactive3", "time\ntime bogus\nnonparsable\nquiet\nverbose\nexit\n"},
           {"interactive4", "time bogus\nexit\n"}}) {
    SCOPED_TRACE(name);
    const Golden g3 = readGolden(name);
    const Outcome r3 = runWith({}, data180(), input);
    EXPECT_EQ(r3.out, g3.out);
    EXPECT_EQ(r3.err, g3.err);
    EXPECT_EQ(r3.exit_code, g3.exit_code);
  }
}

// Drover names itself in the version line and lists only the reports it has in --help.
TEST(SreportGolden, VersionAndHelpAreDrovers) {
  const Outcome v = runWith({"-V"}, data89());
  EXPECT_EQ(v.out, std::string(kVersionLine) + "\n");
  const Outcome h = runWith({"--help"}, data89());
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_EQ(h.out.rfind("sreport [<OPTION>] [<COMMAND>]", 0), 0u);
  EXPECT_NE(h.out.find("AccountUtilizationByUser"), std::string::npos);
  const Outcome ver = runWith({"version"}, data89());
  EXPECT_EQ(ver.out, v.out);
}

// What Drover does where the reference had no data to show: several accounts and users, in
// tree order (users, then sub-accounts, by name) and by usage (TopUsage).
TEST(SreportReports, SeveralAccountsAndUsers) {
  Data d;
  auto a = ran(kOneCpu, kDay2, 600);          // alice/research: 10 min
  auto b = ran("cpu=2", kDay2, 1800);         // bob/research: 60 min
  b.user = "bob";
  auto c = ran("cpu=4,gres/gpu=2", kDay2, 900);   // carol/vision (under research): 60 min
  c.user = "carol";
  c.account = "vision";
  d.jobs = {a, b, c};
  d.capacity = {{"cpu", 64}};
  const auto run = [&](const std::vector<std::string>& args) {
    Data x = d;
    std::istringstream in;
    std::ostringstream out, err;
    x.cluster = "oracle";
    x.parents = {{"research", "root"}, {"vision", "research"}, {"astro", "root"}};
    const SreportLoader load = [&](const sreport::ReportRequest& r, std::int64_t now) {
      return loadData(x, r, now);
    };
    runSreportWith(args, "sreport", kNow, SreportIo{in, false, out, err}, load);
    return out.str();
  };
  EXPECT_EQ(run({"-nP", "cluster", "AccountUtilizationByUser", "start=2026-12-02", "end=now"}),
            "oracle|root|||130|0\n"
            "oracle|research|||130|0\n"
            "oracle|research|alice||10|0\n"
            "oracle|research|bob||60|0\n"
            "oracle|vision|||60|0\n"
            "oracle|vision|carol||60|0\n");
  // Sibling accounts in cluster.conf's order (sacctmgr's and sshare's), not by name.
  d.jobs.push_back(ran("cpu=1", kDay2, 60));
  d.jobs.back().account = "astro";
  d.account_order = {"research", "vision", "astro"};
  EXPECT_EQ(run({"-nP", "-t", "seconds", "cluster", "AccountUtilizationByUser", "start=2026-12-02", "end=now",
                 "format=Account,Login,Used"}),
            "root||7860\n"
            "research||7800\n"
            "research|alice|600\n"
            "research|bob|3600\n"
            "vision||3600\n"
            "vision|carol|3600\n"
            "astro||60\n"
            "astro|alice|60\n");
  d.jobs.pop_back();
  EXPECT_EQ(run({"-nP", "-T", "gres/gpu", "cluster", "AccountUtilizationByUser", "start=2026-12-02", "end=now",
                 "accounts=vision"}),
            "oracle|vision|||gres/gpu|30\n"
            "oracle|vision|carol||gres/gpu|30\n");
  EXPECT_EQ(run({"-nP", "user", "TopUsage", "start=2026-12-02", "end=now", "TopCount=2"}),
            "oracle|bob||research|60|0\n"
            "oracle|carol||vision|60|0\n");
  EXPECT_EQ(run({"-nP", "job", "SizesByAccount", "start=2026-12-02", "end=now", "flatview", "grouping=2"}),
            "oracle|research|10|60|53.85%\n"
            "oracle|vision|0|60|46.15%\n");
  EXPECT_EQ(run({"-nP", "job", "SizesByAccount", "start=2026-12-02", "end=now", "accounts=vision"}),
            "oracle|vision|60|0|0|0|0|46.15%\n");
  EXPECT_EQ(run({"-nP", "-t", "hourper", "cluster", "utilization", "start=2026-12-02", "end=now"}),
            "oracle|2(1.69%)|0(0.00%)|0(0.00%)|126(98.31%)|0(0.00%)|128(100.00%)\n");
}

}  // namespace
}  // namespace drover::cli
