// The durable job table: what commit() wrote comes back after a reopen, ids never repeat,
// and a burst of submissions is one transaction.
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

TEST_F(JobsTest, CommittedJobsSurviveReopenWithScriptAndEnvironment) {
  JobId a = submit(SpecBuilder().name("first"));
  JobId b = submit(SpecBuilder().name("second").hold());
  reopen();
  ASSERT_NE(manager_->find(a), nullptr);
  ASSERT_NE(manager_->find(b), nullptr);
  EXPECT_EQ(job(a).name(), "first");
  EXPECT_TRUE(job(b).held_user());
  EXPECT_EQ(job(b).reason(), "JobHeldUser");
  auto payload = store_->payload(a);
  ASSERT_TRUE(payload.ok()) << payload.error();
  EXPECT_EQ(payload->script, "#!/bin/sh\ntrue\n");
  EXPECT_EQ(payload->environment.at("HOME"), "/home/alice");
  // Clients' copies never carry the script or environment.
  EXPECT_TRUE(job(a).spec().script().empty());
  EXPECT_TRUE(job(a).spec().environment().empty());
}

TEST_F(JobsTest, NextIdContinuesAfterRestartAndIsNeverReused) {
  JobId a = submit(SpecBuilder());
  JobId arr = submit(SpecBuilder().array("0-4"));
  EXPECT_EQ(arr, a + 1);
  reopen();
  JobId c = submit(SpecBuilder());
  EXPECT_EQ(c, arr + 1);  // an array takes one id; its tasks take theirs as they start
  // A job cancelled and purged still holds its id.
  manager_->cancel(alice(), [&] {
    v1::CancelJobsRequest r;
    r.add_job_ids(std::to_string(c));
    return r;
  }());
  ASSERT_TRUE(manager_->commit().ok());
  clock_.advanceSeconds(kMinJobAgeS + 1);
  manager_->purgeFinished();
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(manager_->find(c), nullptr);
  reopen();
  EXPECT_EQ(submit(SpecBuilder()), c + 1);
}

TEST_F(JobsTest, UncommittedSubmissionIsNotDurable) {
  JobId a = submit(SpecBuilder());
  SubmitResult r = manager_->submit(alice(), SpecBuilder());
  ASSERT_TRUE(r);
  reopen();  // no commit: as if the controller died before replying
  EXPECT_NE(manager_->find(a), nullptr);
  EXPECT_EQ(manager_->find(r.ok->job_id), nullptr);
}

TEST_F(JobsTest, GroupCommitWritesManySubmissionsInOneTransaction) {
  std::int64_t before = store_->commits();
  std::vector<JobId> ids;
  for (int i = 0; i < 200; ++i) {
    SubmitResult r = manager_->submit(alice(), SpecBuilder().name("burst" + std::to_string(i)));
    ASSERT_TRUE(r);
    ids.push_back(r.ok->job_id);
  }
  EXPECT_GE(store_->stagedCount(), 200u);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(store_->commits(), before + 1);
  EXPECT_EQ(store_->stagedCount(), 0u);
  reopen();
  for (JobId id : ids) EXPECT_NE(manager_->find(id), nullptr) << id;
}

TEST_F(JobsTest, LoadKeepsRecentlyFinishedJobsOnly) {
  JobId old_job = submit(SpecBuilder());
  v1::CancelJobsRequest r;
  r.add_job_ids(std::to_string(old_job));
  manager_->cancel(alice(), r);
  ASSERT_TRUE(manager_->commit().ok());
  clock_.advanceSeconds(200);
  JobId recent = submit(SpecBuilder());
  v1::CancelJobsRequest r2;
  r2.add_job_ids(std::to_string(recent));
  manager_->cancel(alice(), r2);
  JobId live = submit(SpecBuilder());
  clock_.advanceSeconds(150);  // old: 350 s ago, recent: 150 s ago
  reopen();
  EXPECT_EQ(manager_->find(old_job), nullptr);
  ASSERT_NE(manager_->find(recent), nullptr);
  EXPECT_EQ(job(recent).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(live).state(), v1::JOB_PENDING);
}

TEST_F(JobsTest, RunningJobSurvivesRestartWithAllocation) {
  JobId id = submit(SpecBuilder().gres("gpu", 2));
  ASSERT_EQ(pass().size(), 1u);
  reopen();
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  ASSERT_EQ(job(id).allocation_size(), 1);
  EXPECT_EQ(job(id).allocation(0).gpu_indices_size(), 2);
  // The restarted table does not start it twice.
  EXPECT_TRUE(pass().empty());
}

TEST(JobStoreOpen, ReportsUnopenablePath) {
  auto s = JobStore::open("/nonexistent-dir/x/jobs.db");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("/nonexistent-dir/x/jobs.db"), std::string::npos);
}

}  // namespace
}  // namespace drover::jobs::testing
