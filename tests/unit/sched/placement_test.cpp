// Node and GPU choice for jobs that start now.
#include <gtest/gtest.h>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

std::vector<std::string> nodeNames(const Start& s) {
  std::vector<std::string> out;
  for (const auto& a : s.allocation.nodes) out.push_back(a.node);
  return out;
}

TEST(Placement, Cases) {
  struct Case {
    std::string name;
    std::vector<Node> nodes;
    std::vector<RunningJob> running;
    Job job;
    std::vector<std::string> wantNodes;
    std::vector<int> wantGpus;  // on the first node
  };
  std::vector<Case> cases = {
      {"one GPU goes to the partly used node, keeping gpu002 whole",
       gpuNodes(2), {running(90, "gpu001", 1, {0}, 5000)},
       JobBuilder(1).gpusPerNode(1), {"gpu001"}, {1}},
      {"best fit: the node with the fewest free GPUs that still fits",
       gpuNodes(3),
       {running(90, "gpu001", 1, {0, 1, 2, 3, 4, 5, 6}, 5000),
        running(91, "gpu002", 1, {0, 1, 2, 3}, 5000)},
       JobBuilder(1).gpusPerNode(2), {"gpu002"}, {4, 5}},
      {"a pair of GPUs takes adjacent indices from the smallest free run",
       gpuNodes(1), {running(90, "gpu001", 1, {0, 3, 4}, 5000)},
       // free runs: {1,2} (len 2) and {5,6,7} (len 3): the pair fits the run of 2 exactly.
       JobBuilder(1).gpusPerNode(2), {"gpu001"}, {1, 2}},
      {"lower weight preferred",
       {NodeBuilder("a1", 0).gpus(8).weight(10), NodeBuilder("a2", 1).gpus(8).weight(1)}, {},
       JobBuilder(1).gpusPerNode(1), {"a2"}, {0}},
      {"multi-node job takes contiguous nodes",
       gpuNodes(6), {running(90, "gpu002", 1, {0}, 5000)},
       // gpu002 is partly used; a 3-node whole-GPU job takes gpu003..gpu005.
       JobBuilder(1).nodes(3).gpusPerNode(8), {"gpu003", "gpu004", "gpu005"}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"typed request skips nodes of another type",
       {NodeBuilder("a", 0).gpus(8, "a100"), NodeBuilder("h", 1).gpus(8, "h100")}, {},
       JobBuilder(1).gpusPerNode(4, "h100"), {"h"}, {0, 1, 2, 3}},
      {"constraint picks the node with the feature",
       {NodeBuilder("a", 0).gpus(8), NodeBuilder("b", 1).gpus(8).features({"ib"})}, {},
       JobBuilder(1).constraint("ib"), {"b"}, {}},
      {"excluded node avoided",
       gpuNodes(2), {}, JobBuilder(1).gpusPerNode(1).exclude({"gpu001"}), {"gpu002"}, {0}},
      {"required node used",
       gpuNodes(3), {}, JobBuilder(1).require({"gpu003"}), {"gpu003"}, {}},
      {"exclusive takes the whole node",
       gpuNodes(2), {}, JobBuilder(1).exclusive(), {"gpu001"}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"cpu-only job prefers a node without free GPUs",
       {NodeBuilder("g", 0).gpus(8), NodeBuilder("c", 1).gpus(0)}, {},
       JobBuilder(1).tasks(4), {"c"}, {}},

      // -N min-max takes as many free nodes as the range allows (sbatch(1); real Slurm gives
      // `-N 1-2` two idle nodes) ...
      {"node range takes every free node up to its maximum",
       gpuNodes(4), {}, JobBuilder(1).nodeRange(1, 3), {"gpu001", "gpu002", "gpu003"}, {}},
      {"node range takes what is free",
       gpuNodes(3), {running(90, "gpu002", 1, {0, 1, 2, 3, 4, 5, 6, 7}, 5000)},
       JobBuilder(1).nodeRange(1, 3).gpusPerNode(1), {"gpu001", "gpu003"}, {0}},
      // ... and with -n at most one node per task (real Slurm: `-N 1-3 -n 2` runs on 2 nodes).
      {"node range with -n takes one node per task at most",
       gpuNodes(3), {}, JobBuilder(1).nodeRange(1, 3).ntasks(2), {"gpu001", "gpu002"}, {}},
      // ... but a per-job GPU count keeps the minimum (`-N 1-3 --gpus=2`: one node in Slurm).
      {"node range with a per-job GPU count keeps the minimum",
       gpuNodes(3), {}, JobBuilder(1).nodeRange(1, 3).gpusPerJob(2), {"gpu001"}, {0, 1}},
  };
  for (const auto& c : cases) {
    Snapshot s;
    s.nodes = c.nodes;
    s.partitions = {partition()};
    s.running = c.running;
    s.pending = {c.job};
    Plan plan = schedule(s, SchedulerParams{}, 1000);
    const Start* st = startOf(plan, 1);
    ASSERT_NE(st, nullptr) << c.name;
    EXPECT_EQ(nodeNames(*st), c.wantNodes) << c.name;
    EXPECT_EQ(st->allocation.nodes[0].gpus, c.wantGpus) << c.name;
  }
}

