// planPreemptions (sched/preemption.h): which lower-tier jobs a blocked job needs gone.
#include <gtest/gtest.h>

#include <algorithm>

#include "builders.h"
#include "sched/preemption.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {

using testing::gpuNodes;
using testing::JobBuilder;

constexpr int64_t kNow = 1000;

// Two partitions over the same nodes: "low" (tier 1, preemptable) and "high" (tier 10).
Snapshot twoTiers(int nodes, bool low_preemptable = true) {
  Snapshot s;
  s.nodes = gpuNodes(nodes);
  for (Node& n : s.nodes) n.partitions = {"low", "high"};
  Partition low = testing::partition("low");
  low.priorityTier = 1;
  low.preemptable = low_preemptable;
  Partition high = testing::partition("high");
  high.priorityTier = 10;
  s.partitions = {low, high};
  return s;
}

RunningJob lowJob(JobId id, const std::string& node, std::vector<int> gpus,
                  const std::string& partition = "low") {
  RunningJob r = testing::running(id, node, 8, std::move(gpus), kNow + 3600);
  r.partition = partition;
  return r;
}

std::vector<JobId> victimsOf(const std::vector<Preemption>& out, JobId preemptor) {
  std::vector<JobId> v;
  for (const Preemption& p : out)
    if (p.preemptor == preemptor) v.push_back(p.victim);
  std::sort(v.begin(), v.end());
  return v;
}

PreemptionQuery blocked(std::vector<JobId> ids) {
  PreemptionQuery q;
  q.blocked = std::move(ids);
  return q;
}

TEST(Preemption, TakesOnlyTheJobsOnTheNodeItNeeds) {
  Snapshot s = twoTiers(2);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3}), lowJob(2, "gpu001", {4, 5, 6, 7}),
               lowJob(3, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(1)};
  auto out = planPreemptions(s, blocked({10}), SchedulerParams{}, kNow);
  // One whole node: job 3's (one job) rather than gpu001's two.
  EXPECT_EQ(victimsOf(out, 10), (std::vector<JobId>{3}));
}

TEST(Preemption, KeepsTheOlderJobWhenEitherWouldDo) {
  Snapshot s = twoTiers(1);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3}), lowJob(2, "gpu001", {4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(4).nodes(1)};
  auto out = planPreemptions(s, blocked({10}), SchedulerParams{}, kNow);
  EXPECT_EQ(victimsOf(out, 10), (std::vector<JobId>{2}));
}

TEST(Preemption, NothingWhenTheJobCannotStartEvenWithThemGone) {
  Snapshot s = twoTiers(1);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(2)};
  EXPECT_TRUE(planPreemptions(s, blocked({10}), SchedulerParams{}, kNow).empty());
}

TEST(Preemption, NotAcrossEqualTiersNorUpward) {
  Snapshot s = twoTiers(1);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}, "high")};
  // A high job does not preempt another high one, a low job not a high one.
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(1),
               JobBuilder(11).partition("low").gpusPerNode(8).nodes(1)};
  EXPECT_TRUE(planPreemptions(s, blocked({10, 11}), SchedulerParams{}, kNow).empty());
}

TEST(Preemption, NotOfAPartitionWhoseModeIsOff) {
  Snapshot s = twoTiers(1, /*low_preemptable=*/false);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(1)};
  EXPECT_TRUE(planPreemptions(s, blocked({10}), SchedulerParams{}, kNow).empty());
}

TEST(Preemption, LaterPreemptorsDoNotCountOnAnEarlierOnesNodes) {
  Snapshot s = twoTiers(2);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}),
               lowJob(2, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(1),
               JobBuilder(11).partition("high").gpusPerNode(8).nodes(1)};
  auto out = planPreemptions(s, blocked({10, 11}), SchedulerParams{}, kNow);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(victimsOf(out, 10).size(), 1u);
  EXPECT_EQ(victimsOf(out, 11).size(), 1u);
  EXPECT_NE(victimsOf(out, 10), victimsOf(out, 11));
}

TEST(Preemption, SparedJobsAreNeitherChosenNorFreeAndAWaitingPreemptorIsSkipped) {
  Snapshot s = twoTiers(2);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}),
               lowJob(2, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(1),
               JobBuilder(11).partition("high").gpusPerNode(8).nodes(1)};
  PreemptionQuery q = blocked({10, 11});
  q.spared = {1};   // being ended for job 10
  q.waiting = {10};
  auto out = planPreemptions(s, q, SchedulerParams{}, kNow);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].victim, 2u);
  EXPECT_EQ(out[0].preemptor, 11u);
}

TEST(Preemption, NotOfAJobStillWithinItsExemptTime) {
  Snapshot s = twoTiers(1);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3}), lowJob(2, "gpu001", {4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(4).nodes(1)};
  PreemptionQuery q = blocked({10});
  q.spared = {2};  // the younger one started too recently: the older one goes instead
  EXPECT_EQ(victimsOf(planPreemptions(s, q, SchedulerParams{}, kNow), 10), (std::vector<JobId>{1}));
  q.spared = {1, 2};
  EXPECT_TRUE(planPreemptions(s, q, SchedulerParams{}, kNow).empty());
}

TEST(Preemption, NoneForAJobThatFitsWithoutPreempting) {
  Snapshot s = twoTiers(2);
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partition("high").gpusPerNode(8).nodes(1)};
  EXPECT_TRUE(planPreemptions(s, blocked({10}), SchedulerParams{}, kNow).empty());
}

