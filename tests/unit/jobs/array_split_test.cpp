// Array job ids as Slurm assigns them (job.h, kTaskKeyBit): an array takes one id A; its
// pending tasks have none of their own (squeue/scontrol show A, sacct one remainder record
// `A_[...]`); a task takes the next id when it starts, the last one to leave the remainder takes
// A; all of it survives a restart; pending tasks rank as their array.
#include <sqlite3.h>

#include <algorithm>

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

class ArraySplitTest : public JobsTest {
 protected:
  // The records of the accounting batch (taken), by JobIDRaw.
  std::map<std::uint64_t, acct::JobRecord> records() {
    std::map<std::uint64_t, acct::JobRecord> out;
    for (auto& r : manager_->takeAccounting().jobs) out[r.job_id] = r;
    return out;
  }
  std::vector<Launch> incrementalPass() {
    auto launches = manager_->schedulePass(nodeViews());
    EXPECT_TRUE(manager_->commit().ok());
    return launches;
  }
};

TEST_F(ArraySplitTest, TasksTakeIdsAsTheyStartAndTheLastTakesTheArraysId) {
  // Whole nodes (4 CPUs each): node04 is left, one task at a time.
  const JobId blocker = submit(SpecBuilder().nodes(3).ntasks(12).time(10));
  ASSERT_EQ(pass().size(), 1u);
  const JobId a = submit(SpecBuilder().name("arr").array("0-2").ntasks(4).time(10));
  const JobId after = submit(SpecBuilder().name("later").nodes(4).ntasks(16));
  EXPECT_EQ(a, blocker + 1);
  EXPECT_EQ(after, a + 1);  // one id for the whole array

  auto first = pass();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].job_id, after + 1);  // task 0: the next id
  EXPECT_EQ(first[0].request.environment().at("SLURM_JOB_ID"), std::to_string(after + 1));
  EXPECT_EQ(first[0].request.environment().at("SLURM_JOBID"), std::to_string(after + 1));
  EXPECT_EQ(first[0].request.environment().at("SLURM_ARRAY_JOB_ID"), std::to_string(a));
  EXPECT_EQ(task(a, 0).job_id(), after + 1);
  EXPECT_EQ(task(a, 1).job_id(), a);  // still pending: the array's id
  EXPECT_EQ(job(after + 1).array_task_id(), 0);

  finishBatch(after + 1, 0);
  auto second = pass();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].job_id, after + 2);
  EXPECT_EQ(job(after + 2).array_task_id(), 1);

  finishBatch(after + 2, 0);
  auto third = pass();
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].job_id, a);  // the last task takes A
  EXPECT_EQ(job(a).array_task_id(), 2);
  EXPECT_EQ(job(a).array_job_id(), a);
  EXPECT_EQ(submit(SpecBuilder()), after + 3);  // the counter moved on past the tasks' ids
}

TEST_F(ArraySplitTest, IdsOfStartedTasksAndPendingTasksAreResolved) {
  const JobId a = submit(SpecBuilder().array("0-3%1").time(10));
  ASSERT_EQ(pass().size(), 1u);
  const JobId n = task(a, 0).job_id();
  ASSERT_NE(n, a);
  auto ids = [&](const std::string& text) {
    v1::GetJobsRequest q;
    q.add_job_ids(text);
    q.set_array_tasks_expanded(true);
    std::vector<std::int64_t> tasks;
    for (const auto& row : manager_->query(q)) tasks.push_back(row.array_task_id());
    std::sort(tasks.begin(), tasks.end());
    return tasks;
  };
  EXPECT_EQ(ids(std::to_string(a)), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ids(std::to_string(n)), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(ids(std::to_string(a) + "_2"), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(ids(std::to_string(a) + "_[1-2]"), (std::vector<std::int64_t>{1, 2}));
  // An internal key is never an id.
  EXPECT_TRUE(ids(std::to_string(taskKey(a, 1))).empty());

  // scancel N cancels the started task only; scancel A the rest.
  v1::CancelJobsRequest c;
  c.add_job_ids(std::to_string(n));
  auto r = manager_->cancel(alice(), c);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].ok()) << r[0].error();
  EXPECT_EQ(task(a, 1).state(), v1::JOB_PENDING);
}

