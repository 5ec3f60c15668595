// FCFS, EASY and conservative backfill on small hand-computed cases.
#include <gtest/gtest.h>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

// Two 8-GPU nodes. gpu001 is busy until t=1000 (all 8 GPUs), gpu002 until t=500.
// Queue (priority order): A needs 2 whole nodes for 1000 s; B needs 1 GPU for 400 s;
// C needs 1 GPU for 800 s.
Snapshot twoNodeScenario() {
  Snapshot s;
  s.nodes = gpuNodes(2);
  s.partitions = {partition()};
  s.running = {running(90, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
               running(91, "gpu002", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 500)};
  s.pending = {JobBuilder(1).nodes(2).gpusPerNode(8).time(1000).priority(30),
               JobBuilder(2).gpusPerNode(1).time(400).priority(20),
               JobBuilder(3).gpusPerNode(1).time(800).priority(10)};
  return s;
}

TEST(Backfill, PolicyCases) {
  struct Case {
    Policy policy;
    std::vector<JobId> starts;
    std::map<JobId, Reason> reasons;
    std::map<JobId, int64_t> expected;  // expected start times that must be reported
  };
  // At now=0 nothing fits (both nodes full). A reserves both nodes at t=1000.
  // EASY: B (1 GPU, 400 s) would fit on gpu002 at 500..900 < 1000 but that is not *now*;
  // nothing starts now, B and C have no reservation (depth 1).
  // Conservative: B reserved at 500 on gpu002 (ends 900 < 1000). C (800 s) would end 1300 on
  // gpu002 and collide with A at 1000; it is reserved after A: 2000.
  std::vector<Case> cases = {
      {Policy::Fcfs, {}, {{1, Reason::Resources}, {2, Reason::Priority}, {3, Reason::Priority}},
       {{1, 1000}}},
      {Policy::Easy, {}, {{1, Reason::Resources}, {2, Reason::Priority}, {3, Reason::Priority}},
       {{1, 1000}}},
      {Policy::Conservative, {},
       {{1, Reason::Resources}, {2, Reason::Priority}, {3, Reason::Priority}},
       {{1, 1000}, {2, 500}, {3, 2000}}},
  };
  for (const auto& c : cases) {
    SchedulerParams params;
    params.policy = c.policy;
    Plan plan = schedule(twoNodeScenario(), params, 0);
    EXPECT_EQ(plan.starts.size(), c.starts.size());
    for (auto [id, reason] : c.reasons) {
      ASSERT_NE(pendingOf(plan, id), nullptr);
      EXPECT_EQ(pendingOf(plan, id)->reason, reason) << "job " << id;
    }
    for (auto [id, t] : c.expected) {
      ASSERT_TRUE(pendingOf(plan, id)->expectedStart.has_value()) << "job " << id;
      EXPECT_EQ(*pendingOf(plan, id)->expectedStart, t) << "job " << id;
    }
  }
}

// One 8-GPU node with 4 GPUs busy until t=1000. Top job wants 8 GPUs: reserved at 1000.
// A short 2-GPU job (500 s) backfills now under EASY and conservative, but not under FCFS;
// a long 2-GPU job (2000 s) would delay the reservation and must not start.
TEST(Backfill, ShortJobFillsTheHoleLongJobWaits) {
  for (Policy policy : {Policy::Fcfs, Policy::Easy, Policy::Conservative}) {
    Snapshot s;
    s.nodes = gpuNodes(1);
    s.partitions = {partition()};
    s.running = {running(90, "gpu001", 4, {0, 1, 2, 3}, 1000)};
    s.pending = {JobBuilder(1).gpusPerNode(8).time(1000).priority(3),
                 JobBuilder(2).gpusPerNode(2).time(2000).priority(2),
                 JobBuilder(3).gpusPerNode(2).time(500).priority(1)};
    SchedulerParams params;
    params.policy = policy;
    Plan plan = schedule(s, params, 0);
    EXPECT_EQ(*pendingOf(plan, 1)->expectedStart, 1000);
    EXPECT_EQ(startOf(plan, 2), nullptr);
    if (policy == Policy::Fcfs) {
      EXPECT_EQ(startOf(plan, 3), nullptr);
      EXPECT_EQ(plan.stats.backfilled, 0);
    } else {
      ASSERT_NE(startOf(plan, 3), nullptr) << static_cast<int>(policy);
      EXPECT_EQ(startOf(plan, 3)->allocation.nodes[0].gpus, (std::vector<int>{4, 5}));
      EXPECT_EQ(plan.stats.backfilled, 1);  // job 3 started past blocked job 1
      EXPECT_TRUE(startOf(plan, 3)->backfill);  // sacct's SchedBackfill
    }
  }
}

TEST(Backfill, IdleClusterStartsEverythingThatFits) {
  Snapshot s;
  s.nodes = gpuNodes(2);
  s.partitions = {partition()};
  for (JobId id = 1; id <= 3; ++id) s.pending.push_back(JobBuilder(id).gpusPerNode(8));
  Plan plan = schedule(s, SchedulerParams{}, 0);
  EXPECT_EQ(plan.starts.size(), 2u);
  EXPECT_EQ(plan.stats.backfilled, 0);  // in order: nothing ahead of them was blocked
  for (const Start& start : plan.starts) EXPECT_FALSE(start.backfill) << start.id;
  EXPECT_EQ(pendingOf(plan, 3)->reason, Reason::Resources);
  EXPECT_EQ(*pendingOf(plan, 3)->expectedStart, 3600);
}

TEST(Backfill, SameShapeFailuresAreSkipped) {
  Snapshot s;
  s.nodes = gpuNodes(1);
  s.partitions = {partition()};
  s.running = {running(90, "gpu001", 64, {0, 1, 2, 3, 4, 5, 6, 7}, 1000)};
  for (JobId id = 1; id <= 100; ++id) s.pending.push_back(JobBuilder(id).gpusPerNode(1));
  Plan plan = schedule(s, SchedulerParams{}, 0);
  EXPECT_EQ(plan.starts.size(), 0u);
  EXPECT_EQ(plan.stats.skippedSameShape, 99);
}

TEST(Backfill, PartitionTierOrdersBeforePriority) {
  Snapshot s;
  s.nodes = gpuNodes(1);
  for (auto& n : s.nodes) n.partitions = {"low", "high"};
  Partition low = partition("low"), high = partition("high");
  high.priorityTier = 10;
  s.partitions = {low, high};
  s.pending = {JobBuilder(1).partition("low").gpusPerNode(8).priority(1000),
               JobBuilder(2).partition("high").gpusPerNode(8).priority(1)};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].id, 2u);
}

}  // namespace
}  // namespace drover::sched

