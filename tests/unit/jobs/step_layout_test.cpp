// Step layout on a job's allocation: node choice (-N, -n, -w, -x), tasks per node and ranks
// (block, cyclic, plane), CPUs and GPU indices, exclusive steps and Slurm's refusals.
#include <gtest/gtest.h>

#include "jobs/step_layout.h"

namespace drover::jobs {
namespace {

struct StepBuilder {
  v1::StepSpec s;
  StepBuilder() { s.add_argv("true"); }
  StepBuilder& nodes(std::uint32_t n, std::uint32_t max = 0) { s.set_min_nodes(n); s.set_max_nodes(max); return *this; }
  StepBuilder& ntasks(std::uint32_t n) { s.set_ntasks(n); return *this; }
  StepBuilder& perNode(std::uint32_t n) { s.set_ntasks_per_node(n); return *this; }
  StepBuilder& cpt(std::uint32_t n) { s.set_cpus_per_task(n); return *this; }
  StepBuilder& dist(const std::string& d) { s.set_distribution(d); return *this; }
  StepBuilder& w(const std::string& v) { s.set_nodelist(v); return *this; }
  StepBuilder& x(const std::string& v) { s.set_exclude(v); return *this; }
  StepBuilder& exclusive() { s.set_exclusive(true); return *this; }
  StepBuilder& inAllocation() { s.set_in_allocation(true); return *this; }
  StepBuilder& gpusPerNode(std::uint32_t n) { s.mutable_gpus_per_node()->set_count(n); return *this; }
  StepBuilder& gpusPerTask(std::uint32_t n) { s.mutable_gpus_per_task()->set_count(n); return *this; }
  StepBuilder& gpus(std::uint32_t n) { s.mutable_gpus()->set_count(n); return *this; }
  StepBuilder& gres(std::uint32_t n) { auto* g = s.add_gres(); g->set_name("gpu"); g->set_count(n); return *this; }
};

// Two nodes with 4 CPUs and GPUs 0,1 each; the job runs 2 tasks on each.
std::vector<StepAllocNode> twoNodes() {
  return {{"node01", 4, {0, 1}, 2}, {"node02", 4, {0, 1}, 2}};
}

struct Want {
  std::string node;
  std::vector<std::uint32_t> ranks;
  std::uint32_t cpus;
  std::vector<std::uint32_t> gpus;
};

struct Case {
  std::string name;
  v1::StepSpec spec;
  std::map<std::string, StepNodeUse> used;
  std::vector<Want> want;     // empty = error expected
  std::string error;
};

std::vector<Case> cases() {
  using U = std::map<std::string, StepNodeUse>;
  return {
      // srun with no layout options in a batch job: the job's own tasks on all its nodes.
      {"as_job", StepBuilder().s, {}, {{"node01", {0, 1}, 4, {0, 1}}, {"node02", {2, 3}, 4, {0, 1}}}, ""},
      {"one_node", StepBuilder().nodes(1).s, {}, {{"node01", {0}, 4, {0, 1}}}, ""},
      // -n 3 spreads over both nodes; block keeps consecutive ranks together.
      {"block_3", StepBuilder().ntasks(3).s, {}, {{"node01", {0, 1}, 4, {0, 1}}, {"node02", {2}, 4, {0, 1}}}, ""},
      {"cyclic_3", StepBuilder().ntasks(3).dist("cyclic").s, {}, {{"node01", {0, 2}, 4, {0, 1}}, {"node02", {1}, 4, {0, 1}}}, ""},
      {"cyclic_first_level_only", StepBuilder().ntasks(4).dist("cyclic:block").s, {},
       {{"node01", {0, 2}, 4, {0, 1}}, {"node02", {1, 3}, 4, {0, 1}}}, ""},
      {"per_node_cyclic", StepBuilder().nodes(2).perNode(2).dist("cyclic").s, {},
       {{"node01", {0, 2}, 4, {0, 1}}, {"node02", {1, 3}, 4, {0, 1}}}, ""},
      // plane=4: ranks 0-3 fill node01 (4 CPUs), then 4-5 go to node02.
      {"plane_4", StepBuilder().ntasks(6).dist("plane=4").s, {},
       {{"node01", {0, 1, 2, 3}, 4, {0, 1}}, {"node02", {4, 5}, 4, {0, 1}}}, ""},
      {"plane_2", StepBuilder().ntasks(6).dist("plane=2").s, {},
       {{"node01", {0, 1, 4, 5}, 4, {0, 1}}, {"node02", {2, 3}, 4, {0, 1}}}, ""},
      // Fewer tasks than -N: as many nodes as tasks.
      {"fewer_tasks_than_nodes", StepBuilder().nodes(2).ntasks(1).s, {}, {{"node01", {0}, 4, {0, 1}}}, ""},
      {"nodelist", StepBuilder().w("node02").s, {}, {{"node02", {0}, 4, {0, 1}}}, ""},
      {"exclude", StepBuilder().x("node01").ntasks(2).s, {}, {{"node02", {0, 1}, 4, {0, 1}}}, ""},
      {"cpus_per_task", StepBuilder().ntasks(4).cpt(2).s, {},
       {{"node01", {0, 1}, 4, {0, 1}}, {"node02", {2, 3}, 4, {0, 1}}}, ""},
      {"gpus_per_node", StepBuilder().nodes(2).gpusPerNode(1).s, {},
       {{"node01", {0}, 4, {0}}, {"node02", {1}, 4, {0}}}, ""},
      {"gres_gpu", StepBuilder().nodes(1).gres(2).s, {}, {{"node01", {0}, 4, {0, 1}}}, ""},
      {"gres_gpu_none", StepBuilder().nodes(1).gres(0).s, {}, {{"node01", {0}, 4, {}}}, ""},
      {"gpus_per_task", StepBuilder().nodes(1).ntasks(2).gpusPerTask(1).s, {}, {{"node01", {0, 1}, 4, {0, 1}}}, ""},
      {"gpus_per_step", StepBuilder().nodes(2).gpus(3).s, {},
       {{"node01", {0}, 4, {0, 1}}, {"node02", {1}, 4, {0}}}, ""},
      // Exclusive steps take what other exclusive steps leave and only their own CPUs.
      {"exclusive_takes_free_node", StepBuilder().ntasks(1).exclusive().s,
       U{{"node01", {4, {}}}}, {{"node02", {0}, 1, {0, 1}}}, ""},
      {"exclusive_free_gpu", StepBuilder().nodes(1).w("node01").gpusPerNode(1).exclusive().s,
       U{{"node01", {1, {0}}}}, {{"node01", {0}, 1, {1}}}, ""},
      {"exclusive_busy", StepBuilder().ntasks(1).exclusive().s,
       U{{"node01", {4, {}}}, {"node02", {4, {}}}}, {}, kStepNodesBusy},
      {"exclusive_gpu_busy", StepBuilder().nodes(1).w("node01").gpusPerNode(2).exclusive().s,
       U{{"node01", {1, {0}}}}, {}, kStepNodesBusy},
      // A step without --exclusive shares with the exclusive ones.
      {"shared_ignores_exclusive", StepBuilder().nodes(1).s,
       U{{"node01", {4, {0, 1}}}}, {{"node01", {0}, 4, {0, 1}}}, ""},
      {"too_many_tasks", StepBuilder().ntasks(9).s, {}, {}, kStepTooManyProcessors},
      {"too_many_per_node", StepBuilder().nodes(2).ntasks(6).perNode(2).s, {}, {}, kStepTooManyProcessors},
      {"too_many_nodes", StepBuilder().nodes(3).s, {}, {}, kStepNodeConfigUnavailable},
      {"unknown_node", StepBuilder().w("node09").s, {}, {}, kStepNodeConfigUnavailable},
      {"listed_and_excluded", StepBuilder().w("node01").x("node01").s, {}, {}, kStepNodeConfigUnavailable},
      {"too_many_gpus", StepBuilder().nodes(1).gpusPerNode(3).s, {}, {}, kStepNodeConfigUnavailable},
      {"bad_distribution", StepBuilder().dist("diagonal").s, {}, {}, kStepBadDistribution},
      {"bad_plane", StepBuilder().dist("plane=0").s, {}, {}, kStepBadDistribution},
  };
}

TEST(StepLayoutTest, Table) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto got = layoutStep(twoNodes(), c.spec, c.used);
    if (c.want.empty()) {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.error(), c.error);
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error();
    ASSERT_EQ(got->nodes.size(), c.want.size());
    std::uint32_t total = 0;
    for (std::size_t k = 0; k < c.want.size(); ++k) {
      const auto& n = got->nodes[k];
      EXPECT_EQ(n.node(), c.want[k].node);
      EXPECT_EQ(std::vector<std::uint32_t>(n.ranks().begin(), n.ranks().end()), c.want[k].ranks);
      EXPECT_EQ(n.cpus(), c.want[k].cpus);
      EXPECT_EQ(std::vector<std::uint32_t>(n.gpu_indices().begin(), n.gpu_indices().end()),
                c.want[k].gpus);
      total += static_cast<std::uint32_t>(n.ranks_size());
    }
    EXPECT_EQ(got->ntasks, total);
  }
}

