// Job steps and interactive allocations in the JobManager: step ids, the LaunchStep requests
// and their environment, step ends from the supervisors' reports and their accounting, steps
// killed with their job, scancel JOB.STEP, restarts, and the life of an srun/salloc allocation.
#include <csignal>

#include "jobs/step_layout.h"
#include "jobs_fixture.h"
#include "launch/step_env.h"

namespace drover::jobs::testing {
namespace {

v1::StepSpec stepSpec(JobId job) {
  v1::StepSpec s;
  s.set_job_id(job);
  s.add_argv("/usr/bin/python3");
  s.add_argv("train.py");
  (*s.mutable_environment())["PATH"] = "/usr/bin:/bin";
  (*s.mutable_environment())["SLURM_PROCID"] = "7";  // from a surrounding step: dropped
  return s;
}

class StepsTest : public JobsTest {
 protected:
  // A running batch job on 2 nodes with 2 tasks each (--ntasks-per-node keeps them even;
  // -n 4 alone would run 3+1, as Slurm's block layout does).
  JobId runningJob(const Caller& who = alice(), std::uint32_t gpus = 0) {
    SpecBuilder b;
    b.nodes(2).ntasks(4).ntasksPerNode(2).time(30);
    if (gpus > 0) b.gres("gpu", gpus);
    JobId id = submit(b, who);
    clock_.advanceSeconds(1);
    pass();
    EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
    return id;
  }

  JobManager::CreatedStep create(const v1::StepSpec& spec, const Caller& who = alice()) {
    auto r = manager_->createStep(who, spec, addresses_);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
    EXPECT_TRUE(manager_->commit().ok());
    return r.ok() ? std::move(*r) : JobManager::CreatedStep{};
  }

  void report(JobId id, std::int64_t step, const std::string& node, int code, int sig = 0,
              v1::StepEventRequest::Kind kind = v1::StepEventRequest::FINISHED) {
    v1::StepEventRequest e;
    e.mutable_step()->set_job_id(id);
    e.mutable_step()->set_step_id(step);
    e.set_node(node);
    e.set_kind(kind);
    e.set_exit_code(code);
    e.set_exit_signal(sig);
    e.set_user_cpu_ms(100);
    e.set_max_rss_kb(node == "node02" ? 4096 : 1024);
    manager_->stepEvent(e);
    EXPECT_TRUE(manager_->commit().ok());
  }

  const acct::StepRecord* stepRecord(const acct::AcctBatch& b, JobId id, std::int64_t step) {
    for (const auto& s : b.steps)
      if (s.job_id == id && s.step_id == step) return &s;
    return nullptr;
  }

