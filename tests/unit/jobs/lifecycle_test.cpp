// From submission to the final state: the scheduler round trip, launches, exit codes as Slurm
// records them, launch failures and node failures.
#include <csignal>

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

TEST_F(JobsTest, PendingJobsWithoutReservationCarryStartEstimatesAndBeginTimes) {
  JobId running = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  JobId top = submit(SpecBuilder().nodes(4).ntasks(16).time(10));     // holds the reservation
  JobId behind = submit(SpecBuilder().nodes(4).ntasks(16).time(10));  // only an estimate
  const std::int64_t begin = clock_.now() + 3600;
  JobId later = submit(SpecBuilder().begin(begin));
  clock_.advanceSeconds(1);
  pass();
  ASSERT_EQ(job(running).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(top).start_time(), job(running).end_time());
  EXPECT_EQ(job(behind).reason(), "Priority");
  EXPECT_EQ(job(behind).start_time(), job(top).start_time() + 10 * 60);
  EXPECT_EQ(job(later).reason(), "BeginTime");
  EXPECT_EQ(job(later).start_time(), begin);
}

TEST_F(JobsTest, SnapshotPlanRoundTripStartsJobsWithAllocationsAndEnvironment) {
  JobId id = submit(SpecBuilder().name("train").nodes(2).ntasks(4).gres("gpu", 2).time(30)
                        .output("%x-%j-%N.out").signal(SIGUSR1, 90));
  JobId waits = submit(SpecBuilder().nodes(4).ntasks(16).nice(100000));  // behind `train`
  clock_.advanceSeconds(1);
  auto launches = pass();
  ASSERT_EQ(launches.size(), 1u);
  const Launch& l = launches[0];
  EXPECT_EQ(l.job_id, id);
  const auto& j = job(id);
  EXPECT_EQ(j.state(), v1::JOB_RUNNING);
  EXPECT_EQ(j.start_time(), clock_.now());
  EXPECT_EQ(j.end_time(), clock_.now() + 30 * 60);
  ASSERT_EQ(j.allocation_size(), 2);
  EXPECT_EQ(j.allocation(0).gpu_indices_size(), 2);
  EXPECT_EQ(j.allocation(0).tasks() + j.allocation(1).tasks(), 4u);
  EXPECT_EQ(l.node, j.batch_host());
  EXPECT_EQ(j.nodes(), "node[01-02]");
  EXPECT_EQ(j.alloc_tres(), "billing=4,cpu=4,gres/gpu=4,mem=16000M,node=2");
  // %N is the batch host, decided at start.
  EXPECT_EQ(j.std_out(), "/home/alice/train-" + std::to_string(id) + "-" + j.batch_host() + ".out");

  const v1::LaunchStepRequest& r = l.request;
  EXPECT_EQ(r.step().step_id(), acct::kBatchStep);
  EXPECT_EQ(r.uid(), 1001u);
  EXPECT_EQ(r.script(), "#!/bin/sh\ntrue\n");
  EXPECT_EQ(r.time_limit_s(), 30 * 60);
  EXPECT_EQ(r.kill_wait_s(), 30u);
  EXPECT_EQ(r.signal_number(), SIGUSR1);
  EXPECT_EQ(r.signal_seconds(), 90);
  EXPECT_EQ(r.std_out(), j.std_out());
  const auto& env = r.environment();
  EXPECT_EQ(env.at("PATH"), "/usr/bin:/bin");  // the user's exported environment
  EXPECT_EQ(env.at("SLURM_JOB_ID"), std::to_string(id));
  EXPECT_EQ(env.at("SLURM_JOB_NAME"), "train");
  EXPECT_EQ(env.at("SLURM_JOB_NODELIST"), "node[01-02]");
  EXPECT_EQ(env.at("SLURM_NTASKS"), "4");
  EXPECT_EQ(env.at("SLURM_CLUSTER_NAME"), "testcluster");

  // The waiting job learns why and when.
  EXPECT_EQ(job(waits).reason(), "Resources");
  EXPECT_EQ(job(waits).start_time(), j.end_time());

  auto acct = manager_->takeAccounting();
  ASSERT_FALSE(acct.steps.empty());
  EXPECT_EQ(acct.steps.back().step_id, acct::kBatchStep);
  EXPECT_EQ(acct.steps.back().state, acct::JobState::kRunning);
  auto rec = std::find_if(acct.jobs.begin(), acct.jobs.end(),
                          [&](const acct::JobRecord& r) { return r.job_id == id; });
  ASSERT_NE(rec, acct.jobs.end());
  EXPECT_EQ(rec->state, acct::JobState::kRunning);
  EXPECT_EQ(rec->node_list, "node[01-02]");
  EXPECT_EQ(rec->start, clock_.now());
}

