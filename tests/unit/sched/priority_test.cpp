// Each multifactor priority factor on its own, fair-share decay, and the weighted sum.
#include "sched/priority.h"

#include <gtest/gtest.h>

#include <cmath>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

TEST(PriorityFactors, Age) {
  PriorityContext ctx;
  ctx.maxAgeS = 1000;
  struct Case {
    int64_t submit, begin, now;
    double want;
  };
  std::vector<Case> cases = {
      {0, 0, 0, 0},        {0, 0, 250, 0.25}, {0, 0, 1000, 1},
      {0, 0, 5000, 1},     // saturates at max age
      {0, 400, 500, 0.1},  // counted from the begin time
  };
  for (const auto& c : cases) {
    ctx.now = c.now;
    Job j = JobBuilder(1).submit(c.submit).begin(c.begin);
    EXPECT_DOUBLE_EQ(AgeFactor().value(j, Partition{}, ctx), c.want) << c.now;
  }
}

TEST(PriorityFactors, JobSize) {
  PriorityContext ctx;
  ctx.clusterCpus = 100;
  Job j = JobBuilder(1).tasks(25);
  EXPECT_DOUBLE_EQ(JobSizeFactor().value(j, Partition{}, ctx), 0.25);
  ctx.favorSmall = true;
  EXPECT_DOUBLE_EQ(JobSizeFactor().value(j, Partition{}, ctx), 0.75);
}

TEST(PriorityFactors, PartitionAndQos) {
  PriorityContext ctx;
  ctx.maxPartitionJobFactor = 4;
  Partition p;
  p.priorityJobFactor = 2;
  EXPECT_DOUBLE_EQ(PartitionFactor().value(JobBuilder(1), p, ctx), 0.5);
  ctx.qosPriority = {{"normal", 10}, {"high", 40}};
  Job j = JobBuilder(1);
  j.request.qos = "normal";
  EXPECT_DOUBLE_EQ(QosFactor().value(j, p, ctx), 0.25);
  j.request.qos = "unknown";
  EXPECT_DOUBLE_EQ(QosFactor().value(j, p, ctx), 0);
}

TEST(FairShare, SharesAndDecay) {
  FairShareTree tree(/*halfLifeS=*/100);
  tree.addAccount("physics", "", 3);
  tree.addAccount("bio", "", 1);
  tree.addUser("physics", "alice", 1);
  tree.addUser("physics", "bob", 1);
  tree.addUser("bio", "carol", 1);
  // physics has 3/4 of the tree, split evenly: alice 3/8; carol all of bio: 1/4.
  EXPECT_DOUBLE_EQ(tree.normalizedShares("physics", "alice"), 0.375);
  EXPECT_DOUBLE_EQ(tree.normalizedShares("bio", "carol"), 0.25);
  // No usage anywhere: factor 1.
  EXPECT_DOUBLE_EQ(tree.factor("physics", "alice", 0), 1.0);
  tree.recordUsage("physics", "alice", 1000, 0);
  EXPECT_DOUBLE_EQ(tree.usage("physics", "alice", 100), 500);  // one half-life
  EXPECT_DOUBLE_EQ(tree.usage("physics", "alice", 200), 250);
  // alice has all usage: 2^(-1/0.375); bob none: 1.
  EXPECT_NEAR(tree.factor("physics", "alice", 0), std::exp2(-1 / 0.375), 1e-12);
  EXPECT_DOUBLE_EQ(tree.factor("physics", "bob", 0), 1.0);
  // Equal usage between alice and carol: each has half of it.
  tree.recordUsage("bio", "carol", 1000, 0);
  EXPECT_NEAR(tree.factor("bio", "carol", 0), std::exp2(-0.5 / 0.25), 1e-12);
  EXPECT_GT(tree.factor("physics", "alice", 0), tree.factor("bio", "carol", 0));
}

TEST(Multifactor, WeightedSumMinusNice) {
  MultifactorPriority mf({.age = 1000, .fairShare = 0, .jobSize = 100, .partition = 10, .qos = 0});
  PriorityContext ctx;
  ctx.now = 500;
  ctx.maxAgeS = 1000;
  ctx.clusterCpus = 100;
  Partition p;
  Job j = JobBuilder(1).submit(0).tasks(50);
  j.request.nice = 5;
  // 1000 * 0.5 + 100 * 0.5 + 10 * 1 - 5 = 555
  PriorityBreakdown b = mf.explain(j, p, ctx);
  EXPECT_DOUBLE_EQ(b.total, 555);
  EXPECT_EQ(b.weighted.size(), 5u);
  EXPECT_EQ(b.weighted[0].first, "AGE");
}

TEST(Multifactor, FairShareOrdersUsersInTheQueue) {
  FairShareTree tree(3600);
  tree.addAccount("lab", "", 1);
  tree.addUser("lab", "heavy", 1);
  tree.addUser("lab", "light", 1);
  tree.recordUsage("lab", "heavy", 1e6, 0);
  MultifactorPriority mf({.age = 0, .fairShare = 10000, .jobSize = 0, .partition = 0, .qos = 0});
  Snapshot s;
  s.nodes = gpuNodes(1);
  s.partitions = {partition()};
  s.pending = {JobBuilder(1).user("heavy").account("lab").gpusPerNode(8),
               JobBuilder(2).user("light").account("lab").gpusPerNode(8)};
  PriorityContext ctx;
  ctx.fairShare = &tree;
  mf.apply(s, ctx);
  EXPECT_GT(s.pending[1].priority, s.pending[0].priority);
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].id, 2u);
}

}  // namespace
}  // namespace drover::sched