  std::map<std::string, std::string> addresses_{{"node01", "10.0.0.1"}, {"node02", "10.0.0.2"}};
};

TEST_F(StepsTest, CreateStepLaysOutTasksAndBuildsEachNodesLaunch) {
  JobId id = runningJob(alice(), 2);
  (void)manager_->takeAccounting();
  auto spec = stepSpec(id);
  spec.set_distribution("cyclic");
  spec.set_std_out("out.%t");
  auto created = create(spec);
  const auto& reply = created.reply;
  EXPECT_EQ(reply.job_id(), id);
  EXPECT_EQ(reply.step_id(), 0);
  EXPECT_EQ(reply.ntasks(), 4u);
  EXPECT_EQ(reply.nodelist(), "node[01-02]");
  ASSERT_EQ(reply.nodes_size(), 2);
  ASSERT_EQ(created.launches.size(), 2u);

  const auto& second = created.launches[1];
  EXPECT_EQ(second.node, "node02");
  const v1::LaunchStepRequest& r = second.request;
  EXPECT_EQ(r.step().step_id(), 0);
  EXPECT_EQ(r.node_id(), 1u);
  EXPECT_EQ(std::vector<std::uint32_t>(r.task_ranks().begin(), r.task_ranks().end()),
            (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(r.num_tasks(), 2u);
  EXPECT_EQ(r.step_num_tasks(), 4u);
  EXPECT_TRUE(r.pytorch_env());
  EXPECT_EQ(r.argv_size(), 2);
  EXPECT_EQ(r.uid(), 1001u);
  EXPECT_EQ(r.std_out(), "/home/alice/out.%t");  // %t is the supervisor's, per task
  EXPECT_EQ(r.time_limit_s(), 30 * 60 - 0);     // what is left of the job's 30 minutes
  const auto& env = r.environment();
  EXPECT_EQ(env.at("PATH"), "/usr/bin:/bin");
  EXPECT_EQ(env.count("SLURM_PROCID"), 0u);
  EXPECT_EQ(env.at("SLURM_JOB_ID"), std::to_string(id));
  EXPECT_EQ(env.at("SLURM_STEP_ID"), "0");
  EXPECT_EQ(env.at("SLURM_STEPID"), "0");
  EXPECT_EQ(env.at("SLURM_STEP_NODELIST"), "node[01-02]");
  EXPECT_EQ(env.at("SLURM_STEP_NUM_NODES"), "2");
  EXPECT_EQ(env.at("SLURM_STEP_NUM_TASKS"), "4");
  EXPECT_EQ(env.at("SLURM_STEP_TASKS_PER_NODE"), "2(x2)");
  EXPECT_EQ(env.at("SLURM_NTASKS"), "4");
  EXPECT_EQ(env.at("SLURM_DISTRIBUTION"), "cyclic");
  // Without a GPU request the step has the job's GPUs on the node.
  EXPECT_EQ(r.allocation().gpu_indices_size(), 2);
  EXPECT_EQ(env.at("SLURM_GPUS_ON_NODE"), "2");
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(env.at("SLURM_STEP_GPUS"), "0,1");
  EXPECT_EQ(env.at("MASTER_ADDR"), "10.0.0.1");
  EXPECT_EQ(env.at("MASTER_PORT"), std::to_string(launch::masterPort(id, 0)));
  EXPECT_EQ(env.at("WORLD_SIZE"), "4");
  EXPECT_EQ(env.at("LOCAL_WORLD_SIZE"), "2");
  EXPECT_EQ(env.count("ENVIRONMENT"), 0u);

  // The step is running in accounting and in the job; the next one is step 1.
  auto batch = manager_->takeAccounting();
  const acct::StepRecord* rec = stepRecord(batch, id, 0);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kRunning);
  EXPECT_EQ(rec->name, "python3");
  EXPECT_EQ(rec->ntasks, 4u);
  EXPECT_EQ(rec->layout, "Cyclic");
  EXPECT_EQ(job(id).steps_size(), 1);
  EXPECT_EQ(create(stepSpec(id)).reply.step_id(), 1);
}

// Golden 109: a step whose task was killed by a signal is CANCELLED with it, not FAILED.
TEST_F(StepsTest, StepKilledByASignalIsCancelled) {
  JobId id = runningJob();
  create(stepSpec(id));
  report(id, 0, "node01", 0);
  (void)manager_->takeAccounting();
  report(id, 0, "node02", 0, 9);
  auto batch = manager_->takeAccounting();
  const acct::StepRecord* rec = stepRecord(batch, id, 0);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kCancelled);
  EXPECT_EQ(rec->exit.signal, 9);
}

TEST_F(StepsTest, StepEndsWhenEveryNodeReportedWithTheHighestExitCode) {
  JobId id = runningJob();
  create(stepSpec(id));
  report(id, 0, "node01", 0);
  EXPECT_EQ(job(id).steps_size(), 1);  // node02 has not reported
  report(id, 0, "node01", 0);          // a duplicate changes nothing
  (void)manager_->takeAccounting();
  report(id, 0, "node02", 3);
  EXPECT_EQ(job(id).steps_size(), 0);
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);  // a step's end is not the job's
  auto batch = manager_->takeAccounting();
  const acct::StepRecord* rec = stepRecord(batch, id, 0);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kFailed);
  EXPECT_EQ(rec->exit.code, 3);
  EXPECT_EQ(rec->usage.user_cpu_usec, 200'000);
  EXPECT_EQ(rec->usage.max_rss_kb, 4096);
  EXPECT_EQ(rec->usage.max_rss_node, "node02");
  EXPECT_EQ(rec->node_list, "node[01-02]");

  create(stepSpec(id));
  report(id, 1, "node01", 0);
  report(id, 1, "node02", 0);
  batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 1), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 1)->state, acct::JobState::kCompleted);
  // DerivedExitCode: the highest of the steps' (the failed step 0's 3:0), kept after a later
  // step succeeded, and in the job's accounting record once it ends (the reference's
  // `srun false; true`: COMPLETED 0:0, DerivedExitCode 1:0).
  EXPECT_EQ(std::make_pair(job(id).derived_exit_code(), job(id).derived_exit_signal()), std::make_pair(3u, 0u));
  finishBatch(id, 0);
  batch = manager_->takeAccounting();
  bool recorded = false;
  for (const auto& j : batch.jobs) {
    if (j.job_id != id) continue;
    EXPECT_EQ(std::make_pair(j.derived_exit.code, j.exit.code), std::make_pair(3, 0));
    recorded = true;
  }
  EXPECT_TRUE(recorded);
}

