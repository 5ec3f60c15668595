// sreport's sums in the controller: SqliteAccountingStore::usage on a real database file (each
// job's run clipped to the window, running jobs up to now, sacct's filters) and
// ctld::queryUsage over it (TRES counts times seconds, per association, per account and job
// size, or in total with the eligible jobs' waiting; the caller's rights as QueryAccounting's).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <tuple>

#include "acct/sqlite_store.h"
#include "ctld/usage_query.h"
#include "../temp_dir.h"

namespace drover::ctld {
namespace {

constexpr std::int64_t kW = 1796083200;   // the window: [kW, kW + 1 h)
constexpr std::int64_t kEnd = kW + 3600;

acct::JobRecord job(std::uint64_t id, const std::string& account, const std::string& user,
                    const std::string& tres, std::int64_t start, std::int64_t end) {
  acct::JobRecord j;
  j.job_id = id;
  j.account = account;
  j.user = user;
  j.uid = user == "alice" ? 1001 : 1002;
  j.gid = user == "alice" ? 100 : 200;
  j.partition = "batch";
  j.alloc_tres = j.req_tres = tres;
  j.submit = j.eligible = start;
  j.start = start;
  j.end = end;
  j.state = end > 0 ? acct::JobState::kCompleted : acct::JobState::kRunning;
  j.node_list = "n1";
  return j;
}

class UsageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = acct::SqliteAccountingStore::open(dir_.file("acct.db"));
    ASSERT_TRUE(s.ok()) << s.error();
    store_ = std::move(*s);
  }
  void write(const std::vector<acct::JobRecord>& jobs, const std::vector<acct::JobRecord>& runs = {}) {
    acct::AcctBatch b;
    b.jobs = jobs;
    b.runs = runs;
    auto r = store_->apply(b);
    ASSERT_TRUE(r.ok()) << r.error();
  }
  // cpu-seconds per (account, user), as a root caller asks with `filter`, at `now`.
  std::map<std::pair<std::string, std::string>, double> cpuByAssoc(v1::QueryAccountingRequest filter = {},
                                                                   std::int64_t now = kEnd + 7200,
                                                                   rpc::Caller caller = {}) {
    v1::QueryUsageRequest q;
    *q.mutable_filter() = filter;
    q.mutable_filter()->set_all_users(true);
    q.set_start(kW);
    q.set_end(kEnd);
    q.set_now(now);
    auto reply = queryUsage(*store_, caller, q, "c1", 0);
    EXPECT_TRUE(reply.ok()) << (reply.ok() ? "" : reply.error());
    std::map<std::pair<std::string, std::string>, double> out;
    if (!reply.ok()) return out;
    EXPECT_EQ(reply->cluster_name(), "c1");
    for (const auto& t : reply->totals()) out[{t.account(), t.user()}] = t.allocated().at("cpu");
    return out;
  }
  TempDir dir_;
  std::unique_ptr<acct::SqliteAccountingStore> store_;
};

using Sums = std::map<std::pair<std::string, std::string>, double>;

TEST_F(UsageTest, ClipsEachRunToBothWindowEnds) {
  write({job(1, "research", "alice", "cpu=2", kW - 600, kW + 600),      // 600 s inside
         job(2, "research", "alice", "cpu=1", kEnd - 300, kEnd + 900),  // 300 s inside
         job(3, "research", "alice", "cpu=8", kW - 900, kW - 100),      // before the window
         job(4, "research", "alice", "cpu=8", kEnd, kEnd + 100),        // at its (exclusive) end
         job(5, "vision", "bob", "cpu=4", kW - 10, kEnd + 10),          // spans it
         job(6, "vision", "bob", "cpu=3", kW + 100, kW + 200)});
  EXPECT_EQ(cpuByAssoc(), (Sums{{{"research", "alice"}, 2 * 600 + 300}, {{"vision", "bob"}, 4 * 3600 + 300}}));
}