TEST(Placement, SmallJobsDoNotFragmentEveryNode) {
  // Eight 1-GPU jobs on four 8-GPU nodes then one 8-GPU job: best fit packs the small ones onto
  // one node, so the big one starts at once.
  Snapshot s;
  s.nodes = gpuNodes(4);
  s.partitions = {partition()};
  for (JobId id = 1; id <= 8; ++id) s.pending.push_back(JobBuilder(id).gpusPerNode(1));
  s.pending.push_back(JobBuilder(9).gpusPerNode(8));
  Plan plan = schedule(s, SchedulerParams{}, 0);
  EXPECT_EQ(plan.starts.size(), 9u);
  for (JobId id = 1; id <= 8; ++id) EXPECT_EQ(startOf(plan, id)->allocation.nodes[0].node, "gpu001");
}

// --mem=0 holds each node's whole memory, whatever its size (sbatch(1); the reference's job held
// 64G and a `--mem=1G` job waited for its node): the allocation records it, a job that needs any
// memory there waits, and its reservation is the node's end, through the index or not.
TEST(Placement, AllMemoryHoldsEachNodesWholeMemory) {
  for (bool indexed : {false, true}) {
    Snapshot s;
    s.nodes = {NodeBuilder("big", 0).gpus(8).memory(1024000), NodeBuilder("small", 1).gpus(8)};
    s.partitions = {partition()};
    s.running = {running(90, "small", 1, {0}, 500, 1000)};
    s.pending = {JobBuilder(1).gpusPerNode(1).allMemory().time(1000).priority(10),
                 JobBuilder(2).gpusPerNode(1).memPerNode(1000).time(100).priority(9),
                 JobBuilder(3).gpusPerNode(1).allMemory().nodes(2).time(100).priority(8),
                 JobBuilder(4).gpusPerNode(1).allMemory().nodes(2).time(100).priority(7),
                 JobBuilder(5).gpusPerNode(1).time(100).priority(6)};
    SchedulerParams params;
    params.policy = Policy::Conservative;  // a reservation for every waiting job
    params.indexedReserveSearch = indexed;
    const Plan plan = schedule(s, params, 0);
    // Job 1 cannot have all of small's memory while job 90 holds some: it takes big whole.
    const Start* first = startOf(plan, 1);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(nodeNames(*first), std::vector<std::string>{"big"});
    EXPECT_EQ(first->allocation.nodes[0].memoryMb, 1024000);
    // Job 2's memory fits small beside job 90; job 5 asks for no memory and fits small too.
    ASSERT_NE(startOf(plan, 2), nullptr);
    EXPECT_EQ(nodeNames(*startOf(plan, 2)), std::vector<std::string>{"small"});
    ASSERT_NE(startOf(plan, 5), nullptr);
    // Two nodes with all their memory: once job 1 ends at 1000 (small is free of job 2 by 100),
    // the second such job after the first.
    EXPECT_EQ(pendingOf(plan, 3)->expectedStart, 1000) << indexed;
    EXPECT_EQ(pendingOf(plan, 4)->expectedStart, 1100) << indexed;
  }
}

TEST(Placement, GpusAreNeverGivenTwice) {
  Snapshot s;
  s.nodes = gpuNodes(2);
  s.partitions = {partition()};
  for (JobId id = 1; id <= 6; ++id) s.pending.push_back(JobBuilder(id).gpusPerNode(3));
  Plan plan = schedule(s, SchedulerParams{}, 0);
  // 2 nodes x 8 GPUs hold five 3-GPU jobs? No: each node holds two (6 of 8), so four start.
  ASSERT_EQ(plan.starts.size(), 4u);
  std::map<std::string, std::set<int>> used;
  for (const auto& st : plan.starts) {
    for (const auto& a : st.allocation.nodes) {
      for (int g : a.gpus) EXPECT_TRUE(used[a.node].insert(g).second) << a.node << " gpu " << g;
    }
  }
}

}  // namespace
}  // namespace drover::sched
