// --deadline, as the reference (Slurm 22.05) showed it: a job that can no longer end by its
// deadline (from now, its --time-min or else its time limit) ends DEADLINE (Reason DeadLine,
// exit code 1) without starting; one with a --time-min starts with its limit cut to the whole
// minutes left; held jobs wait for their release; a deadline already past is refused; scontrol
// update Deadline= is root's and operators', of a pending job.
#include <gtest/gtest.h>

#include "jobs/deadline.h"
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

v1::JobInfo infoWith(std::int64_t deadline, std::int64_t limit_min, std::int64_t time_min = 0) {
  v1::JobInfo j;
  j.set_time_limit_min(limit_min);
  j.mutable_spec()->set_deadline(deadline);
  j.mutable_spec()->set_time_min_min(time_min);
  return j;
}

TEST(DeadlineRules, LatestStartRunsTheTimeMinElseTheLimit) {
  EXPECT_EQ(latestStart(infoWith(0, 10)), std::nullopt);
  EXPECT_EQ(latestStart(infoWith(10000, 10)), 10000 - 600);
  EXPECT_EQ(latestStart(infoWith(10000, 10, 2)), 10000 - 120);
  EXPECT_EQ(latestStart(infoWith(10000, -1)), 10000 - 60);  // unlimited, no --time-min
}

TEST(DeadlineRules, TheLimitIsCutToTheWholeMinutesLeft) {
  // The reference: deadline 06:52:04, start 06:47:07 (297 s), -t 10 --time-min=2 -> 4:00.
  EXPECT_EQ(limitWithinDeadline(infoWith(1000 + 297, 10, 2), 1000), 4);
  EXPECT_EQ(limitWithinDeadline(infoWith(1000 + 1800, 60, 5), 1000), 30);
  EXPECT_EQ(limitWithinDeadline(infoWith(1000 + 1800, 10), 1000), 10);   // fits: unchanged
  EXPECT_EQ(limitWithinDeadline(infoWith(1000 + 1800, -1), 1000), 30);   // unlimited: cut
  EXPECT_EQ(limitWithinDeadline(infoWith(0, 10), 1000), 10);             // no deadline
}

class DeadlineTest : public JobsTest {
 protected:
  // The controller's path: a commit's time bounds, then a pass and its commit.
  void controllerPass() {
    manager_->enforceTimeBounds();
    manager_->schedulePass(nodeViews());
    ASSERT_TRUE(manager_->commit().ok());
  }
  v1::JobSpec withDeadline(std::int64_t from_now_s, std::int64_t limit_min,
                           std::int64_t time_min = 0) {
    v1::JobSpec s = SpecBuilder().time(limit_min);
    s.set_deadline(clock_.now() + from_now_s);
    s.set_time_min_min(time_min);
    return s;
  }
  void expectDeadlineEnd(JobId id, std::int64_t at) {
    EXPECT_EQ(job(id).state(), v1::JOB_DEADLINE);
    EXPECT_EQ(job(id).reason(), "DeadLine");
    EXPECT_EQ(job(id).exit_code(), 0u);     // scontrol's ExitCode=0:1, as the reference's
    EXPECT_EQ(job(id).exit_signal(), 1u);
    EXPECT_EQ(job(id).start_time(), at);
    EXPECT_EQ(job(id).end_time(), at);
    EXPECT_EQ(job(id).nodes(), "");
  }
};

TEST_F(DeadlineTest, AJobThatCannotEndByItsDeadlineNeverStarts) {
  const JobId late = submit(withDeadline(300, 10));      // 10 minutes do not fit in 5
  const JobId fits = submit(withDeadline(3600, 10));
  controllerPass();
  expectDeadlineEnd(late, clock_.now());
  EXPECT_EQ(job(fits).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(fits).time_limit_min(), 10);
  EXPECT_EQ(job(fits).spec().deadline(), clock_.now() + 3600);
  // Accounted as the reference's: DEADLINE, exit 1, the reason it last waited for (none).
  auto batch = manager_->takeAccounting();
  bool seen = false;
  for (const auto& r : batch.jobs) {
    if (r.job_id != late) continue;
    seen = true;
    EXPECT_EQ(r.state, acct::JobState::kDeadline);
    EXPECT_EQ(r.exit.code, 1);
    EXPECT_EQ(r.reason, "");
  }
  EXPECT_TRUE(seen);
}