// sacct -l (golden 117): each node's supervisor sends its tasks' figures; the step's record
// folds all of them (Max with node and task, Ave over the tasks), and a duplicate report adds
// nothing.
TEST_F(StepsTest, TaskUsageFromEveryNodeFoldsIntoTheStepRecord) {
  JobId id = runningJob();
  create(stepSpec(id));
  auto reportTasks = [&](const std::string& node, std::vector<std::pair<std::uint32_t, int>> rss) {
    v1::StepEventRequest e;
    e.mutable_step()->set_job_id(id);
    e.mutable_step()->set_step_id(0);
    e.set_node(node);
    e.set_kind(v1::StepEventRequest::FINISHED);
    for (auto [task, kb] : rss) {
      auto* t = e.add_tasks();
      t->set_task(task);
      t->set_node("ignored: the report's node counts");
      t->set_rss_kb(static_cast<std::uint64_t>(kb));
      t->set_vmsize_kb(static_cast<std::uint64_t>(kb) * 2);
      t->set_cpu_ms(1000u * task);
      t->set_read_bytes(1u << 20);
    }
    manager_->stepEvent(e);
    EXPECT_TRUE(manager_->commit().ok());
  };
  reportTasks("node01", {{0, 100}, {1, 300}});
  reportTasks("node01", {{0, 100}, {1, 300}});  // duplicate
  reportTasks("node02", {{2, 900}, {3, 500}});
  auto batch = manager_->takeAccounting();
  const acct::StepRecord* rec = stepRecord(batch, id, 0);
  ASSERT_NE(rec, nullptr);
  const acct::Usage& u = rec->usage;
  EXPECT_EQ(u.max_rss_kb, 900);
  EXPECT_EQ(u.max_rss_node, "node02");
  EXPECT_EQ(u.max_rss_task, 2);
  EXPECT_EQ(u.ave_rss_kb, (100 + 300 + 900 + 500) / 4);
  EXPECT_EQ(u.max_vmsize_kb, 1800);
  EXPECT_EQ(u.min_cpu_task, 0);
  EXPECT_EQ(u.min_cpu_node, "node01");
  EXPECT_EQ(u.ave_cpu_sec, 1);  // (0 + 1 + 2 + 3) s / 4
  EXPECT_DOUBLE_EQ(*u.ave_disk_read_mb, 1.0);
  EXPECT_EQ(u.tres_usage_in_max_task, "cpu=3,fs/disk=0,mem=2,pages=0,vmem=2");
}

// Golden 111: steps' AllocTRES carry no billing (the job's does); goldens 041/042: srun inside
// a batch job passes SLURM_DISTRIBUTION (block without -m) and the job's SLURM_JOB_GPUS on.
TEST_F(StepsTest, BatchJobStepsTresAndDistribution) {
  JobId id = runningJob(alice(), 2);
  v1::StepSpec in_job = stepSpec(id);
  in_job.set_in_allocation(true);  // srun inside the batch job
  auto created = create(in_job);
  ASSERT_EQ(created.launches.size(), 2u);
  const auto& env = created.launches[0].request.environment();
  EXPECT_EQ(env.at("SLURM_DISTRIBUTION"), "block");
  EXPECT_EQ(env.at("SLURM_JOB_GPUS"), "0,1");
  report(id, 0, "node01", 0);
  report(id, 0, "node02", 0);
  auto batch = manager_->takeAccounting();
  const acct::StepRecord* rec = stepRecord(batch, id, 0);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->alloc_tres.rfind("cpu=", 0), 0u) << rec->alloc_tres;
  EXPECT_EQ(rec->alloc_tres.find("billing"), std::string::npos) << rec->alloc_tres;
  const acct::StepRecord* batch_step = stepRecord(batch, id, acct::kBatchStep);
  if (batch_step == nullptr) {
    v1::StepEventRequest e;
    e.mutable_step()->set_job_id(id);
    e.mutable_step()->set_step_id(acct::kBatchStep);
    e.set_node("node01");
    e.set_kind(v1::StepEventRequest::FINISHED);
    manager_->stepEvent(e);
    ASSERT_TRUE(manager_->commit().ok());
    batch = manager_->takeAccounting();
    batch_step = stepRecord(batch, id, acct::kBatchStep);
  }
  ASSERT_NE(batch_step, nullptr);
  EXPECT_EQ(batch_step->alloc_tres.find("billing"), std::string::npos) << batch_step->alloc_tres;
}

