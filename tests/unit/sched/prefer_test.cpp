// --prefer: a start now tries the nodes with the preferred features first, in place of the
// job's constraint (sbatch(1): "tried first if a node set isn't available with those features
// then --constraint is attempted"); reservations plan with the constraint alone.
#include <gtest/gtest.h>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

const std::vector<int> kAllGpus = {0, 1, 2, 3, 4, 5, 6, 7};

// gpu001-004, gpu003 the only "fast" one, gpu001 the only "slow" one.
Snapshot featuredNodes() {
  Snapshot s;
  s.nodes = gpuNodes(4);
  s.nodes[0].features = {"slow"};
  s.nodes[2].features = {"fast"};
  s.partitions = {partition()};
  return s;
}

JobBuilder oneGpu(JobId id) {
  JobBuilder b(id);
  b.gpusPerNode(1).tasks(1).time(600);
  return b;
}

TEST(Prefer, StartsOnNodesWithThePreferredFeatures) {
  Snapshot s = featuredNodes();
  s.pending = {oneGpu(1).prefer("fast")};
  // Best fit would take gpu001 (the first of four equal nodes): the preference wins.
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].allocation.nodes[0].node, "gpu003");
  EXPECT_TRUE(plan.starts[0].preferred);
}

TEST(Prefer, OverridesTheConstraintWherePossibleElseFallsBackToIt) {
  Snapshot s = featuredNodes();
  s.pending = {oneGpu(1).prefer("fast").constraint("slow")};
  for (bool fastBusy : {false, true}) {
    if (fastBusy) s.running = {running(90, "gpu003", 8, kAllGpus, 1000)};
    Plan plan = schedule(s, SchedulerParams{}, 0);
    ASSERT_EQ(plan.starts.size(), 1u);
    EXPECT_EQ(plan.starts[0].allocation.nodes[0].node, fastBusy ? "gpu001" : "gpu003");
    EXPECT_EQ(plan.starts[0].preferred, !fastBusy);
  }
}

TEST(Prefer, AFailedShapeDoesNotStopAPreferredStart) {
  Snapshot s = featuredNodes();
  s.running = {running(90, "gpu001", 8, kAllGpus, 1000)};  // the only slow node, full
  // Job 1 (-C slow) cannot start; job 2 has its shape but prefers fast, which gpu003 has free.
  s.pending = {oneGpu(1).constraint("slow").priority(2),
               oneGpu(2).constraint("slow").prefer("fast").priority(1)};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].id, 2u);
  EXPECT_EQ(plan.starts[0].allocation.nodes[0].node, "gpu003");
  EXPECT_EQ(plan.stats.skippedSameShape, 0);
}

}  // namespace
}  // namespace drover::sched
