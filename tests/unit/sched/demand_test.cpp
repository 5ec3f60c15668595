#include "sched/demand.h"

#include <gtest/gtest.h>

#include "builders.h"

namespace drover::sched {
namespace {
using testing::JobBuilder;

TEST(Demand, PerNodeShape) {
  struct Case {
    std::string name;
    Job job;
    int nodes;
    Capacity perNode;
  };
  std::vector<Case> cases = {
      {"one task", JobBuilder(1), 1, {1, 0, 0}},
      // 16 tasks x 1 CPU on 64-CPU nodes fit one node.
      {"tasks fit one node", JobBuilder(1).tasks(16), 1, {16, 0, 0}},
      // 100 CPUs need ceil(100/64) = 2 nodes, 50 tasks each.
      {"tasks spill", JobBuilder(1).tasks(100), 2, {50, 0, 0}},
      {"tasks per node", JobBuilder(1).tasks(8).tasksPerNode(4), 2, {4, 0, 0}},
      // -N min-max: at least the nodes the tasks need (the reference ran -N 1-4 -n 6 -c 4 on
      // 16-CPU nodes), within max; -N N stays N.
      {"range: tasks need more than min", JobBuilder(1).nodeRange(1, 4).ntasks(6).cpusPerTask(32),
       3, {64, 0, 0}},
      {"range: min holds them", JobBuilder(1).nodeRange(2, 4).ntasks(6).cpusPerTask(4), 2,
       {12, 0, 0}},
      {"range: capped by max", JobBuilder(1).nodeRange(1, 2).ntasks(6).cpusPerTask(32), 2,
       {96, 0, 0}},
      {"gpus per node", JobBuilder(1).nodes(2).gpusPerNode(8), 2, {1, 0, 8}},
      // 12 GPUs over 2 nodes = 6 per node.
      {"gpus per job", JobBuilder(1).nodes(2).gpusPerJob(12), 2, {1, 0, 6}},
      {"gpus per task", JobBuilder(1).tasks(4).gpusPerTask(2), 1, {4, 0, 8}},
      {"mem per cpu", JobBuilder(1).tasks(4).cpusPerTask(2).memPerCpu(1000), 1, {8, 8000, 0}},
      {"mem per gpu", JobBuilder(1).gpusPerNode(2).memPerGpu(4000), 1, {1, 8000, 2}},
      {"mem per node", JobBuilder(1).memPerNode(1234), 1, {1, 1234, 0}},
      // --cpus-per-gpu: the node's GPUs times the count, where tasks need fewer CPUs...
      {"cpus per gpu", JobBuilder(1).gpusPerNode(2).cpusPerGpu(4), 1, {8, 0, 2}},
      {"cpus per gpu over nodes", JobBuilder(1).nodes(2).gpusPerJob(4).cpusPerGpu(3), 2, {6, 0, 2}},
      // ... and memory per CPU follows those CPUs; more CPUs for the tasks win.
      {"cpus per gpu, mem per cpu", JobBuilder(1).gpusPerNode(1).cpusPerGpu(4).memPerCpu(100), 1,
       {4, 400, 1}},
      {"tasks need more", JobBuilder(1).tasks(4).cpusPerTask(4).gpusPerNode(1).cpusPerGpu(2), 1,
       {16, 0, 1}},
  };
  for (const auto& c : cases) {
    Demand d = computeDemand(c.job.request, 64);
    EXPECT_EQ(d.nodes, c.nodes) << c.name;
    EXPECT_EQ(d.perNode, c.perNode) << c.name;
  }
}

TEST(Demand, WholeNodeMemory) {
  // A 16-CPU, 65536 MB, 8-GPU node, as in the goldens' cluster.
  const Capacity node{16, 65536, 8};
  struct Case {
    std::string name;
    Job job;
    int64_t memoryMb;
  };
  std::vector<Case> cases = {
      // DefMemPerCPU=4000 fills --mem-per-cpu: 16 x 4000 (goldens 086, 090, 093).
      {"cpus x mem per cpu", JobBuilder(1).exclusive().memPerCpu(4000), 64000},
      {"no memory asked: the whole node", JobBuilder(1).exclusive(), 65536},
      {"mem per node", JobBuilder(1).exclusive().memPerNode(1000), 1000},
      {"gpus x mem per gpu", JobBuilder(1).exclusive().memPerGpu(2000), 16000},
      {"never more than the node has", JobBuilder(1).exclusive().memPerCpu(8000), 65536},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(wholeNodeMemoryMb(c.job.request, node), c.memoryMb) << c.name;
  }
}

}  // namespace
}  // namespace drover::sched
