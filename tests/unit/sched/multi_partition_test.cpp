// Jobs submitted to several partitions (`-p debug,gpu`): each pass starts one in the first of
// its partitions, in their order, that can start it now, and otherwise it waits in the one
// offering the earliest start; the maintained Scheduler gives the plans of a full pass while
// such jobs (and jobs with preferred features) wait, and keeps its shortcuts meanwhile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "builders.h"
#include "plan_equality.h"
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

// A start ranked behind a waiting job of several partitions can change which of them offers
// it the earliest start: applied as planned, such a start leaves the next pass to decide again.
// gpu001 (both partitions) frees at 300, gpu002 at 1000, gpu003 at 200; gpu004 has 4 GPUs free
// and 4 more at 200. H (gpu) reserves gpu003 at 200; L (debug,gpu) can start at 300 in debug and
// at 200 in gpu on gpu004, so it waits in gpu behind H; S (gpu, 4 GPUs) backfills on gpu004,
// after which L's earliest start is 300 in both and it waits in debug, the first listed, first
// blocked there (Resources) with a reservation on gpu001.
TEST(MultiPartition, AStartBehindItCanMoveWhereAJobOfSeveralPartitionsWaits) {
  Snapshot s = twoPartitions();
  SchedulerParams params;
  Scheduler sched(s.nodes, s.partitions, params);
  sched.onJobsStarted({running(90, "gpu001", 8, kAllGpus, 300),
                       running(91, "gpu002", 8, kAllGpus, 1000),
                       running(92, "gpu003", 8, kAllGpus, 200),
                       running(93, "gpu004", 4, {4, 5, 6, 7}, 200)});
  sched.onJobSubmitted(JobBuilder(1).gpusPerNode(8).tasks(1).time(1000).priority(30));
  sched.onJobSubmitted(listed(2, {"debug", "gpu"}).priority(20));
  sched.onJobSubmitted(JobBuilder(3).gpusPerNode(4).tasks(1).time(1000).priority(10));
  Snapshot copy = sched.snapshot();
  const Plan first = sched.pass(0);
  expectSamePlan(first, schedule(copy, params, 0));
  ASSERT_EQ(first.starts.size(), 1u);
  EXPECT_EQ(first.starts[0].id, 3);
  EXPECT_EQ(pendingOf(first, 2)->reason, Reason::Priority);  // in gpu, behind job 1
  sched.onJobsStarted({RunningJob{3, "gpu", first.starts[0].allocation, first.starts[0].endTime}});
  copy = sched.snapshot();
  const Plan& second = sched.pass(0);
  expectSamePlan(second, schedule(copy, params, 0));
  EXPECT_EQ(pendingOf(second, 2)->reason, Reason::Resources);  // first blocked of debug
  EXPECT_EQ(pendingOf(second, 2)->expectedStart, 300);
}

// Under FCFS, after a completion whose replay starts debug's first blocked job F, the job that
// blocks debug next is not one that lists debug first but waits in gpu: a submission to debug
// behind it is still free to start or to block debug itself. gpu001 frees at once (job 90 ends),
// gpu002 at 1000, gpu003-004 at 500; L (debug,gpu) waits in gpu, reserving gpu003 at 500.
TEST(MultiPartition, AStartedFirstBlockedJobIsFollowedInItsPartitionOnly) {
  Snapshot s = twoPartitions();
  SchedulerParams params;
  params.policy = Policy::Fcfs;
  Scheduler sched(s.nodes, s.partitions, params);
  sched.onJobsStarted({running(90, "gpu001", 8, kAllGpus, 100),
                       running(91, "gpu002", 8, kAllGpus, 1000),
                       running(92, "gpu003", 8, kAllGpus, 500),
                       running(93, "gpu004", 8, kAllGpus, 500)});
  sched.onJobSubmitted(
      JobBuilder(1).partition("debug").gpusPerNode(8).tasks(1).time(600).priority(30));
  sched.onJobSubmitted(listed(2, {"debug", "gpu"}).priority(20));
  auto check = [&](int64_t now) {
    Snapshot copy = sched.snapshot();
    const Plan& got = sched.pass(now);
    expectSamePlan(got, schedule(copy, params, now));
    return got;
  };
  Plan plan = check(0);
  ASSERT_TRUE(plan.starts.empty());
  EXPECT_EQ(pendingOf(plan, 2)->expectedStart, 500);
  sched.onJobEnded(90);
  plan = check(0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].id, 1);
  EXPECT_EQ(sched.counters().completionReplays, 1);
  sched.onJobsStarted({RunningJob{1, "debug", plan.starts[0].allocation, plan.starts[0].endTime}});
  EXPECT_EQ(sched.counters().startsKept, 1);
  sched.onJobSubmitted(JobBuilder(3).partition("debug").gpusPerNode(1).tasks(1).time(60));
  plan = check(0);
  EXPECT_EQ(pendingOf(plan, 3)->reason, Reason::Resources);  // debug's first blocked job now
}

