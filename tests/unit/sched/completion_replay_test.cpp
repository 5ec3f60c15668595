// The pass after a running job ends replays the last pass from the freed nodes
// (Scheduler::pass, replayAfterCompletion): each case checks the replay is taken, that it
// gives exactly the full pass's plan, and what that plan says.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "builders.h"
#include "plan_equality.h"
#include "sched/incremental.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

struct ExpectStart {
  JobId id;
  std::string node;
  std::vector<int> gpus;
};

struct Case {
  std::string name;
  Policy policy = Policy::Easy;
  int nodes = 2;
  std::vector<RunningJob> running;
  std::vector<Job> pending;
  JobId ends = 0;  // the running job that completes
  std::vector<ExpectStart> starts;
  JobId reserved = 0;  // a job whose reservation the plan must hold at reservedAt
  int64_t reservedAt = 0;
  std::vector<JobId> waits;  // jobs that must stay pending
};

std::vector<Case> cases() {
  std::vector<Case> out;
  {
    // Half of gpu002 frees, but the only job that fits in 4 GPUs would delay the 2-node job's
    // reservation at 5000: nobody starts, the reservation stays.
    Case c;
    c.name = "freed GPUs nobody blocked can use";
    c.running = {running(101, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 5000),
                 running(102, "gpu002", 4, {0, 1, 2, 3}, 3000),
                 running(103, "gpu002", 4, {4, 5, 6, 7}, 5000)};
    c.pending = {JobBuilder(1).nodes(2).gpusPerNode(8).time(1000).priority(10),
                 JobBuilder(2).gpusPerNode(4).time(8000).priority(1)};
    c.ends = 102;
    c.reserved = 1;
    c.reservedAt = 5000;
    c.waits = {2};
    out.push_back(c);
  }
  {
    // The blocked 8-GPU job waited for gpu001: it starts there once the job ends; the next
    // one now holds the reservation, behind it.
    Case c;
    c.name = "first blocked job starts";
    c.running = {running(101, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                 running(102, "gpu002", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 2000)};
    c.pending = {JobBuilder(1).gpusPerNode(8).time(500).priority(10),
                 JobBuilder(2).gpusPerNode(8).time(500).priority(5)};
    c.ends = 101;
    c.starts = {{1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}}};
    c.reserved = 2;
    c.reservedAt = 510;  // on gpu001 once job 1 (500 s from now = 10) ends
    out.push_back(c);
  }
  {
    // gpu002 frees early, so the 2-node job's reservation moves from 5000 to 1000 (when
    // gpu001 frees). Job 2 (3000 s) would have fit on gpu002 under the old shadow; now it would
    // delay the reservation and waits. Job 3 (500 s) still backfills there.
    Case c;
    c.name = "earlier reservation stops a backfill";
    c.running = {running(101, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                 running(102, "gpu002", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 5000)};
    c.pending = {JobBuilder(1).nodes(2).gpusPerNode(8).time(1000).priority(10),
                 JobBuilder(2).gpusPerNode(8).time(3000).priority(5),
                 JobBuilder(3).gpusPerNode(8).time(500).priority(1)};
    c.ends = 102;
    c.starts = {{3, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7}}};
    c.reserved = 1;
    c.reservedAt = 1000;
    c.waits = {2};
    out.push_back(c);
  }
  {
    // GPUs 2-3 of gpu001 free: the 2-GPU job takes exactly them, the 1-GPU job behind it the
    // lone free GPU 7 of gpu002 (its best fit), not a GPU of a pair.
    Case c;
    c.name = "GPU indices after the replay";
    c.running = {running(101, "gpu001", 2, {0, 1}, 4000), running(102, "gpu001", 2, {2, 3}, 4000),
                 running(103, "gpu001", 4, {4, 5, 6, 7}, 4000),
                 running(104, "gpu002", 7, {0, 1, 2, 3, 4, 5, 6}, 4000)};
    c.pending = {JobBuilder(1).nodes(2).gpusPerNode(8).time(100).priority(10),
                 JobBuilder(2).gpusPerNode(2).time(100).priority(5),
                 JobBuilder(3).gpusPerNode(2).time(100).priority(4),
                 JobBuilder(4).gpusPerNode(1).time(9000).priority(3)};
    c.ends = 102;
    c.starts = {{2, "gpu001", {2, 3}}};
    c.reserved = 1;
    c.reservedAt = 4000;
    c.waits = {3, 4};
    out.push_back(c);
  }
  {
    // FCFS: the head job starts on the freed node, the next one blocks and reserves behind it,
    // and the 1-GPU job may not pass it.
    Case c;
    c.name = "FCFS head starts, next reserves";
    c.policy = Policy::Fcfs;
    c.running = {running(101, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                 running(102, "gpu002", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 2000)};
    c.pending = {JobBuilder(1).gpusPerNode(8).time(500).priority(10),
                 JobBuilder(2).gpusPerNode(8).time(500).priority(5),
                 JobBuilder(3).gpusPerNode(1).time(100).priority(1)};
    c.ends = 101;
    c.starts = {{1, "gpu001", {0, 1, 2, 3, 4, 5, 6, 7}}};
    c.reserved = 2;
    c.reservedAt = 510;  // on gpu001 once job 1 (500 s from now = 10) ends
    c.waits = {3};
    out.push_back(c);
  }
  {
    // Conservative: job 1 starts on the freed gpu002 (until 510), job 2's reservation moves
    // from 1500 on gpu001 to 510 on gpu002, and the 2-node job's from 3000 to 1010.
    Case c;
    c.name = "conservative moves later reservations";
    c.policy = Policy::Conservative;
    c.running = {running(101, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                 running(102, "gpu002", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 3000)};
    c.pending = {JobBuilder(1).gpusPerNode(8).time(500).priority(10),
                 JobBuilder(2).gpusPerNode(8).time(500).priority(5),
                 JobBuilder(3).nodes(2).gpusPerNode(8).time(100).priority(1)};
    c.ends = 102;
    c.starts = {{1, "gpu002", {0, 1, 2, 3, 4, 5, 6, 7}}};
    c.reserved = 3;
    c.reservedAt = 1010;
    c.waits = {2};
    out.push_back(c);
  }
  return out;
}

TEST(CompletionReplay, Cases) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    SchedulerParams params;
    params.policy = c.policy;
    Scheduler sched(gpuNodes(c.nodes), {partition()}, params);
    sched.onJobsStarted(c.running);
    for (const Job& j : c.pending) sched.onJobSubmitted(j);
    ASSERT_TRUE(sched.pass(0).starts.empty()) << "the case must start from a pass without starts";
    sched.onJobEnded(c.ends);
    const int before = sched.counters().completionReplays;
    const Plan& got = sched.pass(10);
    EXPECT_EQ(sched.counters().completionReplays, before + 1) << "the replay was not taken";
    expectSamePlan(got, schedule(sched.snapshot(), params, 10));
    ASSERT_EQ(got.starts.size(), c.starts.size());
    for (size_t i = 0; i < c.starts.size(); ++i) {
      EXPECT_EQ(got.starts[i].id, c.starts[i].id);
      ASSERT_EQ(got.starts[i].allocation.nodes.size(), 1u);
      EXPECT_EQ(got.starts[i].allocation.nodes[0].node, c.starts[i].node);
      EXPECT_EQ(got.starts[i].allocation.nodes[0].gpus, c.starts[i].gpus);
    }
    if (c.reserved) {
      const PendingInfo* r = pendingOf(got, c.reserved);
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->expectedStart, std::optional<int64_t>(c.reservedAt));
    }
    for (JobId id : c.waits) EXPECT_NE(pendingOf(got, id), nullptr) << "job " << id;
  }
}

