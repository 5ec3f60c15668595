// The controller's indexes that keep a pass and a commit from walking the whole queue
// (incremental_pass.cpp, scheduling.cpp, steps.cpp): eligibility granted on the event that
// grants it (a release, a dependency satisfied, a --begin time reached through the ordered
// begin-time set), plan entries written only where they changed, and interactive allocations
// ended from an ordered (end, id) set. Each job must still become eligible, get scheduled,
// get its new reason, and not be rewritten when nothing changed.
#include <gtest/gtest.h>

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

class EventIndexesTest : public JobsTest {
 protected:
  // The controller's path: the maintained scheduler, its plan applied, then a commit.
  std::vector<Launch> controllerPass() {
    auto launches = manager_->schedulePass(nodeViews());
    EXPECT_TRUE(manager_->commit().ok());
    return launches;
  }
  void control(const std::string& action, JobId id) {
    v1::JobControlRequest r;
    r.set_action(action);
    r.add_job_ids(std::to_string(id));
    manager_->control(root(), r);
    ASSERT_TRUE(manager_->commit().ok());
  }
  void cancel(JobId id) {
    v1::CancelJobsRequest r;
    r.add_job_ids(std::to_string(id));
    manager_->cancel(root(), r);
    ASSERT_TRUE(manager_->commit().ok());
  }
  // Four jobs of a whole node each: the cluster is full for 30 minutes.
  void fillCluster() {
    for (int i = 0; i < 4; ++i) submit(SpecBuilder().nodes(1).ntasks(4).time(30));
    controllerPass();
  }
};

// Held, dependent and --begin jobs wait without a pass looking at them, and each becomes
// eligible (EligibleTime = the moment it did) and starts when its event comes.
TEST_F(EventIndexesTest, EachWaitingJobBecomesEligibleOnItsEventAndStarts) {
  enum class Wait { kHold, kDependency, kBeginTime };
  struct Case {
    std::string name;
    Wait wait;
  };
  const std::vector<Case> cases = {{"released", Wait::kHold},
                                   {"dependency satisfied", Wait::kDependency},
                                   {"begin time reached", Wait::kBeginTime}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    JobId blocker = 0;
    JobId id = 0;
    switch (c.wait) {  // each is granted 100 s after its submission
      case Wait::kHold:
        id = submit(SpecBuilder().hold().time(10));
        break;
      case Wait::kDependency:
        blocker = submit(SpecBuilder().nodes(1).ntasks(1).time(10));
        controllerPass();
        id = submit(SpecBuilder().time(10).dependency("afterok:" + std::to_string(blocker)));
        break;
      case Wait::kBeginTime:
        id = submit(SpecBuilder().time(10).begin(clock_.now() + 100));
        break;
    }
    controllerPass();
    EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
    EXPECT_EQ(job(id).eligible_time(), 0);
    clock_.advanceSeconds(40);
    controllerPass();  // nothing happened: still waiting
    EXPECT_EQ(job(id).eligible_time(), 0);
    clock_.advanceSeconds(60);
    const std::int64_t at = clock_.now();
    if (c.wait == Wait::kHold) control("release", id);
    if (c.wait == Wait::kDependency) finishBatch(blocker, 0);
    controllerPass();
    EXPECT_EQ(job(id).state(), v1::JOB_RUNNING) << job(id).reason();
    EXPECT_EQ(job(id).eligible_time(), at);
    finishBatch(id, 0);
    controllerPass();
  }
}