// Where a job of several partitions waits is found by the reservation search, through the
// shape's index once the shape was searched before: the same plans as asking every node.
TEST(MultiPartition, IndexedSearchForWhereToWaitEqualsAskingEveryNode) {
  for (Policy policy : {Policy::Easy, Policy::Conservative}) {
    for (int seed = 0; seed < 100; ++seed) {
      std::mt19937 rng(seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      Snapshot s = twoPartitions();
      JobId next = 1000;
      for (const Node& n : s.nodes) {
        const int busy = pick(1, 8);
        std::vector<int> gpus(busy);
        for (int i = 0; i < busy; ++i) gpus[i] = i;
        s.running.push_back(running(next++, n.name, busy, gpus, 37 * pick(1, 60)));
      }
      for (JobId id = 1; id <= pick(5, 30); ++id) {
        JobBuilder b = listed(id, pick(0, 1) ? std::vector<std::string>{"debug", "gpu"}
                                             : std::vector<std::string>{"gpu", "debug"},
                              100 * pick(1, 15));
        b.gpusPerNode(1 << pick(0, 3)).priority(pick(0, 5));
        if (pick(0, 3) == 0) b.partition("gpu").partitions({"gpu"});
        s.pending.push_back(b);
      }
      SchedulerParams params;
      params.policy = policy;
      SCOPED_TRACE("seed " + std::to_string(seed));
      expectIndexedSearchEqualsAskingEveryNode(s, params);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

bool triesAlternatives(const Job& j) {
  return (j.request.partitions.size() > 1 || !j.request.prefer.empty()) &&
         j.request.hold == Hold::None;
}

// The maintained Scheduler's plans are a full pass's on random sequences of submissions (some
// of several partitions, some with preferred features), starts applied as planned, one by one or
// otherwise, ends, cancels and time; and it keeps taking its shortcuts (judged submissions,
// replayed completions, kept starts) while such jobs wait.
TEST(MultiPartition, MaintainedSchedulerEqualsFullPass) {
  int multiStarts = 0, preferredStarts = 0;
  int shortcutsWhileWaiting = 0, replaysWhileWaiting = 0, keptWhileWaiting = 0;
  for (Policy policy : {Policy::Easy, Policy::Fcfs, Policy::Conservative}) {
    for (int seed = 0; seed < 40; ++seed) {
      std::mt19937 rng(seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      SchedulerParams params;
      params.policy = policy;
      if (seed % 3 == 2) params.estimateDepth = 4;
      Snapshot base = twoPartitions();
      base.nodes[2].features = {"fast"};
      Scheduler sched(base.nodes, base.partitions, params);
      int64_t now = 0;
      JobId next = 1;
      for (int step = 0; step < 80; ++step) {
        const int event = pick(0, 9);
        if (event <= 4) {
          for (int n = pick(1, 3); n > 0; --n) {
            JobBuilder b(next++);
            b.gpusPerNode(1 << pick(0, 3)).tasks(1).time(100 * pick(1, 12)).priority(pick(0, 20));
            b.submit(now);
            const int where = pick(0, 5);
            if (where == 0) b.partitions({"debug", "gpu"});
            if (where == 1) b.partitions({"gpu", "debug"});
            if (where == 2) b.partition("debug");
            if (pick(0, 5) == 0) b.prefer("fast");  // gpu003 only (prefer_test.cpp)
            if (pick(0, 12) == 0) b.hold(Hold::User);
            if (pick(0, 15) == 0) b.time(5000);  // over debug's limit
            sched.onJobSubmitted(b);
          }
        } else if (event <= 6 && !sched.snapshot().running.empty()) {
          const auto& run = sched.snapshot().running;
          sched.onJobEnded(run[pick(0, static_cast<int>(run.size()) - 1)].id);
        } else if (event == 7 && !sched.snapshot().pending.empty()) {
          const auto& pend = sched.snapshot().pending;
          sched.onJobEnded(pend[pick(0, static_cast<int>(pend.size()) - 1)].id);
        } else {
          now += pick(0, 150);
        }
        const bool waiting = std::any_of(sched.snapshot().pending.begin(),
                                         sched.snapshot().pending.end(), triesAlternatives);
        const Scheduler::Counters before = sched.counters();
        Snapshot copy = sched.snapshot();
        const Plan want = schedule(copy, params, now);
        const Plan& got = sched.pass(now);
        SCOPED_TRACE("policy " + std::to_string(static_cast<int>(policy)) + " seed " +
                     std::to_string(seed) + " step " + std::to_string(step));
        expectSamePlan(got, want);
        if (::testing::Test::HasFailure()) return;
        if (waiting) {
          shortcutsWhileWaiting += sched.counters().incrementalPasses - before.incrementalPasses;
          replaysWhileWaiting += sched.counters().completionReplays - before.completionReplays;
        }
        std::vector<RunningJob> started;
        for (const Start& st : got.starts) {
          preferredStarts += st.preferred;
          multiStarts += !st.partition.empty();
          started.push_back(RunningJob{st.id, st.partition.empty() ? "gpu" : st.partition,
                                       st.allocation, st.endTime});
        }
        const int how = pick(0, 9);
        if (how == 0 && !started.empty()) started.front().expectedEnd += 1;  // not as planned
        const int kept = sched.counters().startsKept;
        if (how <= 6) {
          if (!started.empty()) sched.onJobsStarted(std::move(started));
        } else {
          for (RunningJob& r : started) sched.onJobStarted(std::move(r));
        }
        if (waiting) keptWhileWaiting += sched.counters().startsKept - kept;
      }
    }
  }
  EXPECT_GT(multiStarts, 50);  // the sequences do start such jobs, in either partition
  EXPECT_GT(preferredStarts, 20);
  std::printf("while such jobs waited: %d shortcut passes (%d replays), %d kept starts\n",
              shortcutsWhileWaiting, replaysWhileWaiting, keptWhileWaiting);
  EXPECT_GT(shortcutsWhileWaiting, 200);
  EXPECT_GT(replaysWhileWaiting, 50);
  EXPECT_GT(keptWhileWaiting, 50);
}

}  // namespace
}  // namespace drover::sched
