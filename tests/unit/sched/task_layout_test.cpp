// Tasks laid out over a job's nodes at start as Slurm's block layout does (sched/task_layout.h):
// the first nodes filled as far as they hold for the job's whole run, one task left for each
// later node the job needs; nodes a -N min-max range added take tasks round-robin. Expected layouts are what real Slurm 22.05 (select/cons_tres, 16-CPU nodes) gave
// for the same requests on the reference cluster.
#include "sched/task_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

TEST(BlockLayout, FillsEarlierNodesLeavingOneTaskForEachLaterNode) {
  struct Case {
    std::string name;
    int ntasks;
    std::vector<int> room;  // tasks each node holds
    std::vector<int> want;
  };
  std::vector<Case> cases = {
      {"room for all on the first node", 4, {8, 8}, {3, 1}},
      {"first node holds two", 4, {2, 8}, {2, 2}},
      {"three nodes", 7, {16, 16, 16}, {5, 1, 1}},
      {"spill past a full first node", 20, {16, 16}, {16, 4}},
      {"middle node limited", 10, {4, 2, 8}, {4, 2, 4}},
      {"one task per node", 3, {5, 5, 5}, {1, 1, 1}},
  };
  for (const auto& c : cases) {
    auto fits = [&](int node, int t) { return t <= c.room[static_cast<size_t>(node)]; };
    const int nodes = static_cast<int>(c.room.size());
    EXPECT_EQ(blockLayout(c.ntasks, nodes, nodes, fits), c.want) << c.name;
  }
}

// -N min-max: what the reference Slurm 22.05 laid out (SLURM_TASKS_PER_NODE, and
// SLURM_JOB_CPUS_PER_NODE = tasks x -c) when the range took every node, on its 16-CPU nodes
// (room = the tasks of -c CPUs a node holds: 16/c idle, less where other jobs run).
TEST(BlockLayout, NodeRangeDealsTasksOverTheNodesItAdded) {
  struct Case {
    std::string name;
    int ntasks, min_nodes;
    std::vector<int> room;
    std::vector<int> want;
  };
  const std::vector<int> idle4 = {4, 4, 4, 4};  // -c 4 on idle nodes
  std::vector<Case> cases = {
      {"-N 1-4 -n 6 -c 4", 6, 1, idle4, {2, 2, 1, 1}},
      {"-N 4 -n 6 -c 4", 6, 4, idle4, {3, 1, 1, 1}},
      {"-N 1-4 -n 6 -c 1", 6, 1, {16, 16, 16, 16}, {3, 1, 1, 1}},
      {"-N 1-4 -n 6 -c 2", 6, 1, {8, 8, 8, 8}, {3, 1, 1, 1}},
      {"-N 1-4 -n 6 -c 3", 6, 1, {5, 5, 5, 5}, {3, 1, 1, 1}},
      {"-N 1-4 -n 6 -c 5", 6, 1, {3, 3, 3, 3}, {2, 2, 1, 1}},
      {"-N 1-4 -n 6 -c 8", 6, 1, {2, 2, 2, 2}, {2, 2, 1, 1}},
      {"-N 1-4 -n 5 -c 4", 5, 1, idle4, {2, 1, 1, 1}},
      {"-N 1-4 -n 7 -c 4", 7, 1, idle4, {3, 2, 1, 1}},
      {"-N 1-4 -n 8 -c 4", 8, 1, idle4, {3, 3, 1, 1}},
      {"-N 1-4 -n 10 -c 4", 10, 1, idle4, {4, 3, 2, 1}},
      {"-N 1-4 -n 12 -c 4", 12, 1, idle4, {4, 4, 3, 1}},
      {"-N 1-4 -n 17 -c 1", 17, 1, {16, 16, 16, 16}, {14, 1, 1, 1}},
      {"-N 2-4 -n 6 -c 4", 6, 2, idle4, {2, 2, 1, 1}},
      {"-N 2-4 -n 5 -c 8", 5, 2, {2, 2, 2, 2}, {2, 1, 1, 1}},
      {"-N 3-4 -n 6 -c 4", 6, 3, idle4, {3, 1, 1, 1}},
      {"-N 3-4 -n 5 -c 4", 5, 3, idle4, {2, 1, 1, 1}},
      {"-N 1-3 -n 6 -c 4", 6, 1, {4, 4, 4}, {3, 2, 1}},
      {"-N 1-2 -n 6 -c 4", 6, 1, {4, 4}, {4, 2}},
      {"-N 2-3 -n 9 -c 4", 9, 2, {4, 4, 4}, {4, 4, 1}},
      // node01 with 12 of its CPUs busy (4 free).
      {"busy: -N 1-4 -n 6 -c 4", 6, 1, {1, 4, 4, 4}, {1, 3, 1, 1}},
      {"busy: -N 1-4 -n 10 -c 4", 10, 1, {1, 4, 4, 4}, {1, 4, 4, 1}},
      {"busy: -N 1-4 -n 9 -c 2", 9, 1, {2, 8, 8, 8}, {2, 5, 1, 1}},
      {"busy: -N 1-3 -n 6 -c 4", 6, 1, {1, 4, 4}, {1, 4, 1}},
      {"busy: -N 1-4 -n 20 -c 1", 20, 1, {4, 16, 16, 16}, {4, 14, 1, 1}},
      // node01 with 8 busy (8 free).
      {"half busy: -N 2-4 -n 10 -c 4", 10, 2, {2, 4, 4, 4}, {2, 4, 3, 1}},
      {"half busy: -N 1-4 -n 7 -c 4", 7, 1, {2, 4, 4, 4}, {2, 3, 1, 1}},
  };
  for (const auto& c : cases) {
    auto fits = [&](int node, int t) { return t <= c.room[static_cast<size_t>(node)]; };
    EXPECT_EQ(blockLayout(c.ntasks, static_cast<int>(c.room.size()), c.min_nodes, fits), c.want)
        << c.name;
  }
}