TEST_F(ArraySplitTest, AccountingKeepsOneRemainderRecord) {
  const JobId a = submit(SpecBuilder().name("arr").array("0-9%2").time(10));
  auto recs = records();
  ASSERT_EQ(recs.size(), 1u);  // not one per task
  const acct::JobRecord& rest = recs.at(a);
  EXPECT_EQ(rest.array_job_id, a);
  EXPECT_FALSE(rest.array_task_id.has_value());
  EXPECT_EQ(rest.array_task_str, "0-9%2");
  EXPECT_EQ(rest.state, acct::JobState::kPending);
  EXPECT_TRUE(rest.node_list.empty());

  ASSERT_EQ(pass().size(), 2u);
  recs = records();
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs.at(a + 1).array_task_id, 0u);
  EXPECT_EQ(recs.at(a + 1).state, acct::JobState::kRunning);
  EXPECT_EQ(recs.at(a + 2).array_task_id, 1u);
  EXPECT_EQ(recs.at(a).array_task_str, "2-9%2");  // the remainder, shrunk

  // Golden 102 + 116: a pending task cancelled stays in the remainder (no record of its own);
  // once the rest is cancelled too the remainder is CANCELLED with the array's expression.
  v1::CancelJobsRequest one;
  one.add_job_ids(std::to_string(a) + "_5");
  manager_->cancel(alice(), one);
  ASSERT_TRUE(manager_->commit().ok());
  recs = records();
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs.at(a).array_task_str, "2-4,6-9%2");
  v1::CancelJobsRequest all;
  all.add_job_ids(std::to_string(a));
  manager_->cancel(root(), all);
  ASSERT_TRUE(manager_->commit().ok());
  recs = records();
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs.at(a).state, acct::JobState::kCancelled);
  EXPECT_EQ(recs.at(a).array_task_str, "0-9%2");
  EXPECT_EQ(recs.at(a).cancelled_by, 0u);
  EXPECT_EQ(recs.at(a + 1).state, acct::JobState::kCancelled);  // running: cancelled too
}

TEST_F(ArraySplitTest, TheLastTaskToStartTakesTheArraysIdAndItsRecord) {
  const JobId a = submit(SpecBuilder().name("arr").array("0-1").time(10));
  records();
  auto launches = pass();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].job_id, a + 1);  // task 0
  EXPECT_EQ(launches[1].job_id, a);      // task 1, the last
  auto recs = records();
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs.at(a).array_task_id, 1u);  // A's record is task 1's, no remainder left
  EXPECT_EQ(recs.at(a + 1).array_task_id, 0u);
}

TEST_F(ArraySplitTest, PendingTasksIdCounterAndStartedIdsSurviveARestart) {
  const JobId a = submit(SpecBuilder().name("arr").array("0-3%1").time(10));
  ASSERT_EQ(pass().size(), 1u);
  const JobId n = task(a, 0).job_id();
  EXPECT_EQ(n, a + 1);
  reopen();  // kill -9 and restart: only what was committed
  EXPECT_EQ(manager_->size(), 4u);
  EXPECT_EQ(task(a, 0).job_id(), n);
  EXPECT_EQ(task(a, 0).state(), v1::JOB_RUNNING);
  EXPECT_EQ(task(a, 2).job_id(), a);
  EXPECT_EQ(task(a, 2).state(), v1::JOB_PENDING);
  auto payload = store_->payload(n, a);  // the renamed task finds its array's script
  ASSERT_TRUE(payload.ok()) << payload.error();
  EXPECT_EQ(payload->script, "#!/bin/sh\ntrue\n");
  EXPECT_EQ(submit(SpecBuilder().name("next").hold()), n + 1);

  finishBatch(n, 0);
  auto next = pass();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].job_id, n + 2);
  EXPECT_EQ(next[0].request.script(), "#!/bin/sh\ntrue\n");
  reopen();
  EXPECT_EQ(task(a, 1).job_id(), n + 2);
  EXPECT_EQ(task(a, 1).state(), v1::JOB_RUNNING);
  // The last pending task still takes A after the restart.
  finishBatch(n + 2, 0);
  ASSERT_EQ(pass().size(), 1u);
  finishBatch(task(a, 2).job_id(), 0);
  auto last = pass();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].job_id, a);
}

