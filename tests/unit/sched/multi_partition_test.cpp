// Jobs submitted to several partitions (`-p debug,gpu`): each pass starts one in the first of
// its partitions, in their order, that can start it now, and otherwise it waits in the first
// that allows it; the maintained Scheduler gives the plans of a full pass while such jobs wait.
#include <gtest/gtest.h>

#include <random>

#include "builders.h"
#include "sched/incremental.h"
#include "sched/partition_order.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

// gpu001-004 in "gpu"; gpu001-002 also in "debug" (as the reference's slurm.conf).
Snapshot twoPartitions() {
  Snapshot s;
  s.nodes = gpuNodes(4);
  s.nodes[0].partitions = {"gpu", "debug"};
  s.nodes[1].partitions = {"gpu", "debug"};
  Partition debug = partition("debug");
  debug.maxTimeS = 1800;
  s.partitions = {partition("gpu"), debug};
  return s;
}

JobBuilder listed(JobId id, std::vector<std::string> partitions, int64_t time = 600) {
  JobBuilder b(id);
  b.partitions(std::move(partitions)).gpusPerNode(8).tasks(1).time(time);
  return b;
}

std::vector<std::string> nodesOf(const Start& start) {
  std::vector<std::string> out;
  for (const auto& a : start.allocation.nodes) out.push_back(a.node);
  return out;
}

const std::vector<int> kAllGpus = {0, 1, 2, 3, 4, 5, 6, 7};

TEST(MultiPartition, StartsInTheFirstPartitionThatHasRoom) {
  Snapshot s = twoPartitions();
  s.pending = {listed(1, {"debug", "gpu"})};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].partition, "debug");
  EXPECT_EQ(nodesOf(plan.starts[0]), std::vector<std::string>{"gpu001"});

  // debug's two nodes busy: it runs in gpu, on a node only gpu has.
  s.running = {running(90, "gpu001", 8, kAllGpus, 1000), running(91, "gpu002", 8, kAllGpus, 1000)};
  plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].partition, "gpu");
  EXPECT_EQ(nodesOf(plan.starts[0]), std::vector<std::string>{"gpu003"});
  EXPECT_FALSE(plan.starts[0].backfill);
}

TEST(MultiPartition, APartitionThatRefusesTheJobIsSkipped) {
  Snapshot s = twoPartitions();
  // Over debug's MaxTime (1800 s): debug refuses it, gpu runs it.
  s.pending = {listed(1, {"debug", "gpu"}, 3600)};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].partition, "gpu");

  // Down in gpu as well: the first one's reason.
  s.partitions[0].state = PartitionState::Down;
  plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_TRUE(plan.starts.empty());
  ASSERT_NE(pendingOf(plan, 1), nullptr);
  EXPECT_EQ(pendingOf(plan, 1)->reason, Reason::PartitionTimeLimit);
}

TEST(MultiPartition, WaitsInThePartitionOfferingTheEarliestStart) {
  Snapshot s = twoPartitions();
  s.running = {running(90, "gpu001", 8, kAllGpus, 1000), running(91, "gpu002", 8, kAllGpus, 500),
               running(92, "gpu003", 8, kAllGpus, 300), running(93, "gpu004", 8, kAllGpus, 200)};
  s.pending = {listed(1, {"debug", "gpu"})};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  EXPECT_TRUE(plan.starts.empty());
  const PendingInfo* p = pendingOf(plan, 1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->reason, Reason::Resources);
  // sbatch(1): "the one offering earliest initiation": gpu's gpu004 at 200, not debug's
  // gpu002 at 500.
  ASSERT_TRUE(p->expectedStart.has_value());
  EXPECT_EQ(*p->expectedStart, 200);
  EXPECT_EQ(p->plannedNodes, std::vector<std::string>{"gpu004"});

  // debug's node frees first: it waits there.
  s.running[1].expectedEnd = 100;
  plan = schedule(s, SchedulerParams{}, 0);
  EXPECT_EQ(pendingOf(plan, 1)->expectedStart, 100);
  EXPECT_EQ(pendingOf(plan, 1)->plannedNodes, std::vector<std::string>{"gpu002"});
}

TEST(MultiPartition, HeldJobsWaitForTheirHoldWhateverTheirPartitions) {
  Snapshot s = twoPartitions();
  s.pending = {JobBuilder(1).partitions({"debug", "gpu"}).hold(Hold::User)};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  EXPECT_TRUE(plan.starts.empty());
  EXPECT_EQ(pendingOf(plan, 1)->reason, Reason::JobHeldUser);
}

