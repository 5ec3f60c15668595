// sbcast's view of a job (ctld/bcast_targets.h): who may broadcast, into which states, and to
// which nodes.
#include "ctld/bcast_targets.h"

#include <gtest/gtest.h>

namespace drover::ctld {
namespace {

v1::JobInfo twoNodeJob(v1::JobState state) {
  v1::JobInfo job;
  job.set_job_id(12);
  job.set_state(state);
  job.add_allocation()->set_node("node1");
  job.add_allocation()->set_node("node2");
  v1::JobStep* step = job.add_steps();
  step->set_step_id(3);
  step->add_nodes()->set_node("node2");
  return job;
}

TEST(BcastNodes, RunningJobAllNodesOrOneStepsNodes) {
  auto all = bcastNodes(twoNodeJob(v1::JOB_RUNNING), true, std::nullopt);
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ(*all, (std::vector<std::string>{"node1", "node2"}));
  auto step = bcastNodes(twoNodeJob(v1::JOB_RUNNING), true, 3);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(*step, (std::vector<std::string>{"node2"}));
  auto missing = bcastNodes(twoNodeJob(v1::JOB_RUNNING), true, 4);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), kInvalidJobId);
}

TEST(BcastNodes, RefusalsInSlurmsWords) {
  auto denied = bcastNodes(twoNodeJob(v1::JOB_RUNNING), false, std::nullopt);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error(), "Invalid user id");
  for (auto state : {v1::JOB_PENDING, v1::JOB_REQUEUED}) {
    auto r = bcastNodes(twoNodeJob(state), true, std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "Job is pending execution");
  }
  for (auto state : {v1::JOB_COMPLETED, v1::JOB_COMPLETING, v1::JOB_CANCELLED, v1::JOB_FAILED}) {
    auto r = bcastNodes(twoNodeJob(state), true, std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "Job/step already completing or completed");
  }
  // Another user is refused before anything about the job is told.
  auto pending_other = bcastNodes(twoNodeJob(v1::JOB_PENDING), false, std::nullopt);
  EXPECT_EQ(pending_other.error(), "Invalid user id");
}

}  // namespace
}  // namespace drover::ctld