TEST_F(StepsTest, TasksFillTheFirstNodeAndTheDefaultStepFollows) {
  // -N 2 -n 4 on idle 4-CPU nodes: 3 tasks on the first node, 1 on the second (Slurm's block
  // layout, sched/task_layout.h); CPUs, the batch step and srun's default layout follow.
  JobId id = submit(SpecBuilder().nodes(2).ntasks(4).time(30), alice());
  clock_.advanceSeconds(1);
  pass();
  const v1::JobInfo& i = job(id);
  ASSERT_EQ(i.allocation_size(), 2);
  EXPECT_EQ(i.allocation(0).tasks(), 3u);
  EXPECT_EQ(i.allocation(0).cpus(), 3u);
  EXPECT_EQ(i.allocation(1).tasks(), 1u);
  EXPECT_EQ(i.allocation(1).cpus(), 1u);
  EXPECT_EQ(i.num_cpus(), 4u);
  EXPECT_EQ(i.num_tasks(), 4u);
  auto batch = manager_->takeAccounting();
  const acct::StepRecord* batch_step = stepRecord(batch, id, acct::kBatchStep);
  ASSERT_NE(batch_step, nullptr);
  EXPECT_EQ(batch_step->ncpus, 3);
  auto created = create(stepSpec(id));
  ASSERT_EQ(created.launches.size(), 2u);
  EXPECT_EQ(created.launches[0].request.environment().at("SLURM_STEP_TASKS_PER_NODE"), "3,1");
  EXPECT_EQ(created.launches[0].request.num_tasks(), 3u);
  EXPECT_EQ(created.launches[1].request.num_tasks(), 1u);
}

TEST(StepTresTest, SlurmsStepTres) {
  struct Case { std::int64_t cpus, mem, nodes, gpus; std::string want; };
  for (const Case& c : std::vector<Case>{{3, 12000, 1, 2, "cpu=3,gres/gpu=2,mem=12000M,node=1"},
                                         {4, 16000, 2, 4, "cpu=4,gres/gpu=4,mem=16000M,node=2"},
                                         {1, 0, 1, 0, "cpu=1,node=1"}}) {
    EXPECT_EQ(stepTres(c.cpus, c.mem, c.nodes, c.gpus), c.want);
  }
}

TEST_F(StepsTest, LaunchFailureCountsAsFailedToStart) {
  JobId id = runningJob();
  auto spec = stepSpec(id);
  spec.set_min_nodes(1);
  create(spec);
  (void)manager_->takeAccounting();
  manager_->stepLaunchFailed(id, 0, "node01", "agent unreachable");
  ASSERT_TRUE(manager_->commit().ok());
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kFailed);
  EXPECT_EQ(job(id).steps_size(), 0);
}

// The controller sends a node's step launch again (its agent did not answer in time) only
// while the step still wants it there.
TEST_F(StepsTest, ALaunchIsSentAgainOnlyWhileTheStepStillWantsIt) {
  JobId id = runningJob();
  auto created = create(stepSpec(id));
  ASSERT_EQ(created.launches.size(), 2u);
  const v1::StepId step = created.launches[0].request.step();
  ASSERT_TRUE(step.has_restart_count());
  EXPECT_TRUE(manager_->stepLaunchWanted(step, "node01"));
  EXPECT_TRUE(manager_->stepLaunchWanted(step, "node02"));
  v1::StepId other_run = step;
  other_run.set_restart_count(step.restart_count() + 1);
  EXPECT_FALSE(manager_->stepLaunchWanted(other_run, "node01"));
  v1::StepId no_such_step = step;
  no_such_step.set_step_id(7);
  EXPECT_FALSE(manager_->stepLaunchWanted(no_such_step, "node01"));
  v1::StepId no_such_job = step;
  no_such_job.set_job_id(99999);
  EXPECT_FALSE(manager_->stepLaunchWanted(no_such_job, "node01"));

  // node02's part ran and ended: nothing is left to launch there.
  report(id, 0, "node02", 0);
  EXPECT_FALSE(manager_->stepLaunchWanted(step, "node02"));
  EXPECT_TRUE(manager_->stepLaunchWanted(step, "node01"));

  // scancel JOB.STEP: its kill went out; a launch sent after it would start the step again.
  v1::CancelJobsRequest cancel_step;
  cancel_step.add_job_ids(std::to_string(id) + ".0");
  ASSERT_TRUE(manager_->cancel(alice(), cancel_step)[0].ok());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_FALSE(manager_->stepLaunchWanted(step, "node01"));

  // scancel JOB: the same for every step of the job.
  const v1::StepId next = create(stepSpec(id)).launches[0].request.step();
  EXPECT_TRUE(manager_->stepLaunchWanted(next, "node01"));
  v1::CancelJobsRequest cancel_job;
  cancel_job.add_job_ids(std::to_string(id));
  ASSERT_TRUE(manager_->cancel(alice(), cancel_job)[0].ok());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_FALSE(manager_->stepLaunchWanted(next, "node01"));
}

