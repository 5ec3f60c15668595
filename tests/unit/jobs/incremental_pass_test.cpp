// The controller's maintained scheduler against a full rebuild: after every step of random
// sequences of submissions (plain, held, arrays with a %N limit, dependencies, nice), cancels,
// starts, ends, holds, releases, updates and clock moves, the plan of the maintained
// sched::Scheduler equals schedule() on a snapshot built afresh from the job table, and the
// entries its apply left unwritten are those writing would not change. Also: a submission on a
// settled queue is an incremental pass, and fair-share usage is charged, ordered and persisted.
#include <gtest/gtest.h>

#include <csignal>
#include <random>

#include "jobs/fair_share.h"
#include "jobs/usage_store.h"
#include "jobs_fixture.h"
#include "sched/incremental.h"

namespace drover::jobs::testing {
namespace {

// Plans are equal when they start the same jobs on the same resources and say the same about
// every other job, in the same order.
void expectSamePlan(const sched::Plan& got, const sched::Plan& want, const std::string& where) {
  ASSERT_EQ(got.starts.size(), want.starts.size()) << where;
  for (std::size_t i = 0; i < got.starts.size(); ++i) {
    const auto& a = got.starts[i];
    const auto& b = want.starts[i];
    EXPECT_EQ(a.id, b.id) << where;
    EXPECT_EQ(a.endTime, b.endTime) << where;
    ASSERT_EQ(a.allocation.nodes.size(), b.allocation.nodes.size()) << where;
    for (std::size_t k = 0; k < a.allocation.nodes.size(); ++k) {
      EXPECT_EQ(a.allocation.nodes[k].node, b.allocation.nodes[k].node) << where;
      EXPECT_EQ(a.allocation.nodes[k].cpus, b.allocation.nodes[k].cpus) << where;
      EXPECT_EQ(a.allocation.nodes[k].memoryMb, b.allocation.nodes[k].memoryMb) << where;
      EXPECT_EQ(a.allocation.nodes[k].gpus, b.allocation.nodes[k].gpus) << where;
      EXPECT_EQ(a.allocation.nodes[k].tasks, b.allocation.nodes[k].tasks) << where;
    }
  }
  ASSERT_EQ(got.pending.size(), want.pending.size()) << where;
  for (std::size_t i = 0; i < got.pending.size(); ++i) {
    const auto& a = got.pending[i];
    const auto& b = want.pending[i];
    EXPECT_EQ(a.id, b.id) << where << " pending #" << i;
    EXPECT_EQ(a.reason, b.reason) << where << " job " << a.id;
    EXPECT_EQ(a.expectedStart, b.expectedStart) << where << " job " << a.id;
    EXPECT_EQ(a.plannedNodes, b.plannedNodes) << where << " job " << a.id;
    EXPECT_EQ(a.estimatedStart, b.estimatedStart) << where << " job " << a.id;
  }
}

class IncrementalPassTest : public JobsTest {
 protected:
  // One controller pass, checked against a full schedule() of the job table first.
  std::vector<Launch> checkedPass(const std::string& where) {
    const auto nodes = nodeViews();
    const sched::Plan& plan = manager_->planPass(nodes);
    sched::Plan fresh = sched::schedule(manager_->tableSnapshot(nodes),
                                        manager_->schedulerParams(), clock_.now());
    expectSamePlan(plan, fresh, where);
    const sched::Plan copy = plan;  // applyPass moves the maintained plan on
    auto launches = manager_->applyPass(plan);
    EXPECT_TRUE(manager_->commit().ok());
    // The apply left unwritten only entries that writing would not change: writing the whole
    // plan again (applyPlan writes every entry) changes nothing.
    const auto written = manager_->applyStats().written;
    manager_->applyPlan(copy);
    EXPECT_EQ(manager_->applyStats().written, written) << where;
    EXPECT_TRUE(manager_->commit().ok());
    return launches;
  }