TEST_F(DeadlineTest, ATimeMinStartsItWithTheLimitCutToTheDeadline) {
  const JobId id = submit(withDeadline(297, 10, 2));
  controllerPass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(id).time_limit_min(), 4);
  EXPECT_EQ(job(id).end_time(), clock_.now() + 240);
}

TEST_F(DeadlineTest, AWaitingJobEndsOnceItsLastStartPasses) {
  for (int i = 0; i < 4; ++i) submit(SpecBuilder().nodes(1).ntasks(4).time(30));
  controllerPass();
  const std::int64_t t0 = clock_.now();
  const JobId id = submit(withDeadline(900, 10));   // could start until t0 + 300
  controllerPass();
  EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(id).spec().deadline(), t0 + 900);
  // The commit's timer is armed for the second after its last start.
  EXPECT_EQ(manager_->enforceTimeBounds(), t0 + 301);
  clock_.advanceSeconds(300);
  controllerPass();
  EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
  clock_.advanceSeconds(1);
  controllerPass();
  expectDeadlineEnd(id, t0 + 301);
  EXPECT_EQ(manager_->enforceTimeBounds(), 0);
}

// An array's waiting tasks (one folded record while pending) each end DEADLINE; the one that
// started meanwhile (%1) runs on, its limit its own.
TEST_F(DeadlineTest, AnArraysWaitingTasksEndTogether) {
  v1::JobSpec spec = withDeadline(900, 10);
  spec.set_array("0-2%1");
  const JobId a = submit(spec);
  controllerPass();
  ASSERT_EQ(task(a, 0).state(), v1::JOB_RUNNING);
  EXPECT_EQ(task(a, 0).time_limit_min(), 10);
  clock_.advanceSeconds(301);
  controllerPass();
  EXPECT_EQ(task(a, 0).state(), v1::JOB_RUNNING);
  for (int t : {1, 2}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(task(a, t).state(), v1::JOB_DEADLINE);
    EXPECT_EQ(task(a, t).reason(), "DeadLine");
  }
}

TEST_F(DeadlineTest, APlanAppliedAfterTheLastStartEndsTheJobInstead) {
  const JobId id = submit(withDeadline(601, 10));   // its last start: now + 1
  clock_.advanceSeconds(2);
  manager_->schedulePass(nodeViews());               // no commit's time bounds ran first
  ASSERT_TRUE(manager_->commit().ok());
  expectDeadlineEnd(id, clock_.now());
}

TEST_F(DeadlineTest, AHeldJobWaitsForItsReleaseThenEnds) {
  v1::JobSpec spec = withDeadline(90, 1);
  spec.set_hold(true);
  const JobId id = submit(spec);
  clock_.advanceSeconds(120);
  controllerPass();
  EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  v1::JobControlRequest r;
  r.set_action("release");
  r.add_job_ids(std::to_string(id));
  manager_->control(alice(), r);
  ASSERT_TRUE(manager_->commit().ok());
  controllerPass();
  expectDeadlineEnd(id, clock_.now());
}

TEST_F(DeadlineTest, ADeadlineAlreadyPastIsRefused) {
  SubmitResult r = manager_->submit(alice(), withDeadline(-1, 10));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Requested time limit is invalid (missing or exceeds some limit)");
  EXPECT_EQ(manager_->size(), 0u);
}

TEST_F(DeadlineTest, UpdateIsAnAdminsOnAPendingJob) {
  v1::JobSpec spec = withDeadline(3600, 10);
  spec.set_hold(true);
  const JobId id = submit(spec);
  const std::string later = std::to_string(clock_.now() + 7200);
  auto denied = updateField(id, "Deadline", later);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error(), "Access/permission denied");
  // A past time is refused before the caller's rights are looked at, as the reference did.
  auto past = updateField(id, "Deadline", std::to_string(clock_.now() - 10));
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error(), "Invalid time specified");
  ASSERT_TRUE(updateField(id, "Deadline", later, root()).ok());
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).spec().deadline(), clock_.now() + 7200);

  const JobId running = submit(withDeadline(3600, 10));
  controllerPass();
  ASSERT_EQ(job(running).state(), v1::JOB_RUNNING);
  ASSERT_TRUE(updateField(running, "Deadline", later, root()).ok());   // taken, unchanged
  EXPECT_EQ(job(running).spec().deadline(), clock_.now() + 3600);
}

}  // namespace
}  // namespace drover::jobs::testing