TEST_F(StepsTest, RunningStepsAreKilledAndCancelledWhenTheJobEnds) {
  JobId id = runningJob();
  create(stepSpec(id));
  (void)manager_->takeSignals();
  (void)manager_->takeAccounting();
  finishBatch(id, 0);
  EXPECT_EQ(job(id).state(), v1::JOB_COMPLETED);
  ASSERT_EQ(job(id).steps_size(), 1);  // kept for late reports
  EXPECT_TRUE(job(id).steps(0).cancelled());
  auto signals = manager_->takeSignals();
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].request.step().step_id(), 0);
  EXPECT_TRUE(signals[0].request.kill());
  EXPECT_EQ(signals[0].nodes, (std::vector<std::string>{"node01", "node02"}));
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kCancelled);
  // Reports of the killed tasks keep it CANCELLED.
  report(id, 0, "node01", 0, SIGKILL);
  report(id, 0, "node02", 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_COMPLETED);
  batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kCancelled);
  EXPECT_EQ(job(id).steps_size(), 0);
}

// As the reference's (its requeued job's second run had its own 63.0): each run numbers its
// steps from 0, and each step's record names its run, under which sacct -D lists it.
TEST_F(StepsTest, ARequeuedJobsNextRunNumbersItsStepsAnewUnderItsOwnRun) {
  JobId id = runningJob();
  create(stepSpec(id));
  (void)manager_->takeAccounting();
  ASSERT_TRUE(manager_->control(alice(), act("requeue", std::to_string(id)))[0].ok());
  finishBatch(id, 0, SIGKILL);
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->run, 0u);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kCancelled);
  ASSERT_EQ(job(id).state(), v1::JOB_PENDING);
  clock_.advanceSeconds(config_.jobs.requeue_wait_s + 2);
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_EQ(create(stepSpec(id)).reply.step_id(), 0);
  report(id, 0, "node01", 0);
  report(id, 0, "node02", 0);
  batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->run, 1u);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kCompleted);
}

TEST_F(StepsTest, AStepThatEndedJustBeforeItsAllocationKeepsItsRealState) {
  // srun saw its tasks end and salloc released the allocation before the supervisors'
  // reports reached the controller.
  JobId id = submit(SpecBuilder().nodes(2).ntasks(4).time(30));
  clock_.advanceSeconds(1);
  pass();
  create(stepSpec(id));
  finishBatch(id, 0);
  const std::int64_t job_end = job(id).end_time();
  clock_.advanceSeconds(5);
  (void)manager_->takeAccounting();
  report(id, 0, "node01", 0);
  report(id, 0, "node02", 3);
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kFailed);
  EXPECT_EQ(stepRecord(batch, id, 0)->exit.code, 3);
  EXPECT_EQ(stepRecord(batch, id, 0)->end, job_end);
}

TEST_F(StepsTest, ScancelOfOneStepKillsOnlyThatStep) {
  JobId id = runningJob();
  create(stepSpec(id));
  create(stepSpec(id));
  (void)manager_->takeSignals();
  v1::CancelJobsRequest req;
  req.add_job_ids(std::to_string(id) + ".1");
  auto results = manager_->cancel(alice(), req);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok()) << results[0].error();
  ASSERT_TRUE(manager_->commit().ok());
  auto signals = manager_->takeSignals();
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].request.step().step_id(), 1);
  EXPECT_TRUE(signals[0].request.kill());
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  (void)manager_->takeAccounting();
  report(id, 1, "node01", 0, SIGKILL);
  report(id, 1, "node02", 0, SIGKILL);
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 1), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 1)->state, acct::JobState::kCancelled);
  EXPECT_EQ(job(id).steps_size(), 1);  // step 0 runs on

  struct Bad { std::string id; Caller who; std::string error; };
  // A step that ended is no longer there: the reference's "Invalid job id specified".
  for (const Bad& b : std::vector<Bad>{{std::to_string(id) + ".1", alice(), "Invalid job id specified"},
                                       {std::to_string(id) + ".9", alice(), "Invalid job id specified"},
                                       {std::to_string(id) + ".x", alice(), "Invalid job id specified"},
                                       {"99999.0", alice(), "Invalid job id specified"},
                                       {std::to_string(id) + ".0", bob(), "Access/permission denied"}}) {
    v1::CancelJobsRequest r;
    r.add_job_ids(b.id);
    auto res = manager_->cancel(b.who, r);
    ASSERT_EQ(res.size(), 1u);
    EXPECT_FALSE(res[0].ok()) << b.id;
    EXPECT_EQ(res[0].error(), b.error) << b.id;
  }
}