  std::vector<JobId> inState(v1::JobState state) {
    std::vector<JobId> out;
    v1::GetJobsRequest all;
    for (const auto& j : manager_->query(all)) {
      if (j.state() == state) out.push_back(j.job_id());
    }
    return out;
  }
};

TEST_F(IncrementalPassTest, RandomEventSequencesPlanLikeAFullRebuild) {
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    std::vector<JobId> submitted;
    for (int step = 0; step < 150; ++step) {
      const std::string where = "seed " + std::to_string(seed) + " step " + std::to_string(step);
      int op = pick(10);
      if (op <= 3) {
        SpecBuilder b;
        b.nodes(1 + pick(2)).ntasks(1 + pick(4)).time(1 + pick(50));
        if (pick(2)) b.gres("gpu", static_cast<std::uint32_t>(1 + pick(2)));
        if (pick(3) == 0) b.account("research");
        if (pick(8) == 0) b.hold();
        if (pick(8) == 0) b.array("0-4%2");
        if (pick(6) == 0 && !submitted.empty()) {
          b.dependency("afterany:" + std::to_string(submitted[pick(static_cast<int>(submitted.size()))]));
        }
        if (pick(6) == 0) b.nice(pick(50));
        if (pick(10) == 0) b.partition("debug").time(10).nodes(1);
        JobId id = submit(b, pick(2) ? alice() : bob());
        if (id) submitted.push_back(id);
      } else if (op == 4 || op == 5) {
        auto running = inState(v1::JOB_RUNNING);
        if (!running.empty()) finishBatch(running[pick(static_cast<int>(running.size()))], pick(2));
      } else if (op == 6) {
        auto pending = inState(v1::JOB_PENDING);
        if (!pending.empty()) {
          v1::CancelJobsRequest r;
          r.add_job_ids(std::to_string(pending[pick(static_cast<int>(pending.size()))]));
          manager_->cancel(root(), r);
          EXPECT_TRUE(manager_->commit().ok());
        }
      } else if (op == 7) {
        auto pending = inState(v1::JOB_PENDING);
        if (!pending.empty()) {
          v1::JobControlRequest r;
          r.set_action(pick(3) ? "release" : "hold");
          r.add_job_ids(std::to_string(pending[pick(static_cast<int>(pending.size()))]));
          manager_->control(root(), r);
          EXPECT_TRUE(manager_->commit().ok());
        }
      } else if (op == 8 && pick(2)) {
        auto pending = inState(v1::JOB_PENDING);
        if (!pending.empty()) {
          v1::UpdateJobRequest u;
          u.set_job_id(std::to_string(pending[pick(static_cast<int>(pending.size()))]));
          (*u.mutable_fields())[pick(2) ? "TimeLimit" : "Nice"] = std::to_string(1 + pick(40));
          manager_->update(root(), u);
          EXPECT_TRUE(manager_->commit().ok());
        }
      } else {
        clock_.advanceSeconds(pick(90));
      }
      checkedPass(where);
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
    }
    reopen();  // recovery rebuilds the scheduler from the table; the next seed starts there
  }
}

TEST_F(IncrementalPassTest, ASubmissionOnASettledQueueIsAnIncrementalPass) {
  // Fill the cluster, then queue more work behind it than the scheduler estimates starts for
  // (SchedulerParams::estimateDepth), so a later job of the same shape changes nobody's plan.
  const int queued = manager_->schedulerParams().estimateDepth + 10;
  for (int i = 0; i < 4 + queued; ++i) {
    ASSERT_TRUE(manager_->submit(alice(), SpecBuilder().nodes(1).ntasks(4).time(30)));
  }
  ASSERT_TRUE(manager_->commit().ok());
  checkedPass("fill");
  checkedPass("settle");
  const sched::Scheduler* maintained = manager_->maintainedScheduler();
  const auto before = maintained->counters();
  submit(SpecBuilder().nodes(1).ntasks(4).time(30));
  checkedPass("one more");
  EXPECT_EQ(manager_->maintainedScheduler(), maintained);  // not rebuilt
  const auto after = maintained->counters();
  EXPECT_EQ(after.fullPasses, before.fullPasses);
  EXPECT_EQ(after.incrementalPasses, before.incrementalPasses + 1);
}

// A running job whose time limit is cut ends sooner in the maintained scheduler (ended and
// started again there), and the pass after it writes what that moved: the reservation of the
// job waiting for its nodes. Nothing else marks that pass's entries as changed.
TEST_F(IncrementalPassTest, ACutTimeLimitMovesTheReservationBehindIt) {
  const JobId big = submit(SpecBuilder().nodes(4).ntasks(16).time(60));
  checkedPass("start");
  ASSERT_EQ(job(big).state(), v1::JOB_RUNNING);
  const JobId next = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  checkedPass("queue");
  const auto reserved = job(next).start_time();
  ASSERT_EQ(reserved, job(big).start_time() + 60 * 60);
  v1::UpdateJobRequest cut;
  cut.set_job_id(std::to_string(big));
  (*cut.mutable_fields())["TimeLimit"] = "10";
  manager_->update(root(), cut);
  ASSERT_TRUE(manager_->commit().ok());
  checkedPass("cut");
  EXPECT_EQ(job(next).start_time(), job(big).start_time() + 10 * 60);
}

// Each start records the scheduling path Slurm's job flags name (sacct Flags, -F): the pass
// after its submission (SchedSubmit), a later one (SchedMain), or ahead of a higher-ranked job
// that must wait (SchedBackfill); a requeue clears it; accounting keeps the names.
TEST_F(IncrementalPassTest, StartsRecordTheSchedulingPathAsSlurmsJobFlags) {
  const JobId half = submit(SpecBuilder().nodes(2).ntasks(8).time(30));
  checkedPass("half");
  EXPECT_EQ(job(half).started_by(), v1::STARTED_ON_SUBMIT);
  const JobId whole = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  checkedPass("whole waits");
  EXPECT_EQ(job(whole).started_by(), v1::STARTED_BY_NONE);
  const JobId shorter = submit(SpecBuilder().nodes(1).ntasks(4).time(10));
  checkedPass("backfill");
  ASSERT_EQ(job(shorter).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(shorter).started_by(), v1::STARTED_ON_BACKFILL);
  finishBatch(half, 0);
  finishBatch(shorter, 0);
  checkedPass("whole starts");
  ASSERT_EQ(job(whole).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(whole).started_by(), v1::STARTED_ON_SCHEDULE);
  auto recorded = [&](JobId id) {
    std::vector<std::string> flags;
    for (const auto& r : manager_->takeAccounting().jobs) {
      if (r.job_id == id) flags = r.flags;
    }
    return flags;
  };
  EXPECT_EQ(recorded(whole), (std::vector<std::string>{"SchedMain", "StartRecieved"}));
  v1::JobControlRequest requeue;
  requeue.set_action("requeue");
  requeue.add_job_ids(std::to_string(whole));
  ASSERT_TRUE(manager_->control(alice(), requeue)[0].ok());
  finishBatch(whole, 0, SIGKILL);
  ASSERT_EQ(job(whole).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(whole).started_by(), v1::STARTED_BY_NONE);
  EXPECT_EQ(recorded(whole), (std::vector<std::string>{"StartRecieved"}));
  checkedPass("whole again");

  // Submitted held and released before any pass saw it: still the main scheduler's start.
  finishBatch(whole, 0);
  const JobId held = submit(SpecBuilder().hold().time(10));
  ASSERT_TRUE(manager_->control(alice(), act("release", std::to_string(held)))[0].ok());
  checkedPass("released");
  ASSERT_EQ(job(held).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(held).started_by(), v1::STARTED_ON_SCHEDULE);
}

TEST_F(IncrementalPassTest, FairShareRanksTheUserWithoutUsageFirst) {
  config_.scheduler.priority.age = 0;
  config_.scheduler.priority.job_size = 0;
  // alice uses the whole cluster for ten minutes.
  JobId heavy = submit(SpecBuilder().account("research").nodes(4).ntasks(16).time(30), alice());
  checkedPass("heavy starts");
  ASSERT_EQ(job(heavy).state(), v1::JOB_RUNNING);
  clock_.advanceSeconds(600);
  finishBatch(heavy, 0);
  checkedPass("heavy ended");
  // A blocker, then alice's job, then bob's: bob's ranks first.
  JobId block = submit(SpecBuilder().nodes(4).ntasks(16).time(30), root());
  checkedPass("block");
  JobId ja = submit(SpecBuilder().account("research").nodes(4).ntasks(16).time(30), alice());
  JobId jb = submit(SpecBuilder().account("research").nodes(4).ntasks(16).time(30), bob());
  checkedPass("queued");
  EXPECT_GT(job(jb).priority(), job(ja).priority());
  v1::GetSharesRequest all;
  all.set_all_users(true);
  double alice_usage = 0;
  const auto all_shares = manager_->shares(root(), all);
  for (const auto& s : all_shares.shares()) {
    if (s.user() == "alice") alice_usage = s.raw_usage();
  }
  EXPECT_DOUBLE_EQ(alice_usage, 16.0 * 600);  // no decay within the same second
  finishBatch(block, 0);
  auto launches = checkedPass("block ended");
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].job_id, jb);

  v1::GetPrioritiesRequest pr;
  auto reply = manager_->priorities(pr);
  ASSERT_EQ(reply.jobs_size(), 1);
  EXPECT_EQ(reply.jobs(0).job_id(), ja);
  EXPECT_LT(reply.jobs(0).fairshare(), 1.0);
}