// Random clusters and queues under variants that exercise the replay's corners (estimates cut
// short, a reservation horizon, node weights, typed GPUs and features, two partitions in
// different tiers over shared nodes, node lists; FCFS, EASY and conservative): after every
// event the Scheduler's plan must equal a full pass, and completions must be replayed.
TEST(CompletionReplay, EqualsFullPassOnVariedClusters) {
  struct Variant {
    std::string name;
    Policy policy = Policy::Easy;
    int estimateDepth = 1000;
    int64_t horizon = 0;
    bool weights = false, typed = false, twoPartitions = false;
  };
  std::vector<Variant> variants(9);
  variants[0].name = "default";
  variants[1].name = "estimates cut at 2";
  variants[1].estimateDepth = 2;
  variants[2].name = "horizon";
  variants[2].horizon = 400;
  variants[3].name = "weights";
  variants[3].weights = true;
  variants[4].name = "typed GPUs and features";
  variants[4].typed = true;
  variants[5].name = "two partitions";
  variants[5].twoPartitions = true;
  variants[5].estimateDepth = 3;
  variants[6].name = "fcfs, two partitions";
  variants[6].policy = Policy::Fcfs;
  variants[6].twoPartitions = true;
  variants[7].name = "conservative";
  variants[7].policy = Policy::Conservative;
  variants[7].estimateDepth = 2;
  variants[8].name = "conservative, weights, two partitions";
  variants[8].policy = Policy::Conservative;
  variants[8].weights = true;
  variants[8].twoPartitions = true;
  int replays = 0;
  for (const Variant& v : variants) {
    // DROVER_REPLAY_SEEDS=400 for a longer search (9,778 replays, all equal, when written).
    const char* seeds = std::getenv("DROVER_REPLAY_SEEDS");
    for (int seed = 0; seed < (seeds ? std::atoi(seeds) : 40); ++seed) {
      std::mt19937 rng(1000 + seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      SchedulerParams params;
      params.policy = v.policy;
      params.estimateDepth = v.estimateDepth;
      params.reserveHorizonS = v.horizon;
      std::vector<Node> nodes = gpuNodes(pick(3, 7));
      for (Node& n : nodes) {
        if (v.weights) n.weight = pick(1, 3);
        if (v.typed && pick(0, 1)) {
          n.gpuTypes.assign(8, "a100");
          n.features = {"fast"};
        }
        if (v.twoPartitions && pick(0, 1)) n.partitions = {"gpu", "hi"};
      }
      std::vector<Partition> parts = {partition()};
      if (v.twoPartitions) {
        parts.push_back(partition("hi"));
        parts.back().priorityTier = 2;
      }
      Scheduler sched(nodes, parts, params);
      int64_t now = 0;
      JobId next = 1;
      for (int step = 0; step < 60; ++step) {
        int event = pick(0, 9);
        if (event <= 4) {
          for (int k = pick(1, 3); k > 0; --k) {
            JobBuilder b(next++);
            b.nodes(pick(0, 4) == 0 ? 2 : 1).time(60 * pick(1, 12)).priority(pick(0, 9)).submit(now);
            if (pick(0, 6) == 0) {
              b.exclusive();
            } else {
              b.gpusPerNode(1 << pick(0, 3), v.typed && pick(0, 2) == 0 ? "a100" : "");
            }
            if (v.typed && pick(0, 4) == 0) b.constraint("fast");
            if (v.twoPartitions && pick(0, 2) == 0) b.partition("hi");
            if (pick(0, 15) == 0) b.require({nodes[pick(0, static_cast<int>(nodes.size()) - 1)].name});
            if (pick(0, 15) == 0) b.exclude({"gpu001"});
            sched.onJobSubmitted(b);
          }
        } else if (event <= 7 && !sched.snapshot().running.empty()) {
          const auto& run = sched.snapshot().running;
          sched.onJobEnded(run[pick(0, static_cast<int>(run.size()) - 1)].id);
        } else {
          now += pick(0, 90);
        }
        const int before = sched.counters().completionReplays;
        Snapshot copy = sched.snapshot();
        Plan want = schedule(copy, params, now);
        const Plan& got = sched.pass(now);
        SCOPED_TRACE(v.name + " seed " + std::to_string(seed) + " step " + std::to_string(step));
        expectSamePlan(got, want);
        if (::testing::Test::HasFailure()) return;
        replays += sched.counters().completionReplays - before;
        // Start only some plans, so that completions often follow a pass without starts.
        if (pick(0, 2) > 0) {
          std::vector<Start> starts = got.starts;
          for (Start& st : starts) {
            sched.onJobStarted(RunningJob{st.id, "gpu", std::move(st.allocation), st.endTime});
          }
        }
      }
    }
  }
  std::printf("completion replays: %d\n", replays);
  EXPECT_GT(replays, 300);
}

}  // namespace
}  // namespace drover::sched