TEST_F(StepsTest, RefusalsInSlurmsWords) {
  JobId id = runningJob();
  JobId theirs = runningJob(bob());
  struct Bad { std::string name; v1::StepSpec spec; Caller who; std::string error; };
  auto too_big = stepSpec(id);
  too_big.set_ntasks(100);
  auto other = stepSpec(id + 100);
  std::vector<Bad> bad = {
      {"not_owner", stepSpec(id), bob(), "Access/permission denied"},
      {"no_job", other, alice(), "Invalid job id specified"},
      {"too_big", too_big, alice(), kStepTooManyProcessors},
  };
  for (const auto& b : bad) {
    auto r = manager_->createStep(b.who, b.spec, addresses_);
    ASSERT_FALSE(r.ok()) << b.name;
    EXPECT_EQ(r.error(), b.error) << b.name;
  }
  JobId pending = submit(SpecBuilder().nodes(4).ntasks(16));
  auto r = manager_->createStep(alice(), stepSpec(pending), addresses_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "Job is pending execution");
  finishBatch(id, 0);
  r = manager_->createStep(alice(), stepSpec(id), addresses_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "Job/step already completing or completed");
  // Root may create steps in anyone's job; the step numbering is per job.
  auto created = manager_->createStep(root(), stepSpec(theirs), addresses_);
  ASSERT_TRUE(created.ok()) << created.error();
  EXPECT_EQ(created->reply.step_id(), 0);
}

// srun --multi-prog: the file's text travels in the StepSpec; each node's launch carries its
// tasks' own argv in task_ranks order, and argv stays empty.
v1::StepSpec multiProgSpec(JobId job, const std::string& text) {
  v1::StepSpec s = stepSpec(job);
  s.clear_argv();
  s.add_argv("mpmd.conf");
  s.add_argv("extra");
  s.mutable_multi_prog()->set_file("mpmd.conf");
  s.mutable_multi_prog()->set_text(text);
  return s;
}

std::vector<std::vector<std::string>> taskArgvs(const v1::LaunchStepRequest& r) {
  std::vector<std::vector<std::string>> out;
  for (const auto& t : r.task_argv()) out.emplace_back(t.argv().begin(), t.argv().end());
  return out;
}

TEST_F(StepsTest, MultiProgGivesEachTaskItsLinesProgramInItsNodesLaunch) {
  JobId id = runningJob();
  auto spec = multiProgSpec(id, "# ranks 0 and 2 share a line\n0,2 echo a %t %o\n* run %t %o\n");
  spec.set_distribution("cyclic");  // node01: ranks 0 and 2; node02: 1 and 3
  auto created = create(spec);
  ASSERT_EQ(created.launches.size(), 2u);
  const v1::LaunchStepRequest& first = created.launches[0].request;
  const v1::LaunchStepRequest& second = created.launches[1].request;
  EXPECT_EQ(first.argv_size(), 0);
  EXPECT_EQ(second.argv_size(), 0);
  using Argvs = std::vector<std::vector<std::string>>;
  EXPECT_EQ(taskArgvs(first), (Argvs{{"echo", "a", "0", "0", "extra"}, {"echo", "a", "2", "1", "extra"}}));
  EXPECT_EQ(taskArgvs(second), (Argvs{{"run", "1", "0", "extra"}, {"run", "3", "1", "extra"}}));
  EXPECT_EQ(job(id).steps(0).name(), "mpmd.conf");
  // A step without --multi-prog keeps the shared argv.
  auto plain = create(stepSpec(id));
  EXPECT_EQ(plain.launches[0].request.argv_size(), 2);
  EXPECT_EQ(plain.launches[0].request.task_argv_size(), 0);
}