// Slurm folds usage into fair share every PriorityCalcPeriod: a run that ended a moment ago
// changes neither new jobs' priorities nor sshare until the next calculation.
TEST_F(IncrementalPassTest, UsageCountsFromTheNextPriorityCalculation) {
  config_.scheduler.priority.age = 0;
  config_.scheduler.priority.job_size = 0;
  config_.scheduler.priority.calc_period_s = 300;
  config_.scheduler.priority.decay_half_life_s = 0;  // usage stays what was charged
  checkedPass("first calculation");
  JobId used = submit(SpecBuilder().account("research").nodes(1).ntasks(4).time(30), alice());
  checkedPass("alice starts");
  clock_.advanceSeconds(100);
  finishBatch(used, 0);
  checkedPass("alice ended");
  auto aliceUsage = [&] {
    v1::GetSharesRequest all;
    all.set_all_users(true);
    const auto reply = manager_->shares(root(), all);
    for (const auto& s : reply.shares()) {
      if (s.user() == "alice") return s.raw_usage();
    }
    return -1.0;
  };
  JobId block = submit(SpecBuilder().nodes(4).ntasks(16).time(30), root());
  checkedPass("block");
  JobId ja = submit(SpecBuilder().account("research").nodes(4).ntasks(16).time(30), alice());
  JobId jb = submit(SpecBuilder().account("research").nodes(4).ntasks(16).time(30), bob());
  checkedPass("queued within the period");
  EXPECT_EQ(job(ja).priority(), job(jb).priority());
  EXPECT_DOUBLE_EQ(aliceUsage(), 0.0);

  clock_.advanceSeconds(200);  // 300 s after the first calculation
  checkedPass("second calculation");
  EXPECT_GT(job(jb).priority(), job(ja).priority());
  EXPECT_DOUBLE_EQ(aliceUsage(), 4.0 * 100);
  finishBatch(block, 0);
  checkedPass("block ended");
}