struct EndCase {
  std::string name;
  int code, sig;
  bool timed_out, oom;
  v1::JobState state;
  std::uint32_t job_code, job_sig;
  acct::JobState step_state;
  std::string reason = "None";            // of the job record (scontrol)
  acct::ExitStatus acct_exit = {-1, -1};  // of the job's accounting record; {-1,-1}: job_code:job_sig
};

TEST_F(JobsTest, FinalStatesAndExitCodesAsSlurmRecordsThem) {
  std::vector<EndCase> cases = {
      {"exit 0", 0, 0, false, false, v1::JOB_COMPLETED, 0, 0, acct::JobState::kCompleted},
      {"exit 3 (golden 113)", 3, 0, false, false, v1::JOB_FAILED, 3, 0, acct::JobState::kFailed},
      {"signal 9 (golden 113)", 0, 9, false, false, v1::JOB_FAILED, 0, 9,
       acct::JobState::kCancelled},
      // scontrol: TIMEOUT Reason=TimeLimit ExitCode=0:15 (golden 108); sacct: the job 0:0, its
      // batch step CANCELLED 0:15 (golden 114).
      {"time limit (goldens 108, 114)", 0, 15, true, false, v1::JOB_TIMEOUT, 0, 15,
       acct::JobState::kCancelled, "TimeLimit", {0, 0}},
      // Slurm: OUT_OF_MEMORY with ExitCode 0:125, whatever signal the kernel used.
      {"oom", 0, 9, false, true, v1::JOB_OUT_OF_MEMORY, 0, 125, acct::JobState::kOutOfMemory},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    JobId id = submit(SpecBuilder());
    ASSERT_EQ(pass().size(), 1u);
    manager_->takeAccounting();
    clock_.advanceSeconds(10);
    finishBatch(id, c.code, c.sig, c.timed_out, c.oom);
    EXPECT_EQ(job(id).state(), c.state);
    EXPECT_EQ(job(id).exit_code(), c.job_code);
    EXPECT_EQ(job(id).exit_signal(), c.job_sig);
    EXPECT_EQ(job(id).reason(), c.reason);
    EXPECT_EQ(job(id).end_time(), clock_.now());
    auto acct = manager_->takeAccounting();
    ASSERT_EQ(acct.steps.size(), 1u);
    EXPECT_EQ(acct.steps[0].state, c.step_state);
    EXPECT_EQ(acct.steps[0].exit, (acct::ExitStatus{c.code, c.sig}));
    EXPECT_EQ(acct.steps[0].usage.user_cpu_usec, 1'500'000);
    EXPECT_EQ(acct.steps[0].usage.max_rss_kb, 2048);
    ASSERT_EQ(acct.jobs.size(), 1u);
    EXPECT_EQ(acct.jobs[0].end, clock_.now());
    const acct::ExitStatus want_exit =
        c.acct_exit.code >= 0 ? c.acct_exit
                              : acct::ExitStatus{static_cast<std::int32_t>(c.job_code),
                                                 static_cast<std::int32_t>(c.job_sig)};
    EXPECT_EQ(acct.jobs[0].exit, want_exit);
    // Resources are free again: the next job starts.
    EXPECT_TRUE(manager_->buildSnapshot({}).running.empty());
  }
}