TEST_F(StepsTest, MultiProgFileLeavingARankWithoutAProgramIsRefusedAndTakesNoStepId) {
  JobId id = runningJob();
  (void)manager_->takeAccounting();
  struct Bad { std::string text; std::string error; };
  const std::vector<Bad> bad = {
      {"0-2 echo a\n", "mpmd.conf: No executable program specified for task 3: no line names "
                       "rank 3 and there is no '*' line (the step has 4 tasks, ranks 0-3; name "
                       "each once, or end the file with a '*' line for the rest)"},
      {"0-4 echo a\n", "mpmd.conf:1: task rank 4 is out of range: the step has 4 tasks (ranks 0-3)"},
      {"0 a\n0 b\n", "mpmd.conf:2: task rank 0 is already on line 1: each task rank may be on "
                     "one line only"},
  };
  for (const auto& b : bad) {
    auto r = manager_->createStep(alice(), multiProgSpec(id, b.text), addresses_);
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_EQ(r.error(), b.error);
  }
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).steps_size(), 0);
  EXPECT_TRUE(manager_->takeAccounting().steps.empty());
  EXPECT_EQ(create(multiProgSpec(id, "* echo %t\n")).reply.step_id(), 0);
}

TEST_F(StepsTest, ARestartedControllerContinuesNumberingAndKnowsRunningSteps) {
  JobId id = runningJob();
  create(stepSpec(id));
  create(stepSpec(id));
  report(id, 0, "node01", 0);
  report(id, 0, "node02", 0);
  reopen();
  EXPECT_EQ(job(id).steps_size(), 1);
  EXPECT_EQ(job(id).steps(0).step_id(), 1);
  EXPECT_EQ(create(stepSpec(id)).reply.step_id(), 2);
  (void)manager_->takeAccounting();
  report(id, 1, "node01", 0);
  report(id, 1, "node02", 0);
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 1), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 1)->state, acct::JobState::kCompleted);
}

TEST_F(StepsTest, NoPytorchEnvLeavesThoseVariablesOut) {
  JobId id = runningJob();
  auto spec = stepSpec(id);
  spec.set_no_pytorch_env(true);
  auto created = create(spec);
  ASSERT_FALSE(created.launches.empty());
  const auto& r = created.launches[0].request;
  EXPECT_FALSE(r.pytorch_env());
  EXPECT_EQ(r.environment().count("MASTER_ADDR"), 0u);
  EXPECT_EQ(r.environment().count("WORLD_SIZE"), 0u);
}

// --- Interactive allocations (srun/salloc outside a job) ---

v1::JobSpec allocationSpec(std::int64_t minutes) {
  v1::JobSpec s = SpecBuilder().nodes(1).time(minutes).spec();
  s.clear_script();
  s.set_batch(false);
  s.set_name("bash");
  return s;
}

TEST_F(StepsTest, AllocationRunsWithoutLaunchUntilReleased) {
  JobId id = submit(allocationSpec(10));
  clock_.advanceSeconds(1);
  auto launches = pass();
  EXPECT_TRUE(launches.empty());
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_FALSE(job(id).batch());
  auto created = create(stepSpec(id));
  EXPECT_EQ(created.launches.size(), 1u);
  // Goldens 049-051: an srun outside a job sets neither of these in its tasks.
  EXPECT_EQ(created.launches[0].request.environment().count("SLURM_DISTRIBUTION"), 0u);
  EXPECT_EQ(created.launches[0].request.environment().count("SLURM_JOB_GPUS"), 0u);
  (void)manager_->takeSignals();

  v1::CompleteAllocationRequest done;
  done.set_job_id(id);
  EXPECT_FALSE(manager_->completeAllocation(bob(), done).ok());
  ASSERT_TRUE(manager_->completeAllocation(alice(), done).ok());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_COMPLETED);
  EXPECT_EQ(manager_->takeSignals().size(), 1u);  // the running step is killed
  auto again = manager_->completeAllocation(alice(), done);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), "Job/step already completing or completed");
}