TEST(WalkNodes, AsTheReferenceChoseAroundBusyNodes) {
  struct Case {
    std::string name;
    int ntasks, keep, min_nodes, max_nodes;
    std::vector<int> rooms;
    std::vector<int> want;  // positions taken
  };
  std::vector<Case> cases = {
      // The reference Slurm: node01 with 1 CPU free, the rest idle (16 CPUs).
      {"-N 4 -n 6", 6, 4, 4, 4, {1, 16, 16, 16}, {0, 1, 2, 3}},
      // node01 1 free, node03 6 free: node03 cannot take the 13 tasks left for the last node.
      {"-N 3 -n 30", 30, 3, 3, 3, {1, 16, 6, 16}, {0, 1, 3}},
      {"idle: -N 2 -n 4", 4, 2, 2, 2, {16, 16, 16, 16}, {0, 1}},
      {"-n 20 alone (two nodes by CPUs)", 20, 1, 2, 2, {16, 16, 16}, {0, 1}},
      {"a node passed over in the middle", 6, 2, 2, 2, {2, 1, 4}, {0, 2}},
      {"range: -N 1-4 -n 6 -c 4, node01 holding 1", 6, 1, 2, 4, {1, 4, 4, 4}, {0, 1, 2, 3}},
      {"range keeps going after the last task", 2, 1, 1, 3, {16, 16, 16, 16}, {0, 1, 2}},
      {"not enough room", 5, 2, 2, 2, {1, 1, 1}, {}},
      {"not enough nodes", 4, 2, 2, 2, {16}, {}},
      {"the largest node comes last", 12, 3, 3, 3, {1, 1, 1, 1, 10}, {0, 1, 4}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(walkNodes(c.ntasks, c.keep, c.min_nodes, c.max_nodes, c.rooms), c.want) << c.name;
  }
  // Without -N the walk stops once the tasks are placed (and the minimum reached), on the
  // fewest nodes that hold them.
  EXPECT_EQ(walkNodes(20, 1, 2, 20, {8, 8, 8, 8}, false), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(fewestNodesHolding(20, 2, 20, {8, 8, 8, 8}), 3);
  EXPECT_EQ(fewestNodesHolding(20, 2, 20, {4, 16, 16}), 2);
  EXPECT_EQ(fewestNodesHolding(6, 1, 6, {4, 6}), 1);
  EXPECT_EQ(fewestNodesHolding(20, 1, 2, {8, 8, 8}), 0);
  EXPECT_EQ(walkNodes(20, 1, 2, 2, {4, 16, 16}, false), (std::vector<int>{0, 1}));
  EXPECT_EQ(walkNodes(4, 1, 1, 4, {16, 16}, false), (std::vector<int>{0}));
  EXPECT_EQ(walkNodes(4, 1, 2, 4, {16, 16, 16}, false), (std::vector<int>{0, 1}));
}

// On random rooms the walk finds nodes exactly when some min..max of them hold the tasks, and
// blockLayout over what it took, in any order, fits every node and places every task.
TEST(WalkNodes, FindsNodesWheneverTheyExistAndTheLayoutFits) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int found = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<int> rooms(static_cast<size_t>(pick(1, 8)));
    for (int& r : rooms) r = pick(1, 6);
    const int min_nodes = pick(1, 4);
    const int max_nodes = pick(0, 2) == 0 ? pick(min_nodes, 6) : min_nodes;
    const int ntasks = pick(max_nodes, 24);
    const int keep = pick(0, 1) == 0 ? min_nodes : 1;
    const bool extend = pick(0, 1) == 0;
    std::vector<int> sorted = rooms;
    std::sort(sorted.rbegin(), sorted.rend());
    const int k = std::min(max_nodes, static_cast<int>(rooms.size()));
    int top = 0;
    for (int i = 0; i < k; ++i) top += sorted[static_cast<size_t>(i)];
    const bool exists = static_cast<int>(rooms.size()) >= min_nodes && top >= ntasks;
    const std::vector<int> taken = walkNodes(ntasks, keep, min_nodes, max_nodes, rooms, extend);
    ASSERT_EQ(!taken.empty(), exists) << "round " << round;
    if (taken.empty()) continue;
    ++found;
    ASSERT_GE(static_cast<int>(taken.size()), min_nodes);
    ASSERT_LE(static_cast<int>(taken.size()), max_nodes);
    std::vector<int> room;
    for (int at : taken) room.push_back(rooms[static_cast<size_t>(at)]);
    // The scheduler walks the lightest nodes first but lays tasks out in hostlist order.
    if (pick(0, 1) == 0) std::shuffle(room.begin(), room.end(), rng);
    const std::vector<int> laid =
        blockLayout(ntasks, static_cast<int>(room.size()), keep,
                    [&](int node, int t) { return t <= room[static_cast<size_t>(node)]; });
    int sum = 0;
    for (size_t i = 0; i < laid.size(); ++i) {
      ASSERT_GE(laid[i], 1) << "round " << round;
      ASSERT_LE(laid[i], room[i]) << "round " << round;
      sum += laid[i];
    }
    ASSERT_EQ(sum, ntasks) << "round " << round;
  }
  EXPECT_GT(found, 5000);
}