TEST_F(UsageTest, CountsRunningJobsUpToNow) {
  write({job(1, "research", "alice", "cpu=2", kW + 100, 0)});
  EXPECT_EQ(cpuByAssoc({}, kW + 1000), (Sums{{{"research", "alice"}, 2 * 900}}));
  // Past the window's end, the window's end bounds it.
  EXPECT_EQ(cpuByAssoc({}, kEnd + 5000), (Sums{{{"research", "alice"}, 2 * 3500}}));
  // Started after now (a clock behind the record's): nothing, not a negative sum.
  EXPECT_EQ(cpuByAssoc({}, kW + 50), Sums{});
}

TEST_F(UsageTest, MultipliesEveryTresAndFallsBackOnNcpus) {
  acct::JobRecord bare = job(1, "research", "alice", "", kW, kW + 100);
  bare.ncpus = 3;
  write({bare, job(2, "research", "alice", "billing=2,cpu=2,gres/gpu=1,mem=1G,node=1", kW, kW + 10)});
  v1::QueryUsageRequest q;
  q.mutable_filter()->set_all_users(true);
  q.set_start(kW);
  q.set_end(kEnd);
  auto reply = queryUsage(*store_, {}, q, "c1", kEnd);
  ASSERT_TRUE(reply.ok()) << reply.error();
  ASSERT_EQ(reply->totals_size(), 1);
  const auto& a = reply->totals(0).allocated();
  EXPECT_DOUBLE_EQ(a.at("cpu"), 300 + 20);
  EXPECT_DOUBLE_EQ(a.at("gres/gpu"), 10);
  EXPECT_DOUBLE_EQ(a.at("mem"), 1024 * 10);
  EXPECT_DOUBLE_EQ(a.at("node"), 10);
  EXPECT_EQ(reply->totals(0).jobs(), 2u);
}

TEST_F(UsageTest, AppliesTheAccountingFilters) {
  acct::JobRecord other_part = job(3, "research", "alice", "cpu=1", kW, kW + 10);
  other_part.partition = "gpu";
  other_part.node_list = "n[2-3]";
  write({job(1, "research", "alice", "cpu=1", kW, kW + 100), job(2, "vision", "bob", "cpu=1", kW, kW + 1000),
         other_part});
  v1::QueryAccountingRequest f;
  f.add_users("bob");
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"vision", "bob"}, 1000}}));
  f = {};
  f.add_accounts("research");
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"research", "alice"}, 110}}));
  f = {};
  f.add_partitions("gpu");
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"research", "alice"}, 10}}));
  f = {};
  f.add_gids(200);
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"vision", "bob"}, 1000}}));
  f = {};
  f.add_nodes("n3");   // inside n[2-3]
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"research", "alice"}, 10}}));
  f = {};
  f.add_jobs()->set_job_id(2);
  f.add_jobs()->set_job_id(3);
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"research", "alice"}, 10}, {{"vision", "bob"}, 1000}}));
}

TEST_F(UsageTest, CountsEarlierRunsOfRequeuedJobs) {
  acct::JobRecord first = job(1, "research", "alice", "cpu=1", kW, kW + 100);
  first.state = acct::JobState::kRequeued;
  acct::JobRecord second = job(1, "research", "alice", "cpu=1", kW + 200, kW + 250);
  second.restart_count = 1;
  write({second}, {first});
  v1::QueryAccountingRequest f;
  f.set_duplicates(true);
  EXPECT_EQ(cpuByAssoc(f), (Sums{{{"research", "alice"}, 150}}));
  EXPECT_EQ(cpuByAssoc(), (Sums{{{"research", "alice"}, 50}}));
}

TEST_F(UsageTest, ANonRootCallerSeesOnlyTheirOwnJobsUnlessAllUsers) {
  write({job(1, "research", "alice", "cpu=1", kW, kW + 100), job(2, "vision", "bob", "cpu=1", kW, kW + 1000)});
  v1::QueryUsageRequest q;
  q.set_start(kW);
  q.set_end(kEnd);
  auto own = queryUsage(*store_, rpc::Caller{1001, 100}, q, "c1", kEnd);
  ASSERT_TRUE(own.ok()) << own.error();
  ASSERT_EQ(own->totals_size(), 1);
  EXPECT_EQ(own->totals(0).user(), "alice");
  EXPECT_EQ(cpuByAssoc({}, kEnd, rpc::Caller{1001, 100}).size(), 2u);   // all_users, as sreport asks
}

