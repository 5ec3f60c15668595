// Slurm semantics of the batch path that are easy to get subtly wrong: a cancelled running job
// is CANCELLED+COMPLETING at once (goldens 101, 105, 106, 115), array task ids (059, 075, 079,
// 089, 102, 116), a job its node lost, and sbatch --test-only's figures.
#include <csignal>

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

v1::CancelJobsRequest cancelIds(std::vector<std::string> ids) {
  v1::CancelJobsRequest r;
  for (auto& id : ids) r.add_job_ids(id);
  return r;
}

const v1::JobInfo* shown(const std::vector<v1::JobInfo>& rows, JobId id) {
  for (const auto& r : rows)
    if (r.job_id() == id) return &r;
  return nullptr;
}

// Whether `squeue -t STATE` lists job `id`.
bool listedBy(JobManager& manager, const std::string& state, JobId id) {
  v1::GetJobsRequest by_state;
  by_state.add_states(state);
  return shown(manager.query(by_state), id) != nullptr;
}

const acct::JobRecord* recordOf(const acct::AcctBatch& batch, JobId id) {
  const acct::JobRecord* last = nullptr;
  for (const auto& r : batch.jobs)
    if (r.job_id == id) last = &r;
  return last;
}

// scancel -q / -R / --wckey select (they were accepted and ignored, so `-u alice -R x` took
// every job of alice's): QOS in any case, as the reference's `-q NORMAL`; no Drover job has a
// wckey or, here, a reservation.
TEST_F(JobsTest, CancelFiltersOnQosReservationAndWckey) {
  const JobId a = submit(SpecBuilder().hold());
  const JobId b = submit(SpecBuilder().hold());
  auto cancelWith = [&](auto set) {
    v1::CancelJobsRequest r;
    r.set_user("alice");
    set(r);
    auto results = manager_->cancel(alice(), r);
    EXPECT_TRUE(manager_->commit().ok());
    return results.size();
  };
  EXPECT_EQ(cancelWith([](auto& r) { r.set_qos("bogus"); }), 0u);
  EXPECT_EQ(cancelWith([](auto& r) { r.set_reservation("maint"); }), 0u);
  EXPECT_EQ(cancelWith([](auto& r) { r.set_wckey("k"); }), 0u);
  EXPECT_EQ(job(a).state(), v1::JOB_PENDING);
  EXPECT_EQ(cancelWith([](auto& r) { r.set_qos("NORMAL"); }), 2u);
  EXPECT_EQ(job(a).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(b).state(), v1::JOB_CANCELLED);
}

TEST_F(JobsTest, CancelledRunningJobIsCancelledAndCompletingUntilItsStepReports) {
  JobId id = submit(SpecBuilder().time(30));
  clock_.advanceSeconds(1);
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  const std::int64_t started = job(id).start_time();
  manager_->takeAccounting();
  clock_.advanceSeconds(22);
  const std::int64_t cancelled_at = clock_.now();
  auto res = manager_->cancel(alice(), cancelIds({std::to_string(id)}));
  ASSERT_TRUE(res[0].ok());
  ASSERT_TRUE(manager_->commit().ok());
  ASSERT_EQ(manager_->takeSignals().size(), 1u);

  // squeue / scontrol: CG at once, with the run time frozen at the cancel.
  clock_.advanceSeconds(3);
  v1::GetJobsRequest all;
  auto rows = manager_->query(all);
  const v1::JobInfo* row = shown(rows, id);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->state(), v1::JOB_COMPLETING);
  EXPECT_EQ(row->run_time_s(), cancelled_at - started);
  EXPECT_EQ(row->end_time(), cancelled_at);
  // -t CG and -t CANCELLED both find it, -t RUNNING does not.
  EXPECT_TRUE(listedBy(*manager_, "CG", id));
  EXPECT_TRUE(listedBy(*manager_, "CANCELLED", id));
  EXPECT_FALSE(listedBy(*manager_, "R", id));
  // sacct: CANCELLED by the caller, ended at the cancel.
  auto acct = manager_->takeAccounting();
  const acct::JobRecord* rec = recordOf(acct, id);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kCancelled);
  EXPECT_EQ(rec->end, cancelled_at);
  ASSERT_TRUE(rec->cancelled_by.has_value());
  EXPECT_EQ(*rec->cancelled_by, 1001u);
  // The nodes stay held while the processes die; a second scancel says it is completing.
  EXPECT_TRUE(holdsResources(manager_->find(id)->state()));
  auto again = manager_->cancel(alice(), cancelIds({std::to_string(id)}));
  EXPECT_EQ(again[0].error(), "Job/step already completing or completed");

  // The step reports (killed): final CANCELLED, end and elapsed still from the cancel.
  clock_.advanceSeconds(5);
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(id).end_time(), cancelled_at);
  EXPECT_EQ(job(id).run_time_s(), cancelled_at - started);
  v1::GetJobsRequest one;
  one.add_job_ids(std::to_string(id));
  EXPECT_EQ(shown(manager_->query(one), id)->state(), v1::JOB_CANCELLED);
  acct = manager_->takeAccounting();
  rec = recordOf(acct, id);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kCancelled);
  EXPECT_EQ(rec->end, cancelled_at);
}