// Jobs that wait for a hold, a dependency or a begin time are kept out of the maintained
// scheduler, so a queue of thousands of them costs a pass nothing: the passes after a start or
// an end look only at the jobs that may run. Each still shows its reason (and a --begin job its
// start time) as a plan entry would, and comes in when its wait is over; a job held while it
// waited for resources leaves the scheduler and comes back on its release.
TEST_F(EventIndexesTest, JobsThatCannotStartAreKeptOutOfThePasses) {
  fillCluster();
  const JobId top = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  const std::int64_t begin = clock_.now() + 3600;
  std::vector<JobId> out;
  for (int i = 0; i < 10; ++i) {
    out.push_back(submit(SpecBuilder().hold().time(10)));
    out.push_back(submit(SpecBuilder().time(10).dependency("afterok:" + std::to_string(top))));
    out.push_back(submit(SpecBuilder().time(10).begin(begin)));
  }
  const JobId never = submit(SpecBuilder().time(10).dependency("afternotok:" + std::to_string(top)));
  controllerPass();
  auto inScheduler = [&](JobId id) {
    for (const auto& j : manager_->maintainedScheduler()->snapshot().pending)
      if (j.id == id) return true;
    return false;
  };
  EXPECT_TRUE(inScheduler(top));
  for (JobId id : out) EXPECT_FALSE(inScheduler(id)) << id;
  EXPECT_EQ(job(out[0]).reason(), "JobHeldUser");
  EXPECT_EQ(job(out[1]).reason(), "Dependency");
  EXPECT_EQ(job(out[2]).reason(), "BeginTime");
  EXPECT_EQ(job(out[2]).start_time(), begin);  // squeue --start: no earlier than --begin
  EXPECT_EQ(job(out[1]).start_time(), 0);
  EXPECT_GT(job(out[1]).priority(), 0);  // shown as a pass would give it

  // A full pass (a cancel) looks at the one job that may run, not at the 31 that wait.
  auto stats = manager_->applyStats();
  const JobId other = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  controllerPass();
  cancel(other);
  controllerPass();
  // other's entry and top's (twice at most), never those of the 31 that wait
  EXPECT_LE(manager_->applyStats().examined - stats.examined, 3u);

  // Held while it waited for resources: out of the scheduler, back on its release.
  control("hold", top);
  controllerPass();
  EXPECT_FALSE(inScheduler(top));
  EXPECT_EQ(job(top).reason(), "JobHeldAdmin");  // held by root
  EXPECT_EQ(job(top).sched_nodes(), "");
  control("release", top);
  controllerPass();
  EXPECT_TRUE(inScheduler(top));
  EXPECT_EQ(job(top).reason(), "Resources");

  // top runs and fails: its afterok dependents can never start, its afternotok one may now.
  clock_.advanceSeconds(31 * 60);
  v1::GetJobsRequest all;
  for (const auto& j : manager_->query(all)) {
    if (j.state() == v1::JOB_RUNNING) finishBatch(j.job_id(), 0);
  }
  controllerPass();
  ASSERT_EQ(job(top).state(), v1::JOB_RUNNING);
  finishBatch(top, 1);
  controllerPass();
  EXPECT_EQ(job(out[1]).reason(), "DependencyNeverSatisfied");
  EXPECT_FALSE(inScheduler(out[1]));
  EXPECT_EQ(job(never).state(), v1::JOB_RUNNING);

  // The begin time comes: the ten come in and start; the held ones wait on.
  clock_.advanceSeconds(begin - clock_.now());
  controllerPass();
  EXPECT_EQ(job(out[2]).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(out[29]).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(out[0]).reason(), "JobHeldUser");
  EXPECT_FALSE(inScheduler(out[0]));
}

TEST_F(EventIndexesTest, TheBeginTimerFollowsTheEarliestBeginTimeStillAhead) {
  const std::int64_t t0 = clock_.now();
  EXPECT_EQ(manager_->nextBeginTime(), 0);
  const JobId late = submit(SpecBuilder().time(10).begin(t0 + 300));
  const JobId soon = submit(SpecBuilder().time(10).begin(t0 + 100).hold());
  controllerPass();
  EXPECT_EQ(manager_->nextBeginTime(), t0 + 100);
  cancel(soon);
  controllerPass();
  EXPECT_EQ(manager_->nextBeginTime(), t0 + 300);
  v1::UpdateJobRequest u;
  u.set_job_id(std::to_string(late));
  (*u.mutable_fields())["StartTime"] = std::to_string(t0 + 200);
  ASSERT_TRUE(manager_->update(root(), u).ok());
  ASSERT_TRUE(manager_->commit().ok());
  controllerPass();
  EXPECT_EQ(manager_->nextBeginTime(), t0 + 200);
  clock_.advanceSeconds(200);
  controllerPass();
  EXPECT_EQ(manager_->nextBeginTime(), 0);
  EXPECT_EQ(job(late).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(late).eligible_time(), t0 + 200);
}