// sprio right after sbatch, before the pass that ranks the job, shows the priority that pass
// gives it (Slurm's job has one from submission), not 0.
TEST_F(IncrementalPassTest, SprioBeforeTheFirstPassShowsThePriorityThePassGives) {
  submit(SpecBuilder().nodes(4).ntasks(16).time(30), root());
  checkedPass("block");
  JobId j = submit(SpecBuilder().account("research").nodes(1).ntasks(1).time(30), bob());
  v1::GetPrioritiesRequest all;
  const auto before = manager_->priorities(all);
  ASSERT_EQ(before.jobs_size(), 1);
  EXPECT_EQ(before.jobs(0).job_id(), j);
  EXPECT_GT(before.jobs(0).priority(), 0);
  checkedPass("ranked");
  const auto after = manager_->priorities(all);
  ASSERT_EQ(after.jobs_size(), 1);
  EXPECT_EQ(after.jobs(0).priority(), before.jobs(0).priority());
  EXPECT_EQ(after.jobs(0).priority(), job(j).priority());
}

// sprio lists the pending jobs the scheduler may start now (golden 084): not held jobs, jobs
// waiting on a dependency or their begin time, or array tasks over their %N throttle.
TEST_F(IncrementalPassTest, SprioListsOnlyJobsTheSchedulerMayStart) {
  JobId block = submit(SpecBuilder().nodes(4).ntasks(16).time(30), root());
  checkedPass("block");
  auto pending = [&] { return SpecBuilder().account("research").nodes(1).ntasks(1).time(30); };
  JobId waiting = submit(pending(), alice());
  JobId held = submit(pending().hold(), alice());
  submit(pending().dependency("afterok:" + std::to_string(block)), bob());
  submit(pending().begin(clock_.now() + 3600), bob());
  JobId array = submit(pending().array("0-3%1"), bob());
  checkedPass("queued");
  auto listed = [&] {
    std::vector<JobId> ids;
    const auto reply = manager_->priorities(v1::GetPrioritiesRequest());
    for (const auto& p : reply.jobs()) ids.push_back(p.job_id());
    return ids;
  };
  // The array's one slot goes to one task (shown as the array's id, as a pending task has no id
  // of its own); its other tasks wait for the throttle.
  const auto ids = listed();
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], waiting);
  EXPECT_EQ(ids[1], array);
  // Released, the held job is listed.
  v1::GetPrioritiesRequest one;
  one.add_job_ids(held);
  EXPECT_EQ(manager_->priorities(one).jobs_size(), 0);
  v1::JobControlRequest release;
  release.set_action("release");
  release.add_job_ids(std::to_string(held));
  manager_->control(alice(), release);
  EXPECT_EQ(manager_->priorities(one).jobs_size(), 1);
}