TEST(StepLayoutTest, DistributionNames) {
  auto block = layoutStep(twoNodes(), StepBuilder().s, {});
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->distribution, "block");
  EXPECT_EQ(block->layout_name(), "Block");
  auto plane = layoutStep(twoNodes(), StepBuilder().ntasks(2).dist("plane=3").s, {});
  ASSERT_TRUE(plane.ok());
  EXPECT_EQ(plane->distribution, "plane");
  EXPECT_EQ(plane->plane_size, 3u);
  EXPECT_EQ(plane->layout_name(), "Plane");
  // plane=3 with 2 tasks fills node01 only.
  ASSERT_EQ(plane->nodes.size(), 1u);
  EXPECT_EQ(plane->job_index, std::vector<std::size_t>{0});
}

// Without -m, srun inside an allocation it did not make asks for cyclic where there are no more
// tasks than nodes and block otherwise; its own allocation's steps are block (the reference's
// -N2 job: srun -n1, -n2, -N1 -n1 Cyclic; -n3, -n4, srun alone Block; standalone srun -N2 -n2
// Block). -m stands.
TEST(StepLayoutTest, DefaultDistributionInsideAnAllocation) {
  struct Row {
    std::string name;
    StepBuilder step;
    std::string want;
  };
  const std::vector<Row> rows = {
      {"-n1", StepBuilder().inAllocation().ntasks(1), "cyclic"},
      {"-n2", StepBuilder().inAllocation().ntasks(2), "cyclic"},
      {"-N1 -n1", StepBuilder().inAllocation().nodes(1).ntasks(1), "cyclic"},
      {"-n3", StepBuilder().inAllocation().ntasks(3), "block"},
      {"the job's own tasks", StepBuilder().inAllocation(), "block"},
      {"-n2 -m block", StepBuilder().inAllocation().ntasks(2).dist("block"), "block"},
      {"its own allocation, -N2 -n2", StepBuilder().nodes(2).ntasks(2), "block"},
  };
  for (const Row& r : rows) {
    auto got = layoutStep(twoNodes(), r.step.s, {});
    ASSERT_TRUE(got.ok()) << r.name << ": " << got.error();
    EXPECT_EQ(got->distribution, r.want) << r.name;
  }
}

}  // namespace
}  // namespace drover::jobs