// As the reference's requeue of a job whose processes outlive SIGTERM (checked 2026-12-05):
// COMPLETING in squeue (-t PD and -t R do not list it), REQUEUED in sacct ended at the requeue,
// and pending for scontrol while its processes are killed: a second requeue is "Job is pending
// execution", keys only a pending job takes are taken. scancel then leaves the run REQUEUED
// and cancels the job it went back to.
TEST_F(JobsTest, RequeuedRunningJobIsPendingAndCompletingUntilItsStepReports) {
  JobId id = submit(SpecBuilder().time(30));
  const std::string s = std::to_string(id);
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  manager_->takeAccounting();
  manager_->takeSignals();
  clock_.advanceSeconds(4);
  const std::int64_t requeued_at = clock_.now();
  ASSERT_TRUE(manager_->control(alice(), act("requeue", s))[0].ok());
  ASSERT_EQ(manager_->takeSignals().size(), 1u);
  clock_.advanceSeconds(2);

  v1::GetJobsRequest one;
  one.add_job_ids(s);
  EXPECT_EQ(shown(manager_->query(one), id)->state(), v1::JOB_COMPLETING);
  EXPECT_TRUE(listedBy(*manager_, "CG", id));
  for (const char* state : {"PD", "R", "REQUEUED"}) EXPECT_FALSE(listedBy(*manager_, state, id)) << state;
  auto acct = manager_->takeAccounting();
  const acct::JobRecord* rec = recordOf(acct, id);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kRequeued);
  EXPECT_EQ(rec->end, requeued_at);

  EXPECT_EQ(manager_->control(alice(), act("requeue", s))[0].error(), "Job is pending execution");
  EXPECT_EQ(manager_->control(alice(), act("requeuehold", s))[0].error(), "Job is pending execution");
  EXPECT_TRUE(manager_->takeSignals().empty());
  EXPECT_TRUE(manager_->control(alice(), act("hold", s))[0].ok());
  EXPECT_TRUE(manager_->control(alice(), act("release", s))[0].ok());
  v1::UpdateJobRequest to_debug;
  to_debug.set_job_id(s);
  (*to_debug.mutable_fields())["Partition"] = "debug";
  ASSERT_TRUE(manager_->update(alice(), to_debug).ok());
  EXPECT_EQ(job(id).partition(), "debug");

  // scancel: still COMPLETING (now also CANCELLED for -t), refused as a job that ended.
  ASSERT_TRUE(manager_->cancel(alice(), cancelIds({s}))[0].ok());
  EXPECT_TRUE(manager_->takeSignals().empty());  // the requeue's kill is under way
  EXPECT_EQ(shown(manager_->query(one), id)->state(), v1::JOB_COMPLETING);
  EXPECT_TRUE(listedBy(*manager_, "CA", id));
  v1::UpdateJobRequest rename;
  rename.set_job_id(s);
  (*rename.mutable_fields())["Name"] = "x";
  EXPECT_EQ(manager_->update(alice(), rename).error(), "Job has already finished");

  clock_.advanceSeconds(3);
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(id).cancelled_by(), "1001");
  acct = manager_->takeAccounting();
  ASSERT_EQ(acct.runs.size(), 1u);
  EXPECT_EQ(acct.runs[0].state, acct::JobState::kRequeued);
  EXPECT_EQ(acct.runs[0].end, requeued_at);
  rec = recordOf(acct, id);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kCancelled);
}

TEST_F(JobsTest, CancellingSurvivesARestart) {
  JobId id = submit(SpecBuilder());
  pass();
  clock_.advanceSeconds(10);
  manager_->cancel(alice(), cancelIds({std::to_string(id)}));
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  v1::GetJobsRequest all;
  const std::vector<v1::JobInfo> rows = manager_->query(all);  // `row` points into it
  const v1::JobInfo* row = shown(rows, id);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->state(), v1::JOB_COMPLETING);
}