TEST_F(JobsTest, LaunchFailureFailsTheJobWithTheReasonVisible) {
  JobId id = submit(SpecBuilder().output("/nonexistent/out"));
  pass();
  v1::StepEventRequest e;
  e.mutable_step()->set_job_id(id);
  e.mutable_step()->set_step_id(acct::kBatchStep);
  e.set_kind(v1::StepEventRequest::FAILED_TO_START);
  e.set_error("cannot open /nonexistent/out: No such file or directory");
  manager_->stepEvent(e);
  EXPECT_EQ(job(id).state(), v1::JOB_FAILED);
  EXPECT_EQ(job(id).reason(), "JobLaunchFailure");
  EXPECT_EQ(job(id).state_reason_detail(), e.error());
  // ExitCode 0:53 and the batch step CANCELLED 0:53, as the reference recorded it.
  EXPECT_EQ(job(id).exit_code(), 0u);
  EXPECT_EQ(job(id).exit_signal(), 53u);
  auto acct = manager_->takeAccounting();
  ASSERT_FALSE(acct.steps.empty());
  EXPECT_EQ(acct.steps.back().step_id, acct::kBatchStep);
  EXPECT_EQ(acct.steps.back().state, acct::JobState::kCancelled);
  EXPECT_EQ(acct.steps.back().exit.signal, 53);
  EXPECT_EQ(acct.jobs.back().system_comment, e.error());
  // sacct says why (issue 3), where the reference's said None.
  EXPECT_EQ(acct.jobs.back().reason, "JobLaunchFailure");

  JobId other = submit(SpecBuilder());
  pass();
  manager_->launchFailed(other, "agent node01 unreachable");
  EXPECT_EQ(job(other).state(), v1::JOB_FAILED);
}

TEST_F(JobsTest, NodeFailureRequeuesOrFails) {
  JobId requeued = submit(SpecBuilder().nodes(2));
  JobId failed = submit(SpecBuilder().nodes(2).noRequeue());
  pass();
  ASSERT_EQ(job(requeued).state(), v1::JOB_RUNNING);
  ASSERT_EQ(job(failed).state(), v1::JOB_RUNNING);
  std::string dead_r = job(requeued).allocation(0).node();
  manager_->nodeFailed(dead_r);
  std::string dead_f = job(failed).allocation(0).node();
  manager_->nodeFailed(dead_f);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(requeued).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(requeued).restart_count(), 1u);
  EXPECT_EQ(job(requeued).allocation_size(), 0);
  EXPECT_EQ(job(failed).state(), v1::JOB_NODE_FAIL);
  auto kills = manager_->takeSignals();
  ASSERT_EQ(kills.size(), 2u);  // the surviving node of each job is told to stop
  EXPECT_TRUE(kills[0].request.kill());
  // A late report from the dead job's other node changes nothing.
  finishBatch(failed, 0, 9);
  EXPECT_EQ(job(failed).state(), v1::JOB_NODE_FAIL);
  // The requeued job runs again, with its restart count exported.
  auto launches = pass();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].request.environment().at("SLURM_RESTART_COUNT"), "1");
}

// A requeued job runs again under the same job and step ids. Everything sent to or about its
// steps names the run (the restart count); what the previous run's supervisor reports late
// must not end the next run (common/step_run.h).
TEST_F(JobsTest, ReportOfTheRunBeforeARequeueDoesNotEndTheNextRun) {
  JobId id = submit(SpecBuilder().nodes(2));
  auto first = pass();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].request.step().restart_count(), 0u);
  EXPECT_TRUE(first[0].request.step().has_restart_count());  // run 0 is named, not "unknown"
  manager_->nodeFailed(job(id).allocation(1).node());
  ASSERT_TRUE(manager_->commit().ok());
  ASSERT_EQ(job(id).state(), v1::JOB_PENDING);
  // The kill sent to the surviving node names the run it ends, not the next one.
  auto kills = manager_->takeSignals();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].request.step().restart_count(), 0u);

  auto next = pass();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].request.step().restart_count(), 1u);
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);

  // The first run's supervisor reports its end after the next run started.
  v1::StepEventRequest stale;
  nameStep(stale.mutable_step(), *manager_->find(id), acct::kBatchStep);
  stale.mutable_step()->set_restart_count(0);
  stale.set_node(job(id).batch_host());
  stale.set_kind(v1::StepEventRequest::FINISHED);
  stale.set_exit_code(7);
  EXPECT_TRUE(manager_->ofOtherRun(stale.step()));
  manager_->stepEvent(stale);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  stale.set_kind(v1::StepEventRequest::FAILED_TO_START);
  manager_->stepEvent(stale);
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);

  // The next run's own report ends it with its own result.
  v1::StepEventRequest own = stale;
  own.mutable_step()->set_restart_count(1);
  own.set_kind(v1::StepEventRequest::FINISHED);
  own.set_exit_code(0);
  EXPECT_FALSE(manager_->ofOtherRun(own.step()));
  manager_->stepEvent(own);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_COMPLETED);
  EXPECT_EQ(job(id).exit_code(), 0u);
  EXPECT_EQ(job(id).restart_count(), 1u);
}

