// srun --bcast in the JobManager: a step id reserved by the broadcast's first block is the id
// the step then gets, ids go on past it, and a step into a --bcast directory runs on each node
// the copy named for that node.
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

class BcastStepsTest : public JobsTest {
 protected:
  JobId runningJob() {
    SpecBuilder b;
    b.nodes(2).ntasks(2).ntasksPerNode(1).time(30);
    JobId id = submit(b, alice());
    clock_.advanceSeconds(1);
    pass();
    EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
    return id;
  }
  v1::StepSpec spec(JobId id) {
    v1::StepSpec s;
    s.set_job_id(id);
    s.add_argv("/home/alice/a.out");
    s.add_argv("--epochs=3");
    return s;
  }
  std::map<std::string, std::string> addresses_;
};

TEST_F(BcastStepsTest, ReservedIdIsTheStepsAndEachNodeRunsItsCopy) {
  const JobId id = runningJob();
  const std::int64_t reserved = manager_->reserveStepId(id);
  EXPECT_EQ(reserved, 0);
  ASSERT_TRUE(manager_->commit().ok());
  // Another srun in the meantime takes the next id, not the reserved one.
  auto other = manager_->createStep(alice(), spec(id), addresses_);
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_EQ(other->reply.step_id(), 1);

  auto s = spec(id);
  s.set_reserved_step_id(reserved);
  s.set_bcast_dir("/tmp/");
  auto created = manager_->createStep(alice(), s, addresses_);
  ASSERT_TRUE(created.ok()) << created.error();
  EXPECT_EQ(created->reply.step_id(), 0);
  ASSERT_EQ(created->launches.size(), 2u);
  for (const auto& launch : created->launches) {
    ASSERT_EQ(launch.request.argv_size(), 2);
    EXPECT_EQ(launch.request.argv(0),
              "/tmp/slurm_bcast_" + std::to_string(id) + ".0_" + launch.node);
    EXPECT_EQ(launch.request.argv(1), "--epochs=3");
  }
  // The reservation is used up: the next step takes the next free id.
  auto again = manager_->createStep(alice(), s, addresses_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->reply.step_id(), 2);
  EXPECT_EQ(job(id).next_step_id(), 3u);
}

// The reservation is part of the job's stored state: a controller restarted between srun's
// broadcast and its step creation still gives srun's step the id its copies are named with,
// and gives that id to no other step.
TEST_F(BcastStepsTest, ReservedIdSurvivesARestart) {
  const JobId id = runningJob();
  const std::int64_t reserved = manager_->reserveStepId(id);
  ASSERT_EQ(reserved, 0);
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  EXPECT_EQ(job(id).reserved_step_ids_size(), 1);
  auto other = manager_->createStep(alice(), spec(id), addresses_);
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_EQ(other->reply.step_id(), 1);
  auto s = spec(id);
  s.set_reserved_step_id(reserved);
  auto created = manager_->createStep(alice(), s, addresses_);
  ASSERT_TRUE(created.ok()) << created.error();
  EXPECT_EQ(created->reply.step_id(), reserved);
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  EXPECT_EQ(job(id).reserved_step_ids_size(), 0);   // used up, and stored so
}

// --send-libs: each node's tasks look in the directory beside that node's copy first.
TEST_F(BcastStepsTest, SendLibsPutsEachNodesLibraryDirectoryFirst) {
  const JobId id = runningJob();
  auto s = spec(id);
  s.set_reserved_step_id(manager_->reserveStepId(id));
  s.set_bcast_dir("/tmp/");
  s.set_bcast_send_libs(true);
  (*s.mutable_environment())["LD_LIBRARY_PATH"] = "/opt/mine";
  auto created = manager_->createStep(alice(), s, addresses_);
  ASSERT_TRUE(created.ok()) << created.error();
  ASSERT_EQ(created->launches.size(), 2u);
  for (const auto& launch : created->launches) {
    EXPECT_EQ(launch.request.environment().at("LD_LIBRARY_PATH"),
              "/tmp/slurm_bcast_" + std::to_string(id) + ".0_" + launch.node + "_libs:/opt/mine");
  }
  auto plain = spec(id);
  plain.set_argv(0, "/tmp/prog");
  plain.set_bcast_send_libs(true);
  auto file = manager_->createStep(alice(), plain, addresses_);
  ASSERT_TRUE(file.ok()) << file.error();
  EXPECT_EQ(file->launches.at(0).request.environment().at("LD_LIBRARY_PATH"), "/tmp/prog_libs");
}

TEST_F(BcastStepsTest, UnknownJobReservesNothing) { EXPECT_EQ(manager_->reserveStepId(999), -1); }

}  // namespace
}  // namespace drover::jobs::testing