TEST(MultiPartition, AStartAheadOfABlockedJobOfThatPartitionIsBackfill) {
  Snapshot s = twoPartitions();
  s.running = {running(90, "gpu001", 8, kAllGpus, 1000), running(91, "gpu002", 8, kAllGpus, 1000)};
  // Job 1 (gpu, higher priority) needs all four nodes and waits; job 2 (debug first) finds
  // debug full and starts in gpu before job 1's reservation at 1000.
  s.pending = {JobBuilder(1).nodes(4).gpusPerNode(8).time(3600).priority(100),
               listed(2, {"debug", "gpu"}).priority(10)};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].id, 2u);
  EXPECT_EQ(plan.starts[0].partition, "gpu");
  EXPECT_TRUE(plan.starts[0].backfill);
  EXPECT_EQ(plan.stats.backfilled, 1);

  // Under FCFS gpu is closed behind job 1, and debug is full: it waits, in gpu, whose free
  // nodes offer the earlier start, behind job 1.
  SchedulerParams fcfs;
  fcfs.policy = Policy::Fcfs;
  plan = schedule(s, fcfs, 0);
  EXPECT_TRUE(plan.starts.empty());
  EXPECT_EQ(pendingOf(plan, 2)->reason, Reason::Priority);
}

TEST(MultiPartition, OrderIsTierThenJobFactorThenAsListed) {
  std::vector<Partition> parts = {partition("a"), partition("b"), partition("c"), partition("d")};
  parts[1].priorityJobFactor = 10;
  parts[2].priorityTier = 2;
  JobRequest r;
  r.partitions = {"a", "nosuch", "b", "d", "c"};
  orderPartitions(r, parts);
  EXPECT_EQ(r.partitions, (std::vector<std::string>{"c", "b", "a", "d", "nosuch"}));
  EXPECT_EQ(r.partition, "c");

  JobRequest one;
  one.partition = "a";
  orderPartitions(one, parts);
  EXPECT_EQ(one.partition, "a");
  EXPECT_TRUE(one.partitions.empty());
}

// The maintained Scheduler takes no shortcut while a job of several partitions or with
// preferred features could start, and its plans are a full pass's, on random sequences of
// submissions, ends and time.
TEST(MultiPartition, MaintainedSchedulerEqualsFullPass) {
  int multiStarts = 0, preferredStarts = 0;
  for (Policy policy : {Policy::Easy, Policy::Fcfs, Policy::Conservative}) {
    for (int seed = 0; seed < 30; ++seed) {
      std::mt19937 rng(seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      SchedulerParams params;
      params.policy = policy;
      Snapshot base = twoPartitions();
      base.nodes[2].features = {"fast"};
      Scheduler sched(base.nodes, base.partitions, params);
      int64_t now = 0;
      JobId next = 1;
      for (int step = 0; step < 60; ++step) {
        const int event = pick(0, 5);
        if (event <= 2) {
          JobBuilder b(next++);
          b.gpusPerNode(1 << pick(0, 3)).tasks(1).time(100 * pick(1, 30)).priority(pick(0, 20));
          b.submit(now);
          const int where = pick(0, 3);
          if (where == 0) b.partitions({"debug", "gpu"});
          if (where == 1) b.partition("debug");
          if (pick(0, 4) == 0) b.prefer("fast");  // gpu003 only (prefer_test.cpp)
          if (pick(0, 10) == 0) b.hold(Hold::User);
          sched.onJobSubmitted(b);
        } else if (event == 3 && !sched.snapshot().running.empty()) {
          const auto& run = sched.snapshot().running;
          sched.onJobEnded(run[pick(0, static_cast<int>(run.size()) - 1)].id);
        } else {
          now += pick(0, 200);
        }
        Snapshot copy = sched.snapshot();
        const Plan& got = sched.pass(now);
        const Plan want = schedule(copy, params, now);
        ASSERT_EQ(got.starts.size(), want.starts.size()) << "seed " << seed << " step " << step;
        std::vector<RunningJob> started;
        for (size_t i = 0; i < got.starts.size(); ++i) {
          const Start& st = got.starts[i];
          EXPECT_EQ(st.id, want.starts[i].id);
          EXPECT_EQ(st.partition, want.starts[i].partition);
          EXPECT_EQ(st.preferred, want.starts[i].preferred);
          preferredStarts += st.preferred;
          EXPECT_EQ(nodesOf(st), nodesOf(want.starts[i]));
          multiStarts += !st.partition.empty();
          started.push_back(RunningJob{st.id, st.partition.empty() ? "gpu" : st.partition,
                                       st.allocation, st.endTime});
        }
        ASSERT_EQ(got.pending.size(), want.pending.size()) << "seed " << seed << " step " << step;
        for (size_t i = 0; i < got.pending.size(); ++i) {
          EXPECT_EQ(got.pending[i].id, want.pending[i].id);
          EXPECT_EQ(got.pending[i].reason, want.pending[i].reason);
          EXPECT_EQ(got.pending[i].expectedStart, want.pending[i].expectedStart);
        }
        if (!started.empty()) sched.onJobsStarted(std::move(started));
      }
    }
  }
  EXPECT_GT(multiStarts, 50);  // the sequences do start such jobs, in either partition
  EXPECT_GT(preferredStarts, 20);
}

}  // namespace
}  // namespace drover::sched