TEST_F(UsageTest, TotalsTheWaitingOfEligibleJobs) {
  acct::JobRecord waited = job(1, "research", "alice", "cpu=2", 0, kW + 600);   // cancelled pending
  waited.eligible = kW - 100;
  acct::JobRecord queued = job(2, "research", "alice", "cpu=1", kW + 300, kW + 900);   // waited 300 s
  queued.eligible = kW;
  acct::JobRecord pending = job(3, "vision", "bob", "cpu=4", 0, 0);   // still waiting at now
  pending.eligible = kEnd - 100;
  write({waited, queued, pending});
  v1::QueryUsageRequest q;
  q.mutable_filter()->set_all_users(true);
  q.set_start(kW);
  q.set_end(kEnd);
  q.set_now(kEnd + 50);
  q.set_grouping(v1::USAGE_TOTAL);
  auto reply = queryUsage(*store_, {}, q, "c1", 0);
  ASSERT_TRUE(reply.ok()) << reply.error();
  ASSERT_EQ(reply->totals_size(), 1);
  EXPECT_DOUBLE_EQ(reply->totals(0).allocated().at("cpu"), 600);
  EXPECT_DOUBLE_EQ(reply->totals(0).waiting().at("cpu"), 2 * 600 + 300 + 4 * 100);
  EXPECT_EQ(reply->totals(0).jobs(), 1u);
}

TEST_F(UsageTest, GroupsByAccountAndJobSize) {
  write({job(1, "research", "alice", "cpu=1", kW, kW + 100), job(2, "research", "bob", "cpu=1", kW, kW + 50),
         job(3, "research", "alice", "cpu=16", kW, kW + 10), job(4, "vision", "bob", "cpu=1", kW, kW + 7),
         job(5, "vision", "bob", "cpu=64", kEnd - 1, 0)});   // started, but now is before it
  v1::QueryUsageRequest q;
  q.mutable_filter()->set_all_users(true);
  q.set_start(kW);
  q.set_end(kEnd);
  q.set_now(kEnd - 2);
  q.set_grouping(v1::USAGE_BY_ACCOUNT_SIZE);
  q.set_size_tres("cpu");
  auto reply = queryUsage(*store_, {}, q, "c1", 0);
  ASSERT_TRUE(reply.ok()) << reply.error();
  std::map<std::tuple<std::string, std::uint64_t>, std::pair<double, std::uint64_t>> got;
  for (const auto& t : reply->totals()) {
    EXPECT_EQ(t.user(), "");
    auto it = t.allocated().find("cpu");
    got[{t.account(), t.size()}] = {it == t.allocated().end() ? 0 : it->second, t.jobs()};
  }
  const std::map<std::tuple<std::string, std::uint64_t>, std::pair<double, std::uint64_t>> want = {
      {{"research", 1}, {150, 2}}, {{"research", 16}, {160, 1}}, {{"vision", 1}, {7, 1}}, {{"vision", 64}, {0, 0}}};
  EXPECT_EQ(got, want);
}

TEST_F(UsageTest, RefusesAnEmptyWindowAndAnUnknownGrouping) {
  v1::QueryUsageRequest q;
  q.set_start(kW);
  q.set_end(kW);
  EXPECT_EQ(usageRequestError(q), "usage window: end must be after start");
  EXPECT_FALSE(queryUsage(*store_, {}, q, "c1", kEnd).ok());
  q.set_end(kEnd);
  EXPECT_EQ(usageRequestError(q), "");
  q.set_grouping(static_cast<v1::UsageGrouping>(7));
  EXPECT_EQ(usageRequestError(q), "unknown usage grouping 7");
  EXPECT_FALSE(queryUsage(*store_, {}, q, "c1", kEnd).ok());
}

TEST_F(UsageTest, SearchesTheWindowByIndex) {
  acct::AcctFilter f;
  auto plan = store_->explainUsage(f, acct::UsageWindow{kW, kEnd, kEnd});
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_NE(plan->find("USING INDEX"), std::string::npos) << *plan;
  EXPECT_EQ(plan->find("SCAN jobs"), std::string::npos) << *plan;
}

}  // namespace
}  // namespace drover::ctld
