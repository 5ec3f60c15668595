// scancel with many ids in one request (xargs -n 1000 scancel): the same results, job states,
// accounting records and agent signals as one request per id; the maintained scheduler drops
// the cancelled jobs in one walk (Scheduler::onJobsEnded) and still plans as a full schedule()
// of the job table does.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "jobs_fixture.h"
#include "sched/incremental.h"

namespace drover::jobs::testing {
namespace {

v1::CancelJobsRequest cancelIds(const std::vector<std::string>& ids) {
  v1::CancelJobsRequest r;
  for (const auto& id : ids) r.add_job_ids(id);
  return r;
}

// What an observer of the controller sees after a cancel, as text, so two runs compare whole.
std::string describe(const std::vector<v1::CancelResult>& results) {
  std::ostringstream out;
  for (const auto& r : results) out << r.job_id() << ' ' << r.ok() << ' ' << r.error() << '\n';
  return out.str();
}

std::string describe(const acct::AcctBatch& batch) {
  std::vector<std::string> rows;
  for (const auto& r : batch.jobs) {
    std::ostringstream row;
    row << r.job_id << " state=" << static_cast<int>(r.state) << " submit=" << r.submit
        << " eligible=" << r.eligible << " start=" << r.start << " end=" << r.end
        << " by=" << (r.cancelled_by ? std::to_string(*r.cancelled_by) : "-")
        << " exit=" << r.exit.code << ':' << r.exit.signal << " reason=" << r.reason
        << " nodes=" << r.node_list;
    rows.push_back(row.str());
  }
  for (const auto& s : batch.steps) {
    rows.push_back(std::to_string(s.job_id) + "." + std::to_string(s.step_id) +
                   " state=" + std::to_string(static_cast<int>(s.state)));
  }
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const auto& r : rows) out += r + '\n';
  return out;
}

std::string describe(const std::vector<SignalAction>& signals) {
  std::vector<std::string> rows;
  for (const auto& a : signals) {
    std::string row = std::to_string(a.job_id) + " sig=" + std::to_string(a.request.signal()) +
                      " kill=" + std::to_string(a.request.kill()) + " nodes=";
    for (const auto& n : a.nodes) row += n + ",";
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const auto& r : rows) out += r + '\n';
  return out;
}

class CancelBatchTest : public JobsTest {
 protected:
  // A mixed queue: alice's running and pending jobs, a held one, an array, bob's pending job.
  struct Queue {
    std::vector<std::string> ids;  // every id as scancel would name it, plus one unknown
  };
  Queue fill() {
    Queue q;
    for (int i = 0; i < 4; ++i) q.ids.push_back(std::to_string(submit(SpecBuilder().ntasks(4))));
    pass();  // the first four run (one node each)
    for (int i = 0; i < 6; ++i) q.ids.push_back(std::to_string(submit(SpecBuilder().ntasks(2))));
    q.ids.push_back(std::to_string(submit(SpecBuilder().hold())));
    const JobId array = submit(SpecBuilder().array("0-4"));
    q.ids.push_back(std::to_string(array) + "_1");
    q.ids.push_back(std::to_string(array) + "_[3-4]");
    q.ids.push_back(std::to_string(submit(SpecBuilder(), bob())));  // denied to alice
    q.ids.push_back("999999");                                        // unknown
    return q;
  }