TEST(BlockLayout, OnlyForTasksGivenOverSeveralNodes) {
  EXPECT_TRUE(laysOutTasks(JobBuilder(1).ntasks(4).build().request, 2, false));
  EXPECT_FALSE(laysOutTasks(JobBuilder(1).tasks(2).build().request, 2, false));  // no -n
  EXPECT_FALSE(laysOutTasks(JobBuilder(1).ntasks(4).build().request, 1, false));
  EXPECT_FALSE(laysOutTasks(JobBuilder(1).ntasks(4).build().request, 2, true));  // --exclusive
  EXPECT_FALSE(laysOutTasks(JobBuilder(1).ntasks(4).tasksPerNode(2).build().request, 2, false));
}

// Four nodes as the reference cluster's: 16 CPUs, 64 GiB, 8 GPUs.
std::vector<Node> refNodes(int n = 4) {
  std::vector<Node> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(NodeBuilder("node0" + std::to_string(i + 1), i).cpus(16).memory(65536).gpus(8));
  }
  return out;
}

struct Laid {
  std::vector<std::string> nodes;
  std::vector<int> tasks, cpus;
  std::vector<int64_t> mem;
  std::vector<size_t> gpus;
};

Laid laidOut(const Start& s) {
  Laid out;
  for (const auto& a : s.allocation.nodes) {
    out.nodes.push_back(a.node);
    out.tasks.push_back(a.tasks);
    out.cpus.push_back(a.cpus);
    out.mem.push_back(a.memoryMb);
    out.gpus.push_back(a.gpus.size());
  }
  return out;
}

// Job 1 started on node01 and node02 with these tasks and CPUs per node.
void expectFirstTwoNodes(const Plan& plan, std::vector<int> tasks, std::vector<int> cpus) {
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  Laid got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(got.tasks, tasks);
  EXPECT_EQ(got.cpus, cpus);
}

Plan scheduleOne(const Job& job, std::vector<RunningJob> running = {},
                 std::vector<Job> ahead = {}) {
  Snapshot s;
  s.nodes = refNodes();
  s.partitions = {partition()};
  s.running = std::move(running);
  s.pending = std::move(ahead);
  s.pending.push_back(job);
  return schedule(s, SchedulerParams{}, 1000);
}