// A held job whose begin time passes stays ineligible until it is released.
TEST_F(EventIndexesTest, AHeldJobPastItsBeginTimeWaitsForItsRelease) {
  const JobId id = submit(SpecBuilder().time(10).begin(clock_.now() + 50).hold());
  controllerPass();
  clock_.advanceSeconds(60);
  controllerPass();
  EXPECT_EQ(job(id).eligible_time(), 0);
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  clock_.advanceSeconds(10);
  control("release", id);
  controllerPass();
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(id).eligible_time(), clock_.now());
}

// After a pass that only added jobs, only their entries are looked at; after a full pass every
// entry is, but only the ones that changed are written.
TEST_F(EventIndexesTest, OnlyChangedPendingEntriesAreWritten) {
  fillCluster();
  const JobId top = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  const JobId next = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  // Jobs of a DOWN partition: entries of the scheduler's that no start or end changes (held
  // jobs were, before they were kept out of it).
  config_.partitions[1].state = config::PartitionState::kDown;  // debug
  manager_->configChanged();
  std::vector<JobId> waiting;
  for (int i = 0; i < 20; ++i) waiting.push_back(submit(SpecBuilder().partition("debug").time(10)));
  controllerPass();
  controllerPass();  // settled: the next submission is judged against this plan
  EXPECT_EQ(job(top).reason(), "Resources");
  EXPECT_EQ(job(next).reason(), "Priority");

  auto stats = manager_->applyStats();
  const sched::Scheduler* maintained = manager_->maintainedScheduler();
  const int full = maintained->counters().fullPasses;
  const JobId added = submit(SpecBuilder().partition("debug").time(10));
  controllerPass();
  EXPECT_EQ(maintained->counters().fullPasses, full);  // the submission was incremental
  EXPECT_EQ(manager_->applyStats().examined, stats.examined + 1);  // only the new entry
  EXPECT_EQ(job(added).reason(), "PartitionDown");

  // A cancel runs a full pass: every pending entry is compared with the one last written for
  // its job, none changed, so none is looked up in the job table or written.
  stats = manager_->applyStats();
  cancel(waiting.back());
  controllerPass();
  EXPECT_GT(maintained->counters().fullPasses, full);
  EXPECT_EQ(manager_->applyStats().unchanged, stats.unchanged + 2 + 20);  // top, next, 19 + 1
  EXPECT_EQ(manager_->applyStats().examined, stats.examined);
  EXPECT_EQ(manager_->applyStats().written, stats.written);

  // The top job leaves: the next one takes its place and its reason, and nobody else changes.
  stats = manager_->applyStats();
  cancel(top);
  controllerPass();
  EXPECT_EQ(job(next).reason(), "Resources");
  EXPECT_EQ(manager_->applyStats().examined, stats.examined + 1);
  EXPECT_EQ(manager_->applyStats().written, stats.written + 1);

  // A job changed between passes is written again even where its entry is the same: an update
  // sets a pending job's reason to None until the scheduler says otherwise.
  v1::UpdateJobRequest u;
  u.set_job_id(std::to_string(waiting.front()));
  (*u.mutable_fields())["TimeLimit"] = "5";
  ASSERT_TRUE(manager_->update(root(), u).ok());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(waiting.front()).reason(), "None");
  controllerPass();
  EXPECT_EQ(job(waiting.front()).reason(), "PartitionDown");

  // Likewise when the next pass rebuilds the scheduler from the table (every priority
  // calculation period), which replays no job.
  u.set_job_id(std::to_string(waiting.back() - 1));
  ASSERT_TRUE(manager_->update(root(), u).ok());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(waiting.back() - 1).reason(), "None");
  clock_.advanceSeconds(config_.scheduler.priority.calc_period_s);
  controllerPass();
  EXPECT_EQ(job(waiting.back() - 1).reason(), "PartitionDown");
}