// A report that names no run (a supervisor from before the run number) is taken as before.
TEST_F(JobsTest, ReportNamingNoRunEndsTheCurrentRun) {
  JobId id = submit(SpecBuilder());
  pass();
  manager_->nodeFailed(job(id).allocation(0).node());
  ASSERT_TRUE(manager_->commit().ok());
  pass();
  ASSERT_EQ(job(id).restart_count(), 1u);
  v1::StepId unnamed;
  unnamed.set_job_id(id);
  unnamed.set_step_id(acct::kBatchStep);
  EXPECT_FALSE(manager_->ofOtherRun(unnamed));
  finishBatch(id, 3);   // names no run
  EXPECT_EQ(job(id).state(), v1::JOB_FAILED);
  EXPECT_EQ(job(id).exit_code(), 3u);
}

TEST_F(JobsTest, RequeuedRunKeepsItsOwnAccountingRecord) {
  JobId id = submit(SpecBuilder());
  pass();
  manager_->takeAccounting();
  manager_->nodeFailed(job(id).allocation(0).node());
  ASSERT_TRUE(manager_->commit().ok());
  auto acct = manager_->takeAccounting();
  // The run that ended: REQUEUED, restart count 0, with its nodes and times (sacct -D).
  ASSERT_EQ(acct.runs.size(), 1u);
  EXPECT_EQ(acct.runs[0].job_id, id);
  EXPECT_EQ(acct.runs[0].state, acct::JobState::kRequeued);
  EXPECT_EQ(acct.runs[0].restart_count, 0u);
  EXPECT_FALSE(acct.runs[0].node_list.empty());
  EXPECT_EQ(acct.runs[0].end, clock_.now());
  // The job's own record has moved on to the next run.
  ASSERT_EQ(acct.jobs.size(), 1u);
  EXPECT_EQ(acct.jobs[0].state, acct::JobState::kPending);
  EXPECT_EQ(acct.jobs[0].restart_count, 1u);
}

TEST_F(JobsTest, JobRequeueSettingIsTheDefaultOfRequeue) {
  config_.jobs.requeue = false;  // Slurm's JobRequeue=0
  JobId plain = submit(SpecBuilder());
  JobId asked = submit(SpecBuilder().requeue());
  EXPECT_FALSE(job(plain).requeue());
  EXPECT_TRUE(job(asked).requeue());
  pass();
  manager_->nodeFailed(job(plain).allocation(0).node());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(plain).state(), v1::JOB_NODE_FAIL);
}

TEST_F(JobsTest, PlanForCancelledJobIsIgnored) {
  JobId id = submit(SpecBuilder());
  sched::Snapshot snap = manager_->buildSnapshot({});
  sched::Plan plan = sched::schedule(snap, manager_->schedulerParams(), clock_.now());
  v1::CancelJobsRequest r;
  r.add_job_ids(std::to_string(id));
  manager_->cancel(alice(), r);
  EXPECT_TRUE(manager_->applyPlan(plan).empty());
  EXPECT_EQ(job(id).state(), v1::JOB_CANCELLED);
}

TEST_F(JobsTest, BeginTimeAndQueriesFilters) {
  JobId later = submit(SpecBuilder().name("later").begin(clock_.now() + 600));
  // Its expected start is its begin time from the submission on, before any pass.
  EXPECT_EQ(job(later).start_time(), clock_.now() + 600);
  JobId now = submit(SpecBuilder().name("now"), bob());
  pass();
  EXPECT_EQ(job(later).reason(), "BeginTime");
  EXPECT_EQ(job(later).eligible_time(), 0);
  v1::GetJobsRequest q;
  q.add_users("bob");
  auto rows = manager_->query(q);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].job_id(), now);
  v1::GetJobsRequest by_state;
  by_state.add_states("PD");
  ASSERT_EQ(manager_->query(by_state).size(), 1u);
  v1::GetJobsRequest by_node;
  by_node.set_nodes(job(now).batch_host());
  ASSERT_EQ(manager_->query(by_node).size(), 1u);
  clock_.advanceSeconds(600);
  pass();
  EXPECT_EQ(job(later).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(later).eligible_time(), clock_.now());
  // Finished jobs: hidden from squeue, kept for scontrol show job.
  finishBatch(now, 0);
  v1::GetJobsRequest all;
  EXPECT_EQ(manager_->query(all).size(), 1u);
  all.set_include_finished(true);
  EXPECT_EQ(manager_->query(all).size(), 2u);
}

}  // namespace
}  // namespace drover::jobs::testing