TEST_F(JobsTest, TestOnlyNamesTheProcessorsAndPartition) {
  struct Case {
    std::string name;
    SpecBuilder spec;
    std::uint32_t cpus;
    std::string partition;
    std::string nodes;
  };
  std::vector<Case> cases = {
      {"default partition, one cpu", SpecBuilder(), 1, "gpu", "node01"},
      {"tasks x cpus per task", SpecBuilder().nodes(2).ntasks(4).cpusPerTask(2), 8, "gpu",
       "node[01-02]"},
      {"named partition", SpecBuilder().partition("debug").ntasks(3), 3, "debug", "node01"},
  };
  for (const auto& c : cases) {
    SubmitResult r = manager_->submit(alice(), c.spec.spec().test_only() ? c.spec : SpecBuilder(c.spec).testOnly());
    ASSERT_TRUE(r) << c.name;
    EXPECT_EQ(r.ok->test_only_cpus, c.cpus) << c.name;
    EXPECT_EQ(r.ok->test_only_partition, c.partition) << c.name;
    EXPECT_EQ(r.ok->test_only_nodes, c.nodes) << c.name;
    EXPECT_EQ(r.ok->expected_start, clock_.now()) << c.name;
  }
  EXPECT_EQ(manager_->size(), 0u);
}

TEST_F(JobsTest, JobLostByItsNodeIsRequeuedWhenRequeueableElseNodeFail) {
  struct Case {
    std::string name;
    SpecBuilder spec;
    v1::JobState state;
    std::string reason;
    std::uint32_t restarts;
  };
  std::vector<Case> cases = {
      {"--requeue (the default): back to PENDING", SpecBuilder().nodes(2), v1::JOB_PENDING, "None",
       1},
      {"--no-requeue: NODE_FAIL", SpecBuilder().nodes(2).noRequeue(), v1::JOB_NODE_FAIL,
       "NodeDown", 0},
  };
  for (const auto& c : cases) {
    JobId id = submit(c.spec);
    pass();
    ASSERT_EQ(job(id).state(), v1::JOB_RUNNING) << c.name;
    manager_->takeSignals();
    manager_->takeAccounting();
    const std::string host = job(id).batch_host();
    manager_->jobLost(id, "batch step vanished from node " + host, host);
    ASSERT_TRUE(manager_->commit().ok());
    EXPECT_EQ(job(id).state(), c.state) << c.name;
    EXPECT_EQ(job(id).reason(), c.reason) << c.name;
    EXPECT_EQ(job(id).restart_count(), c.restarts) << c.name;
    EXPECT_EQ(job(id).state_reason_detail().rfind("batch step vanished from node ", 0), 0u)
        << c.name;
    // The rest of the allocation is told to stop; the node that lost it is not (nothing runs
    // there to stop).
    auto sigs = manager_->takeSignals();
    ASSERT_EQ(sigs.size(), 1u) << c.name;
    EXPECT_TRUE(sigs[0].request.kill());
    ASSERT_EQ(sigs[0].nodes.size(), 1u);
    EXPECT_NE(sigs[0].nodes[0], host);
    // Accounting keeps the lost run as NODE_FAIL (or REQUEUED, then PENDING again).
    auto acct = manager_->takeAccounting();
    const acct::JobRecord* rec = recordOf(acct, id);
    ASSERT_NE(rec, nullptr);
    EXPECT_EQ(rec->state, c.state == v1::JOB_PENDING ? acct::JobState::kPending
                                                     : acct::JobState::kNodeFail);
    // Finished or pending again, the job no longer holds its nodes: a second report is ignored.
    manager_->jobLost(id, "again");
    EXPECT_EQ(job(id).restart_count(), c.restarts);
    if (c.state == v1::JOB_PENDING) {
      v1::CancelJobsRequest r = cancelIds({std::to_string(id)});
      manager_->cancel(alice(), r);
      ASSERT_TRUE(manager_->commit().ok());
    }
  }
}

// A one-node job its node reported gone: no kill is sent there, where nothing of it runs (the
// requeued run may start there before a kill would arrive; the run number in the kill would
// keep it safe, but there is no reason to send one).
TEST_F(JobsTest, JobLostOnItsOnlyNodeSendsNoKillThatCouldHitTheRequeuedRun) {
  JobId id = submit(SpecBuilder());
  pass();
  manager_->takeSignals();
  const std::string host = job(id).batch_host();
  manager_->jobLost(id, "batch step vanished from node " + host, host);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
  EXPECT_TRUE(manager_->takeSignals().empty());
}

TEST_F(JobsTest, JobLostWhileBeingCancelledEndsCancelled) {
  JobId id = submit(SpecBuilder());
  pass();
  manager_->cancel(alice(), cancelIds({std::to_string(id)}));
  manager_->jobLost(id, "batch step vanished from node node01");
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(id).restart_count(), 0u);
}

}  // namespace
}  // namespace drover::jobs::testing