namespace drover::sched {
namespace {
using namespace testing;

// Under EASY only the top job holds a reservation; the others get non-binding estimates in
// priority order (each after the ones ahead of it), and a job that can start still starts.
TEST(Backfill, EstimatesForJobsWithoutReservation) {
  struct Case {
    std::string name;
    int estimateDepth;
    std::vector<std::pair<JobId, std::optional<int64_t>>> wantEstimate;
  };
  std::vector<Case> cases = {
      {"all", 1000, {{1, std::nullopt}, {2, 1500}, {3, 2000}}},
      {"first only", 1, {{1, std::nullopt}, {2, 1500}, {3, std::nullopt}}},
      {"none", 0, {{1, std::nullopt}, {2, std::nullopt}, {3, std::nullopt}}},
  };
  for (const Case& c : cases) {
    Snapshot s;
    s.nodes = gpuNodes(1);
    s.partitions = {partition()};
    s.running.push_back(running(100, "gpu001", 64, {0, 1, 2, 3, 4, 5, 6, 7}, 1000));
    s.pending.push_back(JobBuilder(1).gpusPerNode(8).time(500).priority(30));
    s.pending.push_back(JobBuilder(2).gpusPerNode(8).time(500).priority(20));
    s.pending.push_back(JobBuilder(3).gpusPerNode(1).time(100).priority(10));
    SchedulerParams params;
    params.estimateDepth = c.estimateDepth;
    Plan plan = schedule(s, params, 0);
    EXPECT_EQ(pendingOf(plan, 1)->expectedStart, 1000) << c.name;
    for (auto [id, want] : c.wantEstimate) {
      EXPECT_EQ(pendingOf(plan, id)->estimatedStart, want) << c.name << " job " << id;
      if (id != 1) {
        EXPECT_FALSE(pendingOf(plan, id)->expectedStart) << c.name;
      }
    }
  }
}

}  // namespace
}  // namespace drover::sched