TEST(TaskLayoutAtStart, AsSlurmLaysOutIdleNodes) {
  struct Case {
    std::string name;
    Job job;
    std::vector<std::string> nodes;
    std::vector<int> tasks, cpus;
  };
  std::vector<Case> cases = {
      // golden 041: SLURM_TASKS_PER_NODE=3,1, SLURM_JOB_CPUS_PER_NODE=6,2.
      {"-N 2 -n 4 -c 2", JobBuilder(1).nodes(2).ntasks(4).cpusPerTask(2),
       {"node01", "node02"}, {3, 1}, {6, 2}},
      {"-N 2 -n 4", JobBuilder(1).nodes(2).ntasks(4), {"node01", "node02"}, {3, 1}, {3, 1}},
      {"-N 3 -n 7", JobBuilder(1).nodes(3).ntasks(7), {"node01", "node02", "node03"},
       {5, 1, 1}, {5, 1, 1}},
      {"-N 2 -n 6 -c 4: the first node holds 4", JobBuilder(1).nodes(2).ntasks(6).cpusPerTask(4),
       {"node01", "node02"}, {4, 2}, {16, 8}},
      // -n alone: as few nodes as the CPUs need, the first filled (Slurm: 16,4).
      {"-n 20", JobBuilder(1).ntasks(20), {"node01", "node02"}, {16, 4}, {16, 4}},
      // -N min-max with -n: as many free nodes as the range allows, one task each at least.
      {"-N 1-3 -n 2", JobBuilder(1).nodeRange(1, 3).ntasks(2), {"node01", "node02"},
       {1, 1}, {1, 1}},
      {"-N 1-4 -n 6", JobBuilder(1).nodeRange(1, 4).ntasks(6),
       {"node01", "node02", "node03", "node04"}, {3, 1, 1, 1}, {3, 1, 1, 1}},
      // The reference: 8(x2),4(x2) CPUs; -N 4 and -N 3-4 3,1,1,1; -N 1-4 -n 10 -c 4 16,12,8,4.
      {"-N 1-4 -n 6 -c 4", JobBuilder(1).nodeRange(1, 4).ntasks(6).cpusPerTask(4),
       {"node01", "node02", "node03", "node04"}, {2, 2, 1, 1}, {8, 8, 4, 4}},
      {"-N 4 -n 6 -c 4", JobBuilder(1).nodes(4).ntasks(6).cpusPerTask(4),
       {"node01", "node02", "node03", "node04"}, {3, 1, 1, 1}, {12, 4, 4, 4}},
      {"-N 3-4 -n 6 -c 4", JobBuilder(1).nodeRange(3, 4).ntasks(6).cpusPerTask(4),
       {"node01", "node02", "node03", "node04"}, {3, 1, 1, 1}, {12, 4, 4, 4}},
      {"-N 1-4 -n 10 -c 4", JobBuilder(1).nodeRange(1, 4).ntasks(10).cpusPerTask(4),
       {"node01", "node02", "node03", "node04"}, {4, 3, 2, 1}, {16, 12, 8, 4}},
      {"-N 2-3 -n 7", JobBuilder(1).nodeRange(2, 3).ntasks(7), {"node01", "node02", "node03"},
       {5, 1, 1}, {5, 1, 1}},
      // --ntasks-per-node and whole nodes keep their even per-node rules.
      {"--ntasks-per-node", JobBuilder(1).nodes(2).ntasks(4).tasksPerNode(2),
       {"node01", "node02"}, {0, 0}, {2, 2}},
      {"--exclusive", JobBuilder(1).nodes(2).ntasks(4).exclusive(), {"node01", "node02"},
       {0, 0}, {16, 16}},
  };
  for (const auto& c : cases) {
    Plan plan = scheduleOne(c.job);
    const Start* st = startOf(plan, 1);
    ASSERT_NE(st, nullptr) << c.name;
    Laid got = laidOut(*st);
    EXPECT_EQ(got.nodes, c.nodes) << c.name;
    EXPECT_EQ(got.tasks, c.tasks) << c.name;
    EXPECT_EQ(got.cpus, c.cpus) << c.name;
  }
}