// scheduler.estimate_depth (Slurm's bf_max_job_test): the first jobs left waiting, in priority
// order, get an expected start; those past it show none. The reservation holder is not one of
// them.
TEST_F(EventIndexesTest, TheEstimateDepthBoundsWhichJobsGetAnExpectedStart) {
  config_.scheduler.estimate_depth = 2;
  fillCluster();
  std::vector<JobId> queue;
  for (int i = 0; i < 5; ++i) queue.push_back(submit(SpecBuilder().nodes(4).ntasks(16).time(30)));
  controllerPass();
  EXPECT_EQ(job(queue[0]).reason(), "Resources");
  EXPECT_EQ(job(queue[0]).start_time(), clock_.now() + 30 * 60);  // its reservation
  EXPECT_EQ(job(queue[1]).start_time(), clock_.now() + 60 * 60);
  EXPECT_EQ(job(queue[2]).start_time(), clock_.now() + 90 * 60);
  EXPECT_EQ(job(queue[3]).start_time(), 0);
  EXPECT_EQ(job(queue[4]).start_time(), 0);
  EXPECT_EQ(job(queue[3]).sched_nodes(), "");
  // A reconfigure that changes it takes effect at the next pass.
  config_.scheduler.estimate_depth = 3;
  manager_->configChanged();
  controllerPass();
  EXPECT_EQ(job(queue[3]).start_time(), clock_.now() + 120 * 60);
  EXPECT_EQ(job(queue[4]).start_time(), 0);
}

// SchedNodeList (squeue --start SCHEDNODES): the nodes reserved for a pending job, cleared
// when it starts; a cancelled job keeps what it last had, as Slurm shows it.
TEST_F(EventIndexesTest, PendingJobsPublishTheirPlannedNodes) {
  fillCluster();
  const JobId top = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  const JobId held = submit(SpecBuilder().hold().time(10));
  controllerPass();
  EXPECT_EQ(job(top).reason(), "Resources");
  EXPECT_EQ(job(top).sched_nodes(), "node[01-04]");
  EXPECT_GT(job(top).start_time(), clock_.now());
  EXPECT_EQ(job(held).sched_nodes(), "");
  cancel(top);
  EXPECT_EQ(job(top).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(top).sched_nodes(), "node[01-04]");

  const JobId again = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  controllerPass();
  EXPECT_EQ(job(again).sched_nodes(), "node[01-04]");
  clock_.advanceSeconds(31 * 60);  // the running jobs' limits pass; they end
  v1::GetJobsRequest all;
  for (const auto& j : manager_->query(all)) {
    if (j.state() == v1::JOB_RUNNING) finishBatch(j.job_id(), 0);
  }
  controllerPass();
  EXPECT_EQ(job(again).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(again).sched_nodes(), "");
}

// Interactive allocations end TIMEOUT at their limit, found through the (end, id) set; a limit
// changed while running moves the deadline.
TEST_F(EventIndexesTest, AllocationLimitsFollowStartsAndUpdates) {
  SpecBuilder b;
  b.time(2);
  v1::JobSpec spec = b.spec();
  spec.set_batch(false);
  const JobId short_one = submit(spec);
  const JobId extended = submit(spec);
  controllerPass();
  ASSERT_EQ(job(short_one).state(), v1::JOB_RUNNING);
  const std::int64_t t0 = clock_.now();
  EXPECT_EQ(manager_->enforceTimeBounds(), t0 + 120);

  v1::UpdateJobRequest u;
  u.set_job_id(std::to_string(extended));
  (*u.mutable_fields())["TimeLimit"] = "5";
  ASSERT_TRUE(manager_->update(root(), u).ok());
  ASSERT_TRUE(manager_->commit().ok());
  clock_.advanceSeconds(120);
  EXPECT_EQ(manager_->enforceTimeBounds(), t0 + 300);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(short_one).state(), v1::JOB_TIMEOUT);
  EXPECT_EQ(job(extended).state(), v1::JOB_RUNNING);
  clock_.advanceSeconds(180);
  EXPECT_EQ(manager_->enforceTimeBounds(), 0);
  EXPECT_EQ(job(extended).state(), v1::JOB_TIMEOUT);
}

}  // namespace
}  // namespace drover::jobs::testing