// Pending tasks rank as their array: submit time, the array's id, then task index; a job
// submitted later in the same second with the same priority waits behind them.
TEST_F(ArraySplitTest, PendingTasksRankAsTheirArray) {
  const JobId blocker = submit(SpecBuilder().nodes(4).ntasks(16).time(10));
  ASSERT_EQ(pass().size(), 1u);
  const JobId a = submit(SpecBuilder().array("0-1").nodes(4).ntasks(16).time(10));
  const JobId later = submit(SpecBuilder().nodes(4).ntasks(16).time(10));
  pass();
  EXPECT_EQ(task(a, 0).reason(), "Resources");
  EXPECT_EQ(task(a, 1).reason(), "Priority");
  EXPECT_EQ(job(later).reason(), "Priority");
  finishBatch(blocker, 0);
  auto launches = pass();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(job(launches[0].job_id).array_task_id(), 0);
  EXPECT_EQ(job(later).state(), v1::JOB_PENDING);
}

// The controller's incremental path: a plan that starts array tasks, applied as made, keeps the
// maintained scheduler's memo (the start is reported under the key it planned, then renamed),
// so its passes count as those of the same work submitted as separate jobs, and the plan still
// equals a full schedule() of the table.
TEST_F(ArraySplitTest, IncrementalPassRenamesWithoutLosingItsMemo) {
  struct Run {
    std::vector<JobId> launched;
    sched::Scheduler::Counters counters;
  };
  // Six 2-node jobs (two run at a time), a 4-node job behind them, then completions.
  auto scenario = [&](JobManager& m, bool as_array) {
    Run run;
    auto submitted = [&](const v1::JobSpec& spec) {
      SubmitResult r = m.submit(alice(), spec);
      EXPECT_TRUE(r);
      EXPECT_TRUE(m.commit().ok());
    };
    auto passed = [&] {
      for (const Launch& l : m.schedulePass(nodeViews())) run.launched.push_back(l.job_id);
      EXPECT_TRUE(m.commit().ok());
    };
    if (as_array) {
      submitted(SpecBuilder().array("0-5").nodes(2).ntasks(8).time(10));
    } else {
      for (int i = 0; i < 6; ++i) submitted(SpecBuilder().nodes(2).ntasks(8).time(10));
    }
    passed();
    submitted(SpecBuilder().nodes(4).ntasks(16).time(10));
    passed();
    for (int round = 0; round < 2; ++round) {
      clock_.advanceSeconds(5);
      const JobId done = run.launched[static_cast<std::size_t>(round)];
      v1::StepEventRequest e;
      e.mutable_step()->set_job_id(done);
      e.mutable_step()->set_step_id(acct::kBatchStep);
      e.set_kind(v1::StepEventRequest::FINISHED);
      e.set_node(m.find(done)->info.batch_host());
      m.stepEvent(e);
      EXPECT_TRUE(m.commit().ok());
      passed();
    }
    run.counters = m.maintainedScheduler()->counters();
    return run;
  };
  const Run array = scenario(*manager_, true);
  auto other_store = JobStore::open((dir_ / "separate.db").string());
  ASSERT_TRUE(other_store.ok());
  JobManager separate(clock_, config_, **other_store);
  ASSERT_TRUE(separate.recover().ok());
  const Run jobs = scenario(separate, false);

  // The array took id 1, tasks 0 and 1 ids 2 and 3 as they started, so the 4-node job got 4;
  // it starts once both tasks end (it ranks first: the larger job).
  EXPECT_EQ(array.launched, (std::vector<JobId>{2, 3, 4}));
  EXPECT_EQ(jobs.launched, (std::vector<JobId>{1, 2, 7}));
  EXPECT_EQ(job(2).array_task_id(), 0);
  EXPECT_EQ(job(3).array_task_id(), 1);
  EXPECT_FALSE(job(4).array_job_id());
  EXPECT_EQ(array.counters.fullPasses, jobs.counters.fullPasses);
  EXPECT_EQ(array.counters.incrementalPasses, jobs.counters.incrementalPasses);
  EXPECT_EQ(array.counters.completionReplays, jobs.counters.completionReplays);
  EXPECT_EQ(array.counters.startsKept, jobs.counters.startsKept);
  EXPECT_GE(array.counters.startsKept, 1);

  std::vector<JobId> running;
  for (const auto& r : manager_->maintainedScheduler()->snapshot().running) running.push_back(r.id);
  std::sort(running.begin(), running.end());
  EXPECT_EQ(running, (std::vector<JobId>{4}));
  const sched::Plan& plan = manager_->planPass(nodeViews());
  std::vector<std::pair<JobId, sched::Reason>> incremental;
  for (const auto& p : plan.pending) incremental.emplace_back(p.id, p.reason);
  sched::Plan full_plan = sched::schedule(manager_->tableSnapshot(nodeViews()),
                                          manager_->schedulerParams(), clock_.now());
  std::vector<std::pair<JobId, sched::Reason>> full;
  for (const auto& p : full_plan.pending) full.emplace_back(p.id, p.reason);
  EXPECT_EQ(incremental, full);
  EXPECT_EQ(incremental.size(), 4u);  // tasks 2-5
}

}  // namespace
}  // namespace drover::jobs::testing