TEST(TaskLayoutAtStart, MemoryAndGpusPerTaskFollowEachNodesTasks) {
  // Slurm: `-N 2 -n 4 --gpus-per-task=1` ran 3+1 with GPUs 3 and 1 (gres/gpu=4 in all).
  Plan plan = scheduleOne(JobBuilder(1).nodes(2).ntasks(4).gpusPerTask(1).memPerCpu(1000));
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  Laid got = laidOut(*st);
  EXPECT_EQ(got.tasks, (std::vector<int>{3, 1}));
  EXPECT_EQ(got.gpus, (std::vector<size_t>{3, 1}));
  EXPECT_EQ(got.mem, (std::vector<int64_t>{3000, 1000}));
  // --gpus-per-node stays per node; --mem too.
  plan = scheduleOne(JobBuilder(1).nodes(2).ntasks(4).gpusPerNode(2).memPerNode(1024));
  st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  got = laidOut(*st);
  EXPECT_EQ(got.tasks, (std::vector<int>{3, 1}));
  EXPECT_EQ(got.gpus, (std::vector<size_t>{2, 2}));
  EXPECT_EQ(got.mem, (std::vector<int64_t>{1024, 1024}));
}

TEST(TaskLayoutAtStart, BusyFirstNodeTakesWhatItHolds) {
  // 12 of node01's 16 CPUs are busy: it holds 2 tasks of 2 CPUs, so 2+2 (as Slurm's 12_1, golden 042).
  Plan plan = scheduleOne(JobBuilder(1).nodes(2).ntasks(4).cpusPerTask(2),
                          {running(90, "node01", 12, {}, 5000)});
  expectFirstTwoNodes(plan, {2, 2}, {4, 4});
}

TEST(TaskLayoutAtStart, NodeRangeAroundABusyFirstNode) {
  // 12 of node01's CPUs busy, -N 1-4 -n 6 -c 4: the reference took node01 too and ran 1,3,1,1
  // (CPUs 4,12,4,4).
  Plan plan = scheduleOne(JobBuilder(1).nodeRange(1, 4).ntasks(6).cpusPerTask(4),
                          {running(90, "node01", 12, {}, 5000)});
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  Laid got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node01", "node02", "node03", "node04"}));
  EXPECT_EQ(got.tasks, (std::vector<int>{1, 3, 1, 1}));
  EXPECT_EQ(got.cpus, (std::vector<int>{4, 12, 4, 4}));
}

TEST(TaskLayoutAtStart, NodesHoldingLessThanTheEvenShareStillServe) {
  // The reference: node01 with 15 CPUs busy, `-N 4 -n 6` ran 1,3,1,1 at once; a node need not
  // hold the even share of ceil(6/4) = 2 tasks.
  Plan plan = scheduleOne(JobBuilder(1).nodes(4).ntasks(6), {running(90, "node01", 15, {}, 5000)});
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  Laid got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node01", "node02", "node03", "node04"}));
  EXPECT_EQ(got.tasks, (std::vector<int>{1, 3, 1, 1}));
  // node01 1 CPU free, node03 6: `-N 3 -n 30` passes node03 over (the last node must take 13).
  plan = scheduleOne(JobBuilder(1).nodes(3).ntasks(30),
                     {running(90, "node01", 15, {}, 5000), running(91, "node03", 10, {}, 5000)});
  st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node01", "node02", "node04"}));
  EXPECT_EQ(got.tasks, (std::vector<int>{1, 16, 13}));
  // Without room for the tasks on any three nodes the job waits, and reserves the even share.
  plan = scheduleOne(JobBuilder(1).nodes(3).ntasks(40),
                     {running(90, "node01", 15, {}, 5000), running(91, "node03", 10, {}, 5000)});
  EXPECT_EQ(startOf(plan, 1), nullptr);
  const PendingInfo* waiting = pendingOf(plan, 1);
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(waiting->reason, Reason::Resources);
  EXPECT_EQ(waiting->expectedStart, 5000);
}