TEST(Preemption, AJobOfSeveralPartitionsPreemptsOnlyBelowTheLowestOfThem) {
  Snapshot s = twoTiers(1);
  Partition mid = testing::partition("mid");
  mid.priorityTier = 5;
  mid.preemptable = true;
  s.partitions.push_back(mid);
  for (Node& n : s.nodes) n.partitions.push_back("mid");
  s.running = {lowJob(1, "gpu001", {0, 1, 2, 3}, "mid"), lowJob(2, "gpu001", {4, 5, 6, 7})};
  s.pending = {JobBuilder(10).partitions({"high", "mid"}).gpusPerNode(8).nodes(1)};
  // With job 2 alone gone the node is still half taken by job 1 (tier 5, not below 5).
  EXPECT_TRUE(planPreemptions(s, blocked({10}), SchedulerParams{}, kNow).empty());
  s.pending = {JobBuilder(10).partitions({"high", "mid"}).gpusPerNode(4).nodes(1)};
  EXPECT_EQ(victimsOf(planPreemptions(s, blocked({10}), SchedulerParams{}, kNow), 10),
            (std::vector<JobId>{2}));
}

TEST(Preemption, TheChosenJobsFreeWhatThePreemptorNeeds) {
  // Property: on random clusters, once the chosen jobs are gone the preemptor starts.
  uint32_t seed = 12345;
  auto next = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  for (int round = 0; round < 200; ++round) {
    Snapshot s = twoTiers(4);
    JobId id = 1;
    for (int n = 0; n < 4; ++n) {
      const std::string node = "gpu00" + std::to_string(n + 1);
      int gpu = 0;
      while (gpu < 8) {
        const int take = 1 + static_cast<int>(next(4));
        if (gpu + take > 8) break;
        std::vector<int> gpus;
        for (int g = gpu; g < gpu + take; ++g) gpus.push_back(g);
        gpu += take;
        s.running.push_back(lowJob(id++, node, gpus, next(3) == 0 ? "high" : "low"));
      }
    }
    const int want_nodes = 1 + static_cast<int>(next(2));
    const int want_gpus = 1 + static_cast<int>(next(8));
    s.pending = {JobBuilder(100).partition("high").gpusPerNode(want_gpus).nodes(want_nodes)};
    auto out = planPreemptions(s, blocked({100}), SchedulerParams{}, kNow);
    if (out.empty()) continue;
    Snapshot after = s;
    std::erase_if(after.running, [&](const RunningJob& r) {
      return std::any_of(out.begin(), out.end(), [&](const Preemption& p) { return p.victim == r.id; });
    });
    for (const Preemption& p : out) {
      auto victim = std::find_if(s.running.begin(), s.running.end(),
                                 [&](const RunningJob& r) { return r.id == p.victim; });
      ASSERT_NE(victim, s.running.end());
      EXPECT_EQ(victim->partition, "low") << "round " << round;
    }
    EXPECT_EQ(schedule(after, SchedulerParams{}, kNow).starts.size(), 1u) << "round " << round;
  }
}

// preempt/qos: one partition; the QOS lists decide, whatever the tiers.
Snapshot onePartition(int nodes) {
  Snapshot s;
  s.nodes = gpuNodes(nodes);
  for (Node& n : s.nodes) n.partitions = {"gpu"};
  s.partitions = {testing::partition("gpu")};
  return s;
}

RunningJob qosJob(JobId id, const std::string& node, std::vector<int> gpus, const std::string& qos) {
  RunningJob r = lowJob(id, node, std::move(gpus), "gpu");
  r.qos = qos;
  return r;
}

PreemptionQuery byQos(std::vector<JobId> ids) {
  PreemptionQuery q = blocked(std::move(ids));
  q.qosPreempts.emplace();
  (*q.qosPreempts)["high"] = {"low", "scavenger"};
  (*q.qosPreempts)["normal"] = {"scavenger"};
  return q;
}

TEST(PreemptionByQos, TakesJobsOfTheQosesItsQosLists) {
  Snapshot s = onePartition(2);
  s.running = {qosJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}, "normal"),
               qosJob(2, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7}, "low")};
  s.pending = {JobBuilder(10).partition("gpu").qos("high").gpusPerNode(8).nodes(1)};
  // The partition is not preemptable by tier: under preempt/qos that does not matter.
  EXPECT_EQ(victimsOf(planPreemptions(s, byQos({10}), SchedulerParams{}, kNow), 10),
            (std::vector<JobId>{2}));
}

TEST(PreemptionByQos, NotOfAQosOutsideItsList) {
  Snapshot s = onePartition(1);
  s.running = {qosJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}, "low")};
  // normal preempts scavenger only; a QOS with no list (low) preempts nobody; nor does a job of
  // the same QOS.
  s.pending = {JobBuilder(10).partition("gpu").qos("normal").gpusPerNode(8).nodes(1),
               JobBuilder(11).partition("gpu").qos("low").gpusPerNode(8).nodes(1)};
  EXPECT_TRUE(planPreemptions(s, byQos({10, 11}), SchedulerParams{}, kNow).empty());
}

TEST(PreemptionByQos, SparedJobsStay) {
  // The controller spares jobs whose PreemptMode is OFF (and exempt ones) this way.
  Snapshot s = onePartition(2);
  s.running = {qosJob(1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}, "scavenger"),
               qosJob(2, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7}, "scavenger")};
  s.pending = {JobBuilder(10).partition("gpu").qos("high").gpusPerNode(8).nodes(1)};
  PreemptionQuery q = byQos({10});
  q.spared = {2};
  EXPECT_EQ(victimsOf(planPreemptions(s, q, SchedulerParams{}, kNow), 10), (std::vector<JobId>{1}));
  q.spared = {1, 2};
  EXPECT_TRUE(planPreemptions(s, q, SchedulerParams{}, kNow).empty());
}

}  // namespace
}  // namespace drover::sched
