// The job manager's counts of jobs submitted, started and ended (jobs/lifecycle_counts.h),
// which sdiag reports: every end other than COMPLETED and CANCELLED counts as failed, as Slurm.
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

TEST_F(JobsTest, LifecycleCountsFollowEveryJobThroughItsEnd) {
  JobId ok = submit(SpecBuilder());
  JobId bad = submit(SpecBuilder());
  JobId slow = submit(SpecBuilder());
  JobId later = submit(SpecBuilder().begin(clock_.now() + 600));
  v1::JobSpec test_only = SpecBuilder().spec();
  test_only.set_test_only(true);
  ASSERT_TRUE(manager_->submit(alice(), test_only));  // not a submission that counts
  EXPECT_EQ(manager_->lifecycleCounts().submitted, 4u);
  EXPECT_EQ(manager_->lifecycleCounts().started, 0u);

  clock_.advanceSeconds(1);
  pass();
  ASSERT_EQ(job(ok).state(), v1::JOB_RUNNING);
  EXPECT_EQ(manager_->lifecycleCounts().started, 3u);
  finishBatch(ok, 0);
  finishBatch(bad, 3);
  finishBatch(slow, 0, 15, /*timed_out=*/true);
  v1::CancelJobsRequest cancel;
  cancel.add_job_ids(std::to_string(later));
  manager_->cancel(alice(), cancel);
  ASSERT_EQ(job(later).state(), v1::JOB_CANCELLED);
  ASSERT_EQ(job(slow).state(), v1::JOB_TIMEOUT);

  const LifecycleCounts& c = manager_->lifecycleCounts();
  EXPECT_EQ(c.submitted, 4u);
  EXPECT_EQ(c.started, 3u);
  EXPECT_EQ(c.completed, 1u);
  EXPECT_EQ(c.canceled, 1u);
  EXPECT_EQ(c.failed, 2u);  // FAILED and TIMEOUT
  const auto states = manager_->stateCounts();
  EXPECT_EQ(states.pending, 0u);
  EXPECT_EQ(states.running, 0u);
}

}  // namespace
}  // namespace drover::jobs::testing