TEST(TaskLayoutAtStart, WithoutNodeCountTheFewestNodesThatHoldTheTasks) {
  // As the reference Slurm ran `-n 20`: with node01 holding 4 tasks, node01-02 at 4,16 (the two
  // nodes its CPUs need, walked in order) ...
  Plan plan = scheduleOne(JobBuilder(1).ntasks(20), {running(90, "node01", 12, {}, 5000)});
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(laidOut(*st).nodes, (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(laidOut(*st).tasks, (std::vector<int>{4, 16}));
  // ... and with every node half busy (no two hold 20), three nodes at once: 8,8,4.
  std::vector<RunningJob> half;
  for (int i = 1; i <= 4; ++i) half.push_back(running(89 + i, "node0" + std::to_string(i), 8, {}, 5000));
  plan = scheduleOne(JobBuilder(1).ntasks(20), half);
  st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  Laid got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node01", "node02", "node03"}));
  EXPECT_EQ(got.tasks, (std::vector<int>{8, 8, 4}));
  // `-n 4` fits one node: the best fit (the fullest node that holds it), not the walk's first
  // node, as the reference put `-n 6` on the node with exactly 6 free.
  std::vector<RunningJob> busy = {running(90, "node01", 10, {}, 5000), running(91, "node03", 12, {}, 5000)};
  plan = scheduleOne(JobBuilder(1).ntasks(4), busy);
  st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(laidOut(*st).nodes, (std::vector<std::string>{"node03"}));
  // With node01 at 6 CPUs free and the others at 4, no node holds -n 8: node01 fills first.
  busy.push_back(running(92, "node02", 12, {}, 5000));
  busy.push_back(running(93, "node04", 12, {}, 5000));
  plan = scheduleOne(JobBuilder(1).ntasks(8), busy);
  st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(got.tasks, (std::vector<int>{6, 2}));
}

TEST(TaskLayoutAtStart, LighterNodesServeFirst) {
  // node03 and node04 weigh less: the walk keeps to them when they hold the job.
  Snapshot s;
  s.nodes = refNodes();
  s.nodes[2].weight = s.nodes[3].weight = 0;
  s.partitions = {partition()};
  s.pending = {JobBuilder(1).nodes(2).ntasks(6)};
  Plan plan = schedule(s, SchedulerParams{}, 1000);
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(laidOut(*st).nodes, (std::vector<std::string>{"node03", "node04"}));
  // When they cannot, the first heavier node joins them; tasks go in hostlist order.
  s.pending = {JobBuilder(1).nodes(3).ntasks(6)};
  plan = schedule(s, SchedulerParams{}, 1000);
  st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(laidOut(*st).nodes, (std::vector<std::string>{"node01", "node03", "node04"}));
  EXPECT_EQ(laidOut(*st).tasks, (std::vector<int>{4, 1, 1}));
}

TEST(TaskLayoutAtStart, ReservationOfAJobAheadLimitsTheFirstNode) {
  // node01 has 8 CPUs busy until 2000, node02..04 8 each until 9000. Job 2 (first in line) wants
  // 12 CPUs on one node: it reserves node01 from 2000. Job 1 (-N 2 -n 4 -c 2, one hour) backfills
  // on node01 and node02, but node01 keeps only 16 - 12 = 4 CPUs free after 2000: 2 tasks there.
  std::vector<RunningJob> busy = {running(90, "node01", 8, {}, 2000), running(91, "node02", 8, {}, 9000),
                                  running(92, "node03", 8, {}, 9000), running(93, "node04", 8, {}, 9000)};
  Job ahead = JobBuilder(2).nodes(1).ntasks(12).priority(100);  // -N 1: one node must hold 12
  Plan plan = scheduleOne(JobBuilder(1).nodes(2).ntasks(4).cpusPerTask(2), busy, {ahead});
  const PendingInfo* held = pendingOf(plan, 2);
  ASSERT_NE(held, nullptr);
  ASSERT_EQ(held->expectedStart, 2000);
  ASSERT_EQ(held->plannedNodes, (std::vector<std::string>{"node01"}));
  expectFirstTwoNodes(plan, {2, 2}, {4, 4});
  // Without the reservation node01's 8 free CPUs take 3 tasks.
  expectFirstTwoNodes(scheduleOne(JobBuilder(1).nodes(2).ntasks(4).cpusPerTask(2), busy), {3, 1},
                      {6, 2});
}

TEST(TaskLayoutAtStart, InsideAnAdvanceReservation) {
  Snapshot s;
  s.nodes = refNodes();
  s.partitions = {partition()};
  AdvanceReservation r;
  r.name = "team";
  r.nodes = {"node03", "node04"};
  r.start = 0;
  r.end = 100000;
  s.reservations = {r};
  s.pending = {JobBuilder(1).nodes(2).ntasks(4).reservation("team")};
  Plan plan = schedule(s, SchedulerParams{}, 1000);
  const Start* st = startOf(plan, 1);
  ASSERT_NE(st, nullptr);
  Laid got = laidOut(*st);
  EXPECT_EQ(got.nodes, (std::vector<std::string>{"node03", "node04"}));
  EXPECT_EQ(got.tasks, (std::vector<int>{3, 1}));
}

}  // namespace
}  // namespace drover::sched
