// Partition states and settings a running controller changes (scontrol update PartitionName=),
// through the job manager: what a submission gets and what a waiting job does, as the
// reference Slurm 22.05 answered (checked side by side, 2026-12-03).
#include <gtest/gtest.h>

#include "jobs_fixture.h"

namespace drover::jobs {
namespace {
using namespace testing;

class PartitionStateTest : public JobsTest {
 protected:
  config::PartitionConfig& partition(const std::string& name) {
    for (auto& p : config_.partitions)
      if (p.name == name) return p;
    throw std::logic_error("no partition " + name);
  }
  // What scontrol update does: the controller's configuration changes in place.
  void setState(const std::string& name, config::PartitionState state) {
    partition(name).state = state;
    manager_->configChanged();
  }
  SubmitResult trySubmit(const v1::JobSpec& spec) { return manager_->submit(alice(), spec); }
};

TEST_F(PartitionStateTest, DrainedAndInactivePartitionsTakeNoNewJobs) {
  for (auto state : {config::PartitionState::kDrain, config::PartitionState::kInactive}) {
    setState("debug", state);
    SubmitResult r = trySubmit(SpecBuilder().partition("debug").spec());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.failure.message, "Required partition not available (inactive or drain)");
    // From a list they are dropped: the job waits for, and shows, the others alone.
    const JobId listed = submit(SpecBuilder().partition("debug,gpu").hold().spec());
    EXPECT_EQ(job(listed).partition(), "gpu");
  }
  // The default partition drained: a job naming none is refused the same way.
  setState("debug", config::PartitionState::kUp);
  setState("gpu", config::PartitionState::kDrain);
  SubmitResult r = trySubmit(SpecBuilder().spec());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Required partition not available (inactive or drain)");
}

TEST_F(PartitionStateTest, AWaitingJobIsNotMovedIntoADrainedPartition) {
  const JobId id = submit(SpecBuilder().partition("gpu").hold().spec());
  setState("debug", config::PartitionState::kDrain);
  auto r = updateField(id, "Partition", "debug");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "Required partition not available (inactive or drain)");
  ASSERT_TRUE(updateField(id, "Partition", "debug,gpu").ok());
  EXPECT_EQ(job(id).partition(), "gpu");
  // DOWN takes it: the job waits there (the reference moved it and showed JobHeldUser).
  setState("debug", config::PartitionState::kDown);
  ASSERT_TRUE(updateField(id, "Partition", "debug").ok());
  EXPECT_EQ(job(id).partition(), "debug");
}

TEST_F(PartitionStateTest, QueuedJobsWaitWhileDownOrInactiveAndRunWhenUpOrDrained) {
  const JobId id = submit(SpecBuilder().partition("debug").spec());
  setState("debug", config::PartitionState::kDown);
  EXPECT_TRUE(pass().empty());
  EXPECT_EQ(job(id).reason(), "PartitionDown");
  setState("debug", config::PartitionState::kInactive);
  EXPECT_TRUE(pass().empty());
  EXPECT_EQ(job(id).reason(), "PartitionInactive");
  // DRAIN takes no new jobs but runs the queued ones.
  setState("debug", config::PartitionState::kDrain);
  ASSERT_EQ(pass().size(), 1u);
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
}

TEST_F(PartitionStateTest, AnAllocationIntoADownPartitionIsToldSo) {
  setState("debug", config::PartitionState::kDown);
  v1::JobSpec interactive = SpecBuilder().partition("debug").spec();
  interactive.set_batch(false);
  SubmitResult r = trySubmit(interactive);
  ASSERT_TRUE(r);
  EXPECT_EQ(r.ok->warnings, std::vector<std::string>{"Partition in DOWN state"});
  ASSERT_TRUE(manager_->commit().ok());
  // sbatch is not (the reference printed only its job id), nor a list that can run elsewhere.
  SubmitResult batch = trySubmit(SpecBuilder().partition("debug").spec());
  ASSERT_TRUE(batch);
  EXPECT_TRUE(batch.ok->warnings.empty());
  interactive.set_partition("debug,gpu");
  SubmitResult listed = trySubmit(interactive);
  ASSERT_TRUE(listed);
  EXPECT_TRUE(listed.ok->warnings.empty());
}

TEST_F(PartitionStateTest, NoDefaultPartitionOnceItsDefaultIsTakenAway) {
  partition("gpu").is_default = false;
  manager_->configChanged();
  SubmitResult r = trySubmit(SpecBuilder().spec());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "No partition specified or system default partition");
  EXPECT_TRUE(trySubmit(SpecBuilder().partition("gpu").spec()));
}

TEST_F(PartitionStateTest, ADefaultTimeOverItsOwnMaxTimeIsAnInvalidLimit) {
  partition("debug").default_time_min = 10;
  partition("debug").max_time_min = 5;
  manager_->configChanged();
  SubmitResult r = trySubmit(SpecBuilder().partition("debug").spec());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Requested time limit is invalid (missing or exceeds some limit)");
}

}  // namespace
}  // namespace drover::jobs