  struct Outcome {
    std::string results, jobs, accounting, signals;
  };
  Outcome observe(const std::vector<v1::CancelResult>& results) {
    EXPECT_TRUE(manager_->commit().ok());
    Outcome o;
    o.results = describe(results);
    std::ostringstream states;
    v1::GetJobsRequest all;
    for (const auto& j : manager_->query(all)) {
      states << j.job_id() << ' ' << v1::JobState_Name(j.state()) << " end=" << j.end_time()
             << " start=" << j.start_time() << " by=" << j.cancelled_by()
             << " reason=" << j.reason() << '\n';
    }
    o.jobs = states.str();
    o.accounting = describe(manager_->takeAccounting());
    o.signals = describe(manager_->takeSignals());
    return o;
  }
};

TEST_F(CancelBatchTest, OneRequestOfManyIdsEqualsOneRequestPerId) {
  Queue q = fill();
  manager_->takeAccounting();
  manager_->takeSignals();
  clock_.advanceSeconds(10);
  Outcome batch = observe(manager_->cancel(alice(), cancelIds(q.ids)));

  // The same queue afresh (same ids: a new database), cancelled one id per request.
  TearDown();
  SetUp();
  clock_.setMs(FakeClock::kDefaultStartMs);  // both runs at the same instants
  Queue again = fill();
  ASSERT_EQ(again.ids, q.ids);
  manager_->takeAccounting();
  manager_->takeSignals();
  clock_.advanceSeconds(10);
  std::vector<v1::CancelResult> results;
  for (const auto& id : q.ids) {
    for (auto& r : manager_->cancel(alice(), cancelIds({id}))) results.push_back(std::move(r));
  }
  Outcome single = observe(results);

  EXPECT_EQ(batch.results, single.results);
  EXPECT_EQ(batch.jobs, single.jobs);
  EXPECT_EQ(batch.accounting, single.accounting);
  EXPECT_EQ(batch.signals, single.signals);
  // And it did cancel: alice's pending jobs are CANCELLED, her running ones are being killed.
  EXPECT_EQ(killedInto(*manager_->find(std::stoull(q.ids[0]))), v1::JOB_CANCELLED);  // shown CANCELLED+CG
  EXPECT_EQ(job(std::stoull(q.ids[4])).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(std::stoull(q.ids[10])).state(), v1::JOB_CANCELLED);  // the held one
  EXPECT_NE(batch.results.find("Access/permission denied"), std::string::npos);
  EXPECT_NE(batch.results.find("999999 0 Invalid job id specified"), std::string::npos);
}

// The controller's path: a maintained scheduler with many pending jobs, a batch cancel of most
// of them, and the next pass equals a full schedule() of what is left.
TEST_F(CancelBatchTest, MaintainedSchedulerDropsABatchAndPlansAsAFullSchedule) {
  const auto nodes = nodeViews();
  std::vector<JobId> ids;
  for (int i = 0; i < 60; ++i) {
    SpecBuilder b;
    b.ntasks(1 + i % 4).nice(i % 7);
    if (i % 5 == 0) b.hold();
    ids.push_back(submit(b));
  }
  manager_->applyPass(manager_->planPass(nodes));
  ASSERT_TRUE(manager_->commit().ok());
  clock_.advanceSeconds(5);

  std::vector<std::string> cancel;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i % 3 != 1) cancel.push_back(std::to_string(ids[i]));
  }
  for (const auto& r : manager_->cancel(alice(), cancelIds(cancel))) {
    EXPECT_TRUE(r.ok()) << r.job_id() << ": " << r.error();
  }
  ASSERT_TRUE(manager_->commit().ok());

  const sched::Plan& plan = manager_->planPass(nodes);
  sched::Plan fresh =
      sched::schedule(manager_->tableSnapshot(nodes), manager_->schedulerParams(), clock_.now());
  ASSERT_EQ(plan.starts.size(), fresh.starts.size());
  for (std::size_t i = 0; i < plan.starts.size(); ++i) EXPECT_EQ(plan.starts[i].id, fresh.starts[i].id);
  ASSERT_EQ(plan.pending.size(), fresh.pending.size());
  for (std::size_t i = 0; i < plan.pending.size(); ++i) {
    EXPECT_EQ(plan.pending[i].id, fresh.pending[i].id) << "pending #" << i;
    EXPECT_EQ(plan.pending[i].reason, fresh.pending[i].reason) << "job " << plan.pending[i].id;
  }
  manager_->applyPass(plan);
  ASSERT_TRUE(manager_->commit().ok());

  // The scheduler holds exactly the jobs not cancelled but the held ones (kept out of it until
  // released), and the cancelled running ones until their step reports (COMPLETING still holds
  // the resources).
  const sched::Scheduler* s = manager_->maintainedScheduler();
  ASSERT_NE(s, nullptr);
  std::vector<JobId> held;
  for (const auto& j : s->snapshot().pending) held.push_back(j.id);
  for (const auto& r : s->snapshot().running) held.push_back(r.id);
  std::sort(held.begin(), held.end());
  std::vector<JobId> kept;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Job& j = *manager_->find(ids[i]);
    const v1::JobState st = j.state();
    if (i % 3 == 1) EXPECT_TRUE(st == v1::JOB_PENDING || st == v1::JOB_RUNNING) << ids[i];
    else EXPECT_TRUE(st == v1::JOB_CANCELLED || killedInto(j) == v1::JOB_CANCELLED) << ids[i];
    const bool waits = st == v1::JOB_PENDING && waitingReason(j, clock_.now()) != sched::Reason::None;
    if ((st == v1::JOB_PENDING && !waits) || holdsResources(st)) kept.push_back(ids[i]);
  }
  EXPECT_GT(kept.size(), ids.size() / 4);
  EXPECT_EQ(held, kept);
}

// Scheduler::onJobsEnded is onJobEnded for each id: same queue, same order, same plan.
TEST(SchedulerJobsEnded, SameAsOneByOne) {
  auto make = [] {
    sched::Node n;
    n.name = "n1";
    n.cpus = 4;
    n.memoryMb = 16000;
    n.partitions = {"p"};
    sched::Partition p;
    p.name = "p";
    return sched::Scheduler({n}, {p}, sched::SchedulerParams{});
  };
  sched::Scheduler one = make();
  sched::Scheduler many = make();
  for (sched::JobId id = 1; id <= 40; ++id) {
    sched::Job j;
    j.id = id;
    j.priority = static_cast<double>(id % 9);
    j.request.partition = "p";
    j.request.ntasks = static_cast<int>(1 + id % 3);
    j.request.timeLimitS = 600;
    j.request.submitTime = static_cast<std::int64_t>(id);
    one.onJobSubmitted(j);
    many.onJobSubmitted(j);
  }
  one.pass(1000);
  many.pass(1000);
  std::vector<sched::JobId> gone = {3, 7, 8, 21, 40, 1, 999};
  for (auto id : gone) one.onJobEnded(id);
  many.onJobsEnded(gone);
  many.onJobsEnded({});
  ASSERT_EQ(one.snapshot().pending.size(), many.snapshot().pending.size());
  for (std::size_t i = 0; i < one.snapshot().pending.size(); ++i) {
    EXPECT_EQ(one.snapshot().pending[i].id, many.snapshot().pending[i].id);
  }
  const sched::Plan& a = one.pass(1001);
  const sched::Plan& b = many.pass(1001);
  ASSERT_EQ(a.starts.size(), b.starts.size());
  for (std::size_t i = 0; i < a.starts.size(); ++i) EXPECT_EQ(a.starts[i].id, b.starts[i].id);
  ASSERT_EQ(a.pending.size(), b.pending.size());
  for (std::size_t i = 0; i < a.pending.size(); ++i) EXPECT_EQ(a.pending[i].id, b.pending[i].id);
}

}  // namespace
}  // namespace drover::jobs::testing