// A run that has ended counts to its end even while the scheduler still holds it as running
// (it hears of the end at its next pass): sshare in between shows what that pass will charge
// and save, not usage that a restart would then take back.
TEST_F(IncrementalPassTest, AnEndedRunCountsToItsEndBeforeThePassChargesIt) {
  config_.scheduler.priority.decay_half_life_s = 0;
  JobId j = submit(SpecBuilder().account("research").nodes(1).ntasks(4).time(30), alice());
  checkedPass("start");
  clock_.advanceSeconds(100);
  finishBatch(j, 0);
  // No pass yet, and the usage sshare read at the start is a calculation period old.
  clock_.advanceSeconds(config_.scheduler.priority.calc_period_s);
  auto aliceUsage = [&] {
    v1::GetSharesRequest req;
    req.add_users("alice");
    const auto reply = manager_->shares(root(), req);
    for (const auto& s : reply.shares()) {
      if (s.user() == "alice") return s.raw_usage();
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(aliceUsage(), 4.0 * 100);
  checkedPass("charges the run");
  clock_.advanceSeconds(config_.scheduler.priority.calc_period_s);
  EXPECT_DOUBLE_EQ(aliceUsage(), 4.0 * 100);
}

TEST_F(IncrementalPassTest, UsageSurvivesARestart) {
  const std::string path = (dir_ / "usage.db").string();
  {
    auto store = UsageStore::open(path);
    ASSERT_TRUE(store.ok()) << store.error();
    ASSERT_TRUE(manager_->attachUsageStore(std::move(*store)).ok());
  }
  JobId j = submit(SpecBuilder().account("research").nodes(1).ntasks(2).time(30), bob());
  checkedPass("start");
  clock_.advanceSeconds(100);
  finishBatch(j, 0);
  checkedPass("end");  // charges the run; the commit after it writes usage.db
  reopen();
  auto store = UsageStore::open(path);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(manager_->attachUsageStore(std::move(*store)).ok());
  v1::GetSharesRequest req;
  req.add_users("bob");
  double usage = -1;
  const auto bobs = manager_->shares(root(), req);
  for (const auto& s : bobs.shares()) {
    if (s.user() == "bob") usage = s.raw_usage();
  }
  EXPECT_DOUBLE_EQ(usage, 200.0);
}

TEST(UsageLedgerTest, DecaysByHalfEveryHalfLife) {
  UsageLedger ledger(100);
  ledger.charge({"research", "alice"}, 800, 1000);
  EXPECT_DOUBLE_EQ(ledger.usage({"research", "alice"}, 1000), 800);
  EXPECT_DOUBLE_EQ(ledger.usage({"research", "alice"}, 1100), 400);
  EXPECT_DOUBLE_EQ(ledger.usage({"research", "alice"}, 1300), 100);
  ledger.charge({"research", "alice"}, 100, 1300);
  EXPECT_DOUBLE_EQ(ledger.usage({"research", "alice"}, 1300), 200);
  UsageLedger forever(0);
  forever.charge({"a", "u"}, 5, 0);
  EXPECT_DOUBLE_EQ(forever.usage({"a", "u"}, 1'000'000), 5);
}

TEST(ShareTableTest, ShapesLikeSlurmsTreeAndRanksByUsage) {
  config::ClusterConfig c;
  c.accounts.push_back({"research", "", 1, {"bob", "alice"}});
  c.accounts.push_back({"ops", "", 3, {"carol"}});
  ShareTable t(c, {{{"research", "alice"}, 300}, {{"root", "root"}, 100}});
  std::vector<std::string> order;
  for (const auto& r : t.rows()) order.push_back(std::string(r.depth, ' ') + r.account + "/" + r.user);
  EXPECT_EQ(order, (std::vector<std::string>{"root/", " root/root", " research/", "  research/alice",
                                             "  research/bob", " ops/", "  ops/carol"}));
  const auto& rows = t.rows();
  EXPECT_DOUBLE_EQ(rows[0].raw_usage, 400);
  EXPECT_DOUBLE_EQ(rows[1].norm_shares, 0.2);      // root user: 1 of 1+1+3
  EXPECT_DOUBLE_EQ(rows[2].norm_shares, 0.2);      // research
  EXPECT_DOUBLE_EQ(rows[3].norm_shares, 0.5);      // alice among alice, bob
  EXPECT_DOUBLE_EQ(rows[3].effective_usage, 1.0);  // all of research's usage
  EXPECT_DOUBLE_EQ(rows[3].norm_usage, 0.75);
  // Classic factor: 2^(-0.75 / (0.2 * 0.5)).
  EXPECT_DOUBLE_EQ(t.factor("research", "alice"), std::exp2(-7.5));
  EXPECT_DOUBLE_EQ(t.factor("research", "bob"), 1.0);
  EXPECT_DOUBLE_EQ(t.factor("", "root"), std::exp2(-0.25 / 0.2));
  EXPECT_DOUBLE_EQ(t.factor("nosuch", "alice"), 0.0);
}

}  // namespace
}  // namespace drover::jobs::testing
