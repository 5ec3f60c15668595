// A job submitted to several partitions (`-p gpu,debug`) through the job manager: it shows the
// list while it waits (squeue, scontrol, sprio), runs in the partition the scheduler started it
// in, and waits for all of them again after a requeue, as the reference Slurm's did.
#include <gtest/gtest.h>

#include "jobs_fixture.h"

namespace drover::jobs {
namespace {
using namespace testing;

class MultiPartitionTest : public JobsTest {
 protected:
  void SetUp() override {
    JobsTest::SetUp();
    config_.partitions[1].priority_job_factor = 10;  // debug (node01) first, as the reference's
    reopen();
  }

  std::vector<std::string> listedBySqueue(const std::string& partition) {
    v1::GetJobsRequest q;
    q.add_partitions(partition);
    std::vector<std::string> out;
    for (const auto& row : manager_->query(q)) out.push_back(std::to_string(row.job_id()));
    return out;
  }
};

TEST_F(MultiPartitionTest, WaitsAsTheListAndRunsWhereItStarts) {
  const JobId first = submit(SpecBuilder().partition("gpu,debug").time(10));
  const JobId second = submit(SpecBuilder().partition("gpu,debug").time(10).cpusPerTask(4).hold());
  EXPECT_EQ(job(first).partition(), "gpu,debug");
  // squeue -p matches any partition of the list; scancel -p only the whole text, as the
  // reference's `scancel -p debug` left a `debug,gpu` job alone.
  EXPECT_EQ(listedBySqueue("debug"), (std::vector<std::string>{std::to_string(first),
                                                               std::to_string(second)}));
  EXPECT_EQ(listedBySqueue("gpu").size(), 2u);
  v1::CancelJobsRequest byPartition;
  byPartition.set_partition("debug");
  EXPECT_TRUE(manager_->cancel(alice(), byPartition).empty());

  // sprio: a row per listed partition, in the order listed, debug's higher.
  v1::GetPrioritiesRequest pq;
  pq.add_job_ids(first);
  auto rows = manager_->priorities(pq).jobs();
  ASSERT_EQ(rows.size(), 2);
  EXPECT_EQ(rows[0].partition(), "gpu");
  EXPECT_EQ(rows[1].partition(), "debug");
  EXPECT_GT(rows[1].priority(), rows[0].priority());

  // A user may not lengthen it past any listed partition's MaxTime (debug's 30 minutes; the
  // reference's words for a limit over MaxTime).
  auto longer = updateField(first, "TimeLimit", "45");
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.error(), "Access/permission denied");

  // debug first (its PriorityJobFactor).
  auto launches = pass();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(job(first).partition(), "debug");
  EXPECT_EQ(job(first).nodes(), "node01");
  EXPECT_EQ(launches[0].request.environment().at("SLURM_JOB_PARTITION"), "debug");
  // The second's 4 CPUs no longer fit debug's one node: it runs in gpu.
  EXPECT_TRUE(manager_->control(alice(), act("release", std::to_string(second)))[0].ok());
  launches = pass();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(job(second).partition(), "gpu");
  EXPECT_EQ(job(second).nodes(), "node02");

  // A requeue: it may run in either again.
  EXPECT_TRUE(manager_->control(alice(), act("requeue", std::to_string(first)))[0].ok());
  finishBatch(first, 0, SIGKILL);
  EXPECT_EQ(job(first).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(first).partition(), "gpu,debug");

  // And after a restart of the controller, from the store.
  reopen();
  EXPECT_EQ(job(first).partition(), "gpu,debug");
  EXPECT_EQ(job(second).partition(), "gpu");
  pass();
  EXPECT_EQ(job(first).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(first).partition(), "debug");
}

TEST_F(MultiPartitionTest, TestOnlyTriesThePartitionsAsListed) {
  for (const std::string list : {"gpu,debug", "debug,gpu"}) {
    SubmitResult r = manager_->submit(alice(), SpecBuilder().partition(list).time(10).testOnly());
    ASSERT_TRUE(r) << r.failure.message;
    EXPECT_EQ(r.ok->test_only_partition, list.substr(0, list.find(',')));
  }
  EXPECT_EQ(manager_->size(), 0u);
}

TEST_F(MultiPartitionTest, UpdateTakesAListOfKnownPartitions) {
  const JobId id = submit(SpecBuilder().hold().time(10));
  EXPECT_TRUE(updateField(id, "Partition", "debug,gpu").ok());
  EXPECT_EQ(job(id).partition(), "debug,gpu");
  auto bad = updateField(id, "Partition", "debug,nosuch");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "Invalid partition name specified");
  EXPECT_EQ(job(id).partition(), "debug,gpu");
}

TEST_F(MultiPartitionTest, EveryListedPartitionMustLetTheAccountIn) {
  // gpu, tried after debug, lets only ops in: not alice's research.
  config_.partitions[0].allow_accounts = {"ops"};
  reopen();
  SubmitResult r = manager_->submit(alice(), SpecBuilder().partition("gpu,debug").time(10));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Invalid account or account/partition combination specified");
  EXPECT_EQ(manager_->size(), 0u);
  EXPECT_TRUE(manager_->submit(alice(), SpecBuilder().partition("debug").time(10)));
}

}  // namespace
}  // namespace drover::jobs