namespace drover::jobs::testing {
namespace {

// An array of many tasks stores its script and environment once, not once per task; each task
// still launches with them, before and after a restart.
TEST_F(ArraySplitTest, TasksShareOneStoredScript) {
  const JobId a = submit(SpecBuilder().array("0-99").time(10));
  auto payload = store_->payload(taskKey(a, 7), a);
  ASSERT_TRUE(payload.ok()) << payload.error();
  EXPECT_EQ(payload->script, "#!/bin/sh\ntrue\n");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dbPath().c_str(), &db), SQLITE_OK);
    auto count = [&](const char* sql) {
      sqlite3_stmt* q = nullptr;
      EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &q, nullptr), SQLITE_OK);
      EXPECT_EQ(sqlite3_step(q), SQLITE_ROW);
      const int n = sqlite3_column_int(q, 0);
      sqlite3_finalize(q);
      return n;
    };
    EXPECT_EQ(count("SELECT COUNT(*) FROM jobs"), 100);
    EXPECT_EQ(count("SELECT COUNT(*) FROM jobs WHERE script IS NOT NULL"), 0);
    EXPECT_EQ(count("SELECT COUNT(*) FROM array_payloads"), 1);
    sqlite3_close(db);
  }
  reopen();
  auto launches = pass();
  ASSERT_EQ(launches.size(), 16u);  // 4 nodes x 4 CPUs
  EXPECT_EQ(launches[0].request.script(), "#!/bin/sh\ntrue\n");
  EXPECT_EQ(launches[0].request.environment().at("HOME"), "/home/alice");

  // Once every task ended and was purged, the array's copy goes too.
  v1::CancelJobsRequest all;
  all.add_job_ids(std::to_string(a));
  manager_->cancel(alice(), all);
  for (const Launch& l : launches) finishBatch(l.job_id, 0);
  ASSERT_TRUE(manager_->commit().ok());
  clock_.advanceSeconds(kMinJobAgeS + 1);
  manager_->purgeFinished();
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(manager_->size(), 0u);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dbPath().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM array_payloads", -1, &q, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(q, 0), 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
}

}  // namespace
}  // namespace drover::jobs::testing