TEST_F(StepsTest, AllocationEndsFailedWithTheExitCodeOrCancelled) {
  JobId failed = submit(allocationSpec(10));
  JobId cancelled = submit(allocationSpec(10));
  clock_.advanceSeconds(1);
  pass();
  v1::CompleteAllocationRequest done;
  done.set_job_id(failed);
  done.set_exit_code(2);
  ASSERT_TRUE(manager_->completeAllocation(alice(), done).ok());
  EXPECT_EQ(job(failed).state(), v1::JOB_FAILED);
  EXPECT_EQ(job(failed).exit_code(), 2u);

  v1::CancelJobsRequest cancel;
  cancel.add_job_ids(std::to_string(cancelled));
  auto results = manager_->cancel(alice(), cancel);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(job(cancelled).state(), v1::JOB_CANCELLED);  // no batch step to wait for

  // A batch job is not released this way.
  JobId batch = submit(SpecBuilder());
  done.set_job_id(batch);
  EXPECT_FALSE(manager_->completeAllocation(alice(), done).ok());
}

TEST_F(StepsTest, AllocationTimesOutAtItsLimit) {
  JobId id = submit(allocationSpec(2));
  JobId longer = submit(allocationSpec(5));
  clock_.advanceSeconds(1);
  pass();
  const std::int64_t end = job(id).end_time();
  EXPECT_EQ(manager_->enforceTimeBounds(), end);
  clock_.setSeconds(end - 1);
  EXPECT_EQ(manager_->enforceTimeBounds(), end);
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  clock_.setSeconds(end);
  EXPECT_EQ(manager_->enforceTimeBounds(), job(longer).end_time());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_TIMEOUT);
  EXPECT_EQ(job(longer).state(), v1::JOB_RUNNING);
}

TEST_F(StepsTest, PendingAllocationReleasedIsCancelled) {
  JobId blocker = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  clock_.advanceSeconds(1);
  pass();
  ASSERT_EQ(job(blocker).state(), v1::JOB_RUNNING);
  JobId id = submit(allocationSpec(10));
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_PENDING);
  v1::CompleteAllocationRequest done;
  done.set_job_id(id);
  ASSERT_TRUE(manager_->completeAllocation(alice(), done).ok());
  EXPECT_EQ(job(id).state(), v1::JOB_CANCELLED);
}

}  // namespace
}  // namespace drover::jobs::testing

namespace drover::jobs::testing {
namespace {

TEST_F(StepsTest, ClusterConfCanTurnThePytorchVariablesOff) {
  const std::string base =
      "cluster_name: c\nnodes:\n  - names: n[1-2]\n    address: 10.0.0.1\n    port: 7001-7002\n"
      "partitions:\n  - name: p\n    nodes: ALL\n";
  auto on = config::parseClusterConfig(base, "t.conf");
  ASSERT_TRUE(on.ok()) << on.error();
  EXPECT_TRUE(on->steps.pytorch_env);
  auto off = config::parseClusterConfig(base + "steps:\n  pytorch_env: false\n", "t.conf");
  ASSERT_TRUE(off.ok()) << off.error();
  EXPECT_FALSE(off->steps.pytorch_env);
  auto bad = config::parseClusterConfig(base + "steps:\n  pytorch: false\n", "t.conf");
  EXPECT_FALSE(bad.ok());

  config_.steps.pytorch_env = false;
  JobId id = runningJob();
  auto created = create(stepSpec(id));
  ASSERT_FALSE(created.launches.empty());
  EXPECT_FALSE(created.launches[0].request.pytorch_env());
  EXPECT_EQ(created.launches[0].request.environment().count("MASTER_PORT"), 0u);
}

}  // namespace
}  // namespace drover::jobs::testing

namespace drover::jobs::testing {
namespace {

TEST_F(StepsTest, KillOnBadExitKillsTheStepOnTheOtherNodes) {
  JobId id = runningJob();
  auto spec = stepSpec(id);
  spec.set_kill_on_bad_exit(true);
  create(spec);
  (void)manager_->takeSignals();
  report(id, 0, "node02", 1);
  auto signals = manager_->takeSignals();
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].nodes, std::vector<std::string>{"node01"});
  EXPECT_TRUE(signals[0].request.kill());
  (void)manager_->takeAccounting();
  report(id, 0, "node01", 0, SIGKILL);
  auto batch = manager_->takeAccounting();
  ASSERT_NE(stepRecord(batch, id, 0), nullptr);
  EXPECT_EQ(stepRecord(batch, id, 0)->state, acct::JobState::kFailed);
  EXPECT_EQ(stepRecord(batch, id, 0)->exit.code, 1);
  // Without -K a failed node leaves the others running.
  create(stepSpec(id));
  (void)manager_->takeSignals();
  report(id, 1, "node02", 1);
  EXPECT_TRUE(manager_->takeSignals().empty());
}

}  // namespace
}  // namespace drover::jobs::testing
