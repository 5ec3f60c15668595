// sreport's arithmetic over the controller's sums: the window's hour rounding, sums up the
// account tree, TRES, Utilization's split, job size columns; the QueryUsage request each report
// sends and how its reply is read. (The sums themselves: tests/unit/acct/usage_query_test.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <vector>

#include "acct/tres_counts.h"
#include "cli/sreport_args.h"
#include "cli/sreport_query.h"
#include "cli/sreport_usage.h"

namespace drover::cli::sreport {
namespace {

// 2026-12-02T00:00:00Z.
constexpr std::int64_t kDay2 = 1796169600;

class UtcEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};
const auto* const kUtc = ::testing::AddGlobalTestEnvironment(new UtcEnvironment);

TEST(SreportWindow, RoundsBothEndsToTheNearestHour) {
  const std::int64_t now = kDay2 + 3600 + 58 * 60;   // 01:58
  // start 00:10 -> 00:00, 00:30 -> 01:00; end=now (01:58) -> 02:00 (printed 01:59:59).
  EXPECT_EQ(reportWindow(kDay2 + 600, now, now).start, kDay2);
  EXPECT_EQ(reportWindow(kDay2 + 1800, now, now).start, kDay2 + 3600);
  EXPECT_EQ(reportWindow(kDay2, now, now).end, kDay2 + 7200);
  // An end past now stops at now; an end not after the start is an hour past it.
  EXPECT_EQ(reportWindow(kDay2, kDay2 + 86400, now).end, kDay2 + 7200);
  EXPECT_EQ(reportWindow(kDay2, kDay2 + 3600, kDay2 + 3600).end, kDay2 + 3600);
  const Window w = reportWindow(kDay2 + 3600, kDay2 - 86400, now);
  EXPECT_EQ(w.start, kDay2 + 3600);
  EXPECT_EQ(w.end, kDay2 + 7200);
  // Defaults: yesterday 00:00 to today 00:00.
  const Window d = reportWindow(std::nullopt, std::nullopt, now);
  EXPECT_EQ(d.start, kDay2 - 86400);
  EXPECT_EQ(d.end, kDay2);
  EXPECT_EQ(d.seconds(), 86400);
}

TEST(SreportWindow, EndNowIsRoundedLikeAnyOtherEndAsTheReferencesWas) {
  // The reference's sreport on 2026-12-02 (start=00:00): at 04:29:15, end=now, now+1hours and
  // 04:31 all ended at 04:00 (printed 03:59:59); at 04:29:48 end=now, now+3hours and 04:40 at
  // 05:00; end=03:29:29 at 03:00, 03:29:30 at 04:00, 03:45 at 04:00; start=01:29:30 at 02:00.
  const std::int64_t at_0429_15 = kDay2 + 4 * 3600 + 29 * 60 + 15;
  const std::int64_t at_0429_48 = kDay2 + 4 * 3600 + 29 * 60 + 48;
  struct Case {
    std::int64_t end, now, want_end;
  };
  for (const Case& c : std::vector<Case>{
           {at_0429_15, at_0429_15, kDay2 + 4 * 3600},
           {at_0429_15 + 3600, at_0429_15, kDay2 + 4 * 3600},
           {kDay2 + 4 * 3600 + 31 * 60, at_0429_15, kDay2 + 4 * 3600},
           {at_0429_48, at_0429_48, kDay2 + 5 * 3600},
           {at_0429_48 + 3 * 3600, at_0429_48, kDay2 + 5 * 3600},
           {kDay2 + 4 * 3600 + 40 * 60, at_0429_48, kDay2 + 5 * 3600},
           {kDay2 + 4 * 3600 + 10 * 60, at_0429_48, kDay2 + 4 * 3600},
           {kDay2 + 3 * 3600 + 29 * 60 + 29, at_0429_48, kDay2 + 3 * 3600},
           {kDay2 + 3 * 3600 + 29 * 60 + 30, at_0429_48, kDay2 + 4 * 3600},
           {kDay2 + 3 * 3600 + 45 * 60, at_0429_48, kDay2 + 4 * 3600},
           {kDay2 + 3 * 3600 + 59 * 60 + 59, at_0429_48, kDay2 + 4 * 3600},
       }) {
    EXPECT_EQ(reportWindow(kDay2, c.end, c.now).end, c.want_end) << "end " << c.end << " now " << c.now;
  }
  EXPECT_EQ(reportWindow(kDay2 + 3600 + 29 * 60 + 29, kDay2 + 3 * 3600, at_0429_48).start, kDay2 + 3600);
  EXPECT_EQ(reportWindow(kDay2 + 3600 + 29 * 60 + 30, kDay2 + 3 * 3600, at_0429_48).start, kDay2 + 2 * 3600);
  // start=now at 04:29:48 (no end, or end=now): 05:00 to 06:00, the start plus an hour.
  const Window ahead = reportWindow(at_0429_48, std::nullopt, at_0429_48);
  EXPECT_EQ(ahead.start, kDay2 + 5 * 3600);
  EXPECT_EQ(ahead.end, kDay2 + 6 * 3600);
}

TEST(SreportUsage, SumsUpTheAccountTree) {
  const std::map<AssocKey, TresSeconds> by = {
      {{"research", "alice"}, {{"cpu", 1800}}},
      {{"research", "bob"}, {{"cpu", 60}}},
      {{"vision", "carol"}, {{"cpu", 8 * 1800}, {"gres/gpu", 3600}}},
  };
  const AccountParents parents{{"research", "root"}, {"vision", "research"}};
  const auto acc = usageByAccount(by, parents);
  EXPECT_DOUBLE_EQ(acc.at("vision").at("cpu"), 8 * 1800);
  EXPECT_DOUBLE_EQ(acc.at("research").at("cpu"), 1800 + 60 + 8 * 1800);
  EXPECT_DOUBLE_EQ(acc.at("root").at("cpu"), 1800 + 60 + 8 * 1800);
  EXPECT_DOUBLE_EQ(acc.at("root").at("gres/gpu"), 3600);
  // An account the tree does not know hangs under root.
  EXPECT_EQ(ancestors(parents, "nowhere"), std::vector<std::string>{"root"});
  EXPECT_EQ(ancestors(parents, "vision"), (std::vector<std::string>{"research", "root"}));
  // A cycle ends at root instead of looping.
  EXPECT_EQ(ancestors({{"a", "b"}, {"b", "a"}}, "a").back(), "root");
}

TEST(SreportUsage, ParsesTresCounts) {
  const auto t = acct::parseTresCounts("billing=4,cpu=4,gres/gpu=2,mem=16000M,node=2,bad,=3,x=y");
  EXPECT_DOUBLE_EQ(t.at("cpu"), 4);
  EXPECT_DOUBLE_EQ(t.at("gres/gpu"), 2);
  EXPECT_DOUBLE_EQ(t.at("mem"), 16000);
  EXPECT_EQ(t.count("x"), 0u);
  EXPECT_DOUBLE_EQ(acct::parseTresCounts("mem=62.50G").at("mem"), 64000);
  EXPECT_DOUBLE_EQ(acct::allocatedCounts("", 6).at("cpu"), 6);
  EXPECT_EQ(acct::allocatedCounts("node=1", 6).count("cpu"), 0u);
  EXPECT_DOUBLE_EQ(acct::requestedCounts("", 3).at("cpu"), 3);
}

TEST(SreportUtilization, SplitsTheClusterTimeIntoAllocatedPlannedAndIdle) {
  const Window w{kDay2, kDay2 + 3600};
  // 32 CPUs for half the window; 16 CPUs waited the last 20 minutes.
  const Utilization u = clusterUtilization(32.0 * 1800, 16.0 * 1200, w, 64);
  EXPECT_DOUBLE_EQ(u.reported, 64.0 * 3600);
  EXPECT_DOUBLE_EQ(u.allocated, 32.0 * 1800);
  EXPECT_DOUBLE_EQ(u.planned, 16.0 * 1200);
  EXPECT_DOUBLE_EQ(u.down, 0);
  EXPECT_DOUBLE_EQ(u.idle, u.reported - u.allocated - u.planned);
  EXPECT_DOUBLE_EQ(u.overcommitted, 0);
  // Waiting beyond the free time is OverCommitted, Planned stops at what was free.
  const Utilization over = clusterUtilization(32.0 * 1800, 1000.0 * 1200, w, 64);
  EXPECT_DOUBLE_EQ(over.planned, over.reported - over.allocated);
  EXPECT_DOUBLE_EQ(over.idle, 0);
  EXPECT_DOUBLE_EQ(over.overcommitted, 1000.0 * 1200 - over.planned);
  // More allocated than the cluster had is capped at it.
  EXPECT_DOUBLE_EQ(clusterUtilization(1e9, 0, w, 64).allocated, 64.0 * 3600);
}

TEST(SreportUtilization, DownTimeComesOutOfIdleAndPlanned) {
  const Window w{kDay2, kDay2 + 3600};
  // 32 CPUs allocated half the window, 8 CPUs down for the whole of it, 16 CPUs waited 20 min.
  const Utilization u = clusterUtilization(32.0 * 1800, 16.0 * 1200, w, 64, 8.0 * 3600);
  EXPECT_DOUBLE_EQ(u.down, 8.0 * 3600);
  EXPECT_DOUBLE_EQ(u.planned, 16.0 * 1200);
  EXPECT_DOUBLE_EQ(u.idle, u.reported - u.allocated - u.down - u.planned);
  EXPECT_DOUBLE_EQ(u.allocated + u.down + u.planned_down + u.idle + u.planned, u.reported);
  // Down never takes what jobs were allocated (a draining node's running jobs): capped.
  const Utilization full = clusterUtilization(60.0 * 3600, 0, w, 64, 8.0 * 3600);
  EXPECT_DOUBLE_EQ(full.down, 4.0 * 3600);
  EXPECT_DOUBLE_EQ(full.idle, 0);
  EXPECT_DOUBLE_EQ(full.planned_down, 0);
}

TEST(SreportSizes, BucketsJobsByTheirTresCount) {
  const std::vector<SizeTotal> sizes = {{"research", 1, 60, 1}, {"research", 3, 180, 1},
                                        {"vision", 60, 3600, 1}, {"vision", 7, 0, 0}};
  const SizeColumns cols = sizeColumns({2, 50}, false, sizes);
  EXPECT_EQ(sizeLabels(cols), (std::vector<std::string>{"0-1", "2-49", ">= 50"}));
  const auto by = sizesByAccount(sizes, cols, false);
  EXPECT_EQ(by.at("research"), (std::vector<double>{60, 180, 0}));
  EXPECT_EQ(by.at("vision"), (std::vector<double>{0, 0, 3600}));
  const auto counts = sizesByAccount(sizes, cols, true);
  EXPECT_EQ(counts.at("research"), (std::vector<double>{1, 1, 0}));
  // Individual sizes: every size the jobs had, even one whose jobs did not run in the window.
  const SizeColumns each = sizeColumns({}, true, sizes);
  EXPECT_EQ(sizeLabels(each), (std::vector<std::string>{"1", "3", "7", "60"}));
  EXPECT_EQ(sizesByAccount(sizes, each, false).at("vision"), (std::vector<double>{0, 0, 0, 3600}));
}

TEST(SreportQuery, AsksForTheGroupingAndConditionsOfTheReport) {
  const Window w{kDay2, kDay2 + 3600};
  ReportRequest r;
  r.kind = ReportKind::kAccountUtilizationByUser;
  r.accounts = {"research"};
  auto q = usageRequest(r, w, kDay2 + 100);
  EXPECT_EQ(q.grouping(), v1::USAGE_BY_ASSOCIATION);
  EXPECT_EQ(q.start(), kDay2);
  EXPECT_EQ(q.end(), kDay2 + 3600);
  EXPECT_EQ(q.now(), kDay2 + 100);
  EXPECT_TRUE(q.filter().all_users());
  EXPECT_TRUE(q.filter().duplicates());
  // Accounts= names subtrees here: the sums need the accounts below, so all are asked for.
  EXPECT_EQ(q.filter().accounts_size(), 0);
  r.users = {"alice"};
  q = usageRequest(r, w, kDay2);
  EXPECT_EQ(q.filter().accounts_size(), 1);
  EXPECT_EQ(q.filter().users_size(), 1);
  r.kind = ReportKind::kUtilization;
  EXPECT_EQ(usageRequest(r, w, kDay2).grouping(), v1::USAGE_TOTAL);
  r = {};
  r.kind = ReportKind::kSizesByAccount;
  r.accounts = {"research"};
  r.size_tres = "gres/gpu";
  r.gids = {100};
  r.nodes = {"n1"};
  q = usageRequest(r, w, kDay2);
  EXPECT_EQ(q.grouping(), v1::USAGE_BY_ACCOUNT_SIZE);
  EXPECT_EQ(q.size_tres(), "gres/gpu");
  EXPECT_EQ(q.filter().accounts_size(), 0);
  ASSERT_EQ(q.filter().gids_size(), 1);
  EXPECT_EQ(q.filter().gids(0), 100u);
  EXPECT_EQ(q.filter().nodes_size(), 1);
}

TEST(SreportQuery, ReadsTheRepliesGroupsAsTheReportNeedsThem) {
  v1::QueryUsageReply reply;
  auto* t = reply.add_totals();
  t->set_account("research");
  t->set_user("alice");
  t->set_size(4);
  t->set_jobs(2);
  (*t->mutable_allocated())["cpu"] = 480;
  (*t->mutable_allocated())["gres/gpu"] = 60;
  (*t->mutable_waiting())["cpu"] = 30;
  ReportRequest r;
  const UsageSums assoc = usageSums(r, reply);
  EXPECT_DOUBLE_EQ(assoc.by_assoc.at({"research", "alice"}).at("cpu"), 480);
  r.kind = ReportKind::kUtilization;
  const UsageSums total = usageSums(r, reply);
  EXPECT_DOUBLE_EQ(total.allocated.at("gres/gpu"), 60);
  EXPECT_DOUBLE_EQ(total.waiting.at("cpu"), 30);
  EXPECT_TRUE(total.down.empty());
  (*reply.mutable_down())["cpu"] = 120;
  EXPECT_DOUBLE_EQ(usageSums(r, reply).down.at("cpu"), 120);
  r.kind = ReportKind::kSizesByAccount;
  r.size_tres = "gres/gpu";
  const UsageSums sizes = usageSums(r, reply);
  ASSERT_EQ(sizes.sizes.size(), 1u);
  EXPECT_EQ(sizes.sizes[0].size, 4u);
  EXPECT_DOUBLE_EQ(sizes.sizes[0].tres_seconds, 60);
  EXPECT_EQ(sizes.sizes[0].jobs, 2u);
}

TEST(SreportArgs, ReadsTimeFormatsAndTres) {
  EXPECT_EQ(parseTimeFormat("hours")->unit, TimeUnit::kHours);
  EXPECT_FALSE(parseTimeFormat("percent")->value);
  EXPECT_TRUE(parseTimeFormat("MinPer")->percent);
  EXPECT_TRUE(parseTimeFormat("minper")->value);
  EXPECT_EQ(parseTimeFormat("s")->unit, TimeUnit::kSeconds);
  EXPECT_FALSE(parseTimeFormat("bogus"));
  EXPECT_EQ(*parseTresList("cpu,gres/gpu"), (std::vector<std::string>{"cpu", "gres/gpu"}));
  EXPECT_EQ(parseTresList("ALL")->size(), knownTres().size());
  EXPECT_EQ(parseTresList("bogus").error(), "sreport: fatal: No valid TRES given");
}

TEST(SreportArgs, ReadsConditions) {
  const std::int64_t now = kDay2 + 7000;
  auto cmd = parseCommandWords({"cluster", "AccountUtilizationByUser", "Start=2026-12-01T00:00:00", "end=now",
                                "Accounts=research,vision", "users=alice", "tree", "format=Account%20,Used"},
                               now);
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_EQ(cmd->report.kind, ReportKind::kAccountUtilizationByUser);
  EXPECT_EQ(*cmd->report.start, kDay2 - 86400);
  EXPECT_EQ(*cmd->report.end, now);
  EXPECT_EQ(cmd->report.accounts, (std::vector<std::string>{"research", "vision"}));
  EXPECT_EQ(cmd->report.users, std::vector<std::string>{"alice"});
  EXPECT_TRUE(cmd->report.tree);
  ASSERT_EQ(cmd->report.format.size(), 2u);
  EXPECT_EQ(cmd->report.format[0].width, 20);
  auto sizes = parseCommandWords({"job", "sizesbyaccount", "grouping=10,2", "printjobcount", "flatview"}, now);
  ASSERT_TRUE(sizes.ok());
  EXPECT_EQ(sizes->report.grouping, (std::vector<std::uint64_t>{2, 10}));
  EXPECT_TRUE(sizes->report.print_job_count);
  EXPECT_TRUE(sizes->report.flat_view);
  // The job report's job selection (man sreport): partitions, a node hostlist, job ids.
  auto picked = parseCommandWords({"job", "sizesbyaccount", "Partitions=gpu,debug", "nodes=n[1-2]",
                                   "jobs=12,13_2"}, now);
  ASSERT_TRUE(picked.ok()) << picked.error();
  EXPECT_EQ(picked->report.partitions, (std::vector<std::string>{"gpu", "debug"}));
  EXPECT_EQ(picked->report.nodes, (std::vector<std::string>{"n1", "n2"}));
  ASSERT_EQ(picked->report.jobs.size(), 2u);
  EXPECT_FALSE(picked->report.bad_condition);
  auto bad_nodes = parseCommandWords({"job", "sizesbyaccount", "nodes=n[2-", "jobs=x"}, now);
  ASSERT_TRUE(bad_nodes.ok());
  EXPECT_TRUE(bad_nodes->report.bad_condition);
  EXPECT_EQ(bad_nodes->report.warnings.size(), 2u);
  // GID=: group ids, or names as the system knows them (root is 0 everywhere).
  auto gids = parseCommandWords({"job", "sizesbyaccount", "GID=100,root"}, now);
  ASSERT_TRUE(gids.ok());
  EXPECT_EQ(gids->report.gids, (std::vector<std::uint32_t>{100, 0}));
  EXPECT_FALSE(gids->report.bad_condition);
  auto bad_gid = parseCommandWords({"job", "sizesbyaccount", "gid=no-such-group-x"}, now);
  ASSERT_TRUE(bad_gid.ok());
  EXPECT_TRUE(bad_gid->report.bad_condition);
  EXPECT_EQ(bad_gid->report.warnings, std::vector<std::string>{" Invalid group id: no-such-group-x"});
  auto gid_elsewhere = parseCommandWords({"cluster", "AccountUtilizationByUser", "gid=100"}, now);
  ASSERT_TRUE(gid_elsewhere.ok());
  EXPECT_TRUE(gid_elsewhere->report.bad_condition);
  auto elsewhere = parseCommandWords({"cluster", "AccountUtilizationByUser", "partitions=gpu"}, now);
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_TRUE(elsewhere->report.bad_condition);
  EXPECT_TRUE(elsewhere->report.partitions.empty());
  auto top = parseCommandWords({"user", "top", "TopCount=3", "group"}, now);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->report.kind, ReportKind::kTopUsage);
  EXPECT_EQ(top->report.top_count, 3);
  EXPECT_TRUE(top->report.group);
  auto bad = parseCommandWords({"cluster", "utilization", "bogus=1", "start=garbage"}, now);
  ASSERT_TRUE(bad.ok());
  EXPECT_TRUE(bad->report.bad_condition);
  EXPECT_FALSE(bad->report.start);
  EXPECT_EQ(parseCommandWords({"reservation", "utilization"}, now).ok(), false);
  EXPECT_EQ(parseCommandWords({"cluster", "UserUtilizationByWckey"}, now).ok(), false);
}

}  // namespace
}  // namespace drover::cli::sreport

namespace drover::cli::sreport {
namespace {

// A time that does not read is a warning with where its reading stopped; an empty one says
// nothing (the reference's sreport start= printed no line), and both keep the default.
TEST(SreportWindow, BadAndEmptyTimesKeepTheDefault) {
  const std::int64_t now = 1796040000;
  auto bad = parseCommandWords({"cluster", "utilization", "start=2026-13-45"}, now);
  ASSERT_TRUE(bad.ok()) << bad.error();
  EXPECT_EQ(bad->report.warnings,
            std::vector<std::string>{"Invalid time specification (pos=5): 2026-13-45"});
  auto empty = parseCommandWords({"cluster", "utilization", "start=", "end="}, now);
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_TRUE(empty->report.warnings.empty());
}

}  // namespace
}  // namespace drover::cli::sreport
