// The multifactor priority's factors, one table each: job size (nodes and CPUs over the
// cluster, PriorityFavorSmall), association (account priorities, inherited), TRES (shares of
// the partition, weighted), and the sum the scheduler ranks by.
#include <gtest/gtest.h>

#include <functional>

#include "jobs/job_priority.h"

namespace drover::jobs {
namespace {

// 4 nodes x 16 CPUs x 64 GB x 8 GPUs; partition "small" holds node1 and node2.
config::ClusterConfig cluster() {
  config::ClusterConfig c;
  for (int i = 1; i <= 4; ++i) {
    config::NodeConfig n;
    n.name = "node" + std::to_string(i);
    n.cpus = 16;
    n.real_memory_mb = 65536;
    n.gpus.count = 8;
    c.nodes.push_back(n);
  }
  config::PartitionConfig all;
  all.name = "all";
  all.nodes = {"node1", "node2", "node3", "node4"};
  config::PartitionConfig small;
  small.name = "small";
  small.nodes = {"node1", "node2"};
  c.partitions = {all, small};
  auto& w = c.scheduler.priority;
  w.age = w.fairshare = w.partition = w.qos = 0;
  w.job_size = 1000;
  return c;
}

// Builder for requests.
class Req {
 public:
  Req& nodes(int n) { r_.minNodes = n; return *this; }
  Req& tasks(int n) { r_.ntasks = n; return *this; }
  Req& perNode(int n) { r_.ntasksPerNode = n; return *this; }
  Req& cpusPerTask(int n) { r_.cpusPerTask = n; return *this; }
  Req& gpus(int n) { r_.gpusPerJob = n; return *this; }
  Req& gpusPerNode(int n) { r_.gpusPerNode = n; return *this; }
  Req& memPerNode(std::int64_t mb) { r_.memPerNodeMb = mb; return *this; }
  Req& memPerCpu(std::int64_t mb) { r_.memPerCpuMb = mb; return *this; }
  Req& partition(const std::string& p) { r_.partition = p; return *this; }
  Req& account(const std::string& a) { r_.account = a; return *this; }
  const sched::JobRequest& get() const { return r_; }

 private:
  sched::JobRequest r_ = [] {
    sched::JobRequest r;
    r.partition = "all";
    return r;
  }();
};

TEST(JobTres, CountsWhatTheRequestAsksFor) {
  struct Case {
    std::string name;
    Req req;
    JobTres want;  // cpu, mem, node, gpu
  };
  const std::vector<Case> cases = {
      {"one task", Req(), {1, 1000, 1, 0}},
      {"tasks x cpus", Req().tasks(4).cpusPerTask(2), {8, 1000, 1, 0}},
      {"tasks per node sets nodes", Req().tasks(8).perNode(2), {8, 4000, 4, 0}},
      {"gpus per job", Req().gpus(3), {1, 1000, 1, 3}},
      {"gpus per node", Req().nodes(2).gpusPerNode(4), {1, 2000, 2, 8}},
      {"mem per node", Req().nodes(2).memPerNode(500), {1, 1000, 2, 0}},
      {"mem per cpu", Req().tasks(3).memPerCpu(100), {3, 300, 1, 0}},
  };
  for (const auto& c : cases) {
    JobTres t = jobTres(c.req.get(), 1000);
    EXPECT_EQ(t.cpu, c.want.cpu) << c.name;
    EXPECT_EQ(t.mem, c.want.mem) << c.name;
    EXPECT_EQ(t.node, c.want.node) << c.name;
    EXPECT_EQ(t.gpu, c.want.gpu) << c.name;
  }
}

TEST(JobSizeFactor, MeanOfNodeAndCpuSharesOrItsComplement) {
  const JobTres clusterTotals{64, 0, 4, 0};
  struct Case {
    std::string name;
    JobTres job;
    bool favor_small;
    double want;
  };
  const std::vector<Case> cases = {
      {"1 node 1 cpu", {1, 0, 1, 0}, false, (0.25 + 1.0 / 64) / 2},
      {"4 nodes 4 cpus (golden 084: 531)", {4, 0, 4, 0}, false, 0.53125},
      {"whole cluster", {64, 0, 4, 0}, false, 1.0},
      {"more than the cluster is capped", {128, 0, 8, 0}, false, 1.0},
      {"favor small: 1 node 1 cpu", {1, 0, 1, 0}, true, 1 - (0.25 + 1.0 / 64) / 2},
      {"favor small: whole cluster", {64, 0, 4, 0}, true, 0.0},
  };
  for (const auto& c : cases) {
    EXPECT_DOUBLE_EQ(jobSizeFactor(c.job, clusterTotals, c.favor_small), c.want) << c.name;
  }
}

TEST(ShareTable, AssociationIdsNumberTheTreeWalkFromOne) {
  // sshare -o ID: the reference's tree (root, root/root, research, research/alice,
  // research/bob, added in that order) printed ids 1-5 in sshare's row order; Drover's ids are
  // that walk's order, also for a deeper tree (users before child accounts).
  config::ClusterConfig config;
  config::AccountConfig research;
  research.name = "research";
  research.users = {"bob", "alice"};
  config::AccountConfig lab;
  lab.name = "lab";
  lab.parent = "research";
  lab.users = {"carol"};
  config.accounts = {research, lab};
  ShareTable table(config, {});
  std::vector<std::string> walk;
  for (const ShareRow& r : table.rows()) {
    walk.push_back(std::to_string(r.id) + ":" + r.account + "/" + r.user);
  }
  EXPECT_EQ(walk, (std::vector<std::string>{"1:root/", "2:root/root", "3:research/", "4:research/alice",
                                            "5:research/bob", "6:lab/", "7:lab/carol"}));
}

TEST(AssocFactors, AccountPriorityOverTheHighestInheritedDownTheTree) {
  auto acct = [](std::string name, std::string parent, std::int64_t priority) {
    config::AccountConfig a;
    a.name = std::move(name);
    a.parent = std::move(parent);
    a.priority = priority;
    return a;
  };
  struct Case {
    std::string name;
    std::vector<config::AccountConfig> accounts;
    std::map<std::string, double> want;
  };
  const std::vector<Case> cases = {
      {"none set", {acct("a", "", -1), acct("b", "", -1)}, {}},
      {"all zero", {acct("a", "", 0)}, {}},
      {"relative to the highest", {acct("a", "", 100), acct("b", "", 50), acct("c", "", -1)},
       {{"a", 1.0}, {"b", 0.5}, {"c", 0.0}}},
      {"inherited from the nearest ancestor",
       {acct("top", "", 80), acct("mid", "top", -1), acct("leaf", "mid", -1),
        acct("own", "top", 40)},
       {{"top", 1.0}, {"mid", 1.0}, {"leaf", 1.0}, {"own", 0.5}}},
  };
  for (const auto& c : cases) {
    config::ClusterConfig config;
    config.accounts = c.accounts;
    EXPECT_EQ(assocFactors(config), c.want) << c.name;
  }
}

class PriorityCalculatorTest : public ::testing::Test {
 protected:
  PriorityFactors compute(const sched::JobRequest& r) {
    ShareTable shares(config_, {});
    PriorityCalculator calc(config_, partitions_, 64, shares);
    return calc.compute(r, 1'000'000);
  }
  config::ClusterConfig config_ = cluster();
  std::vector<sched::Partition> partitions_ = [] {
    sched::Partition a, s;
    a.name = "all";
    s.name = "small";
    return std::vector<sched::Partition>{a, s};
  }();
};

TEST_F(PriorityCalculatorTest, TresSharesOfThePartitionAreWeightedAndSummed) {
  config_.scheduler.priority.job_size = 0;
  config_.scheduler.priority.tres = {{"cpu", 1000}, {"mem", 2000}, {"node", 100},
                                     {"gres/gpu", 3000}};
  struct Case {
    std::string name;
    Req req;
    std::vector<double> shares;  // cpu, mem, node, gres/gpu
  };
  const std::vector<Case> cases = {
      // "all": 64 CPUs, 256 GB, 4 nodes, 32 GPUs.
      {"all: 8 cpus 2 gpus", Req().tasks(8).gpus(2), {0.125, 0.25, 0.25, 0.0625}},
      // "small": 32 CPUs, 128 GB, 2 nodes, 16 GPUs; no --mem = the whole node.
      {"small: 8 cpus 2 gpus", Req().partition("small").tasks(8).gpus(2),
       {0.25, 0.5, 0.5, 0.125}},
      {"small: capped at 1", Req().partition("small").nodes(4).gpusPerNode(8),
       {1.0 / 32, 1.0, 1.0, 1.0}},
  };
  for (const auto& c : cases) {
    PriorityFactors f = compute(c.req.get());
    ASSERT_EQ(f.tres.size(), 4u) << c.name;
    double sum = 0;
    const double weights[] = {1000, 2000, 100, 3000};
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_DOUBLE_EQ(f.tres[i].second, c.shares[i]) << c.name << " " << f.tres[i].first;
      sum += weights[i] * c.shares[i];
    }
    EXPECT_EQ(f.tres[3].first, "gres/gpu");
    EXPECT_EQ(f.priority, static_cast<std::int64_t>(sum)) << c.name;
  }
}

TEST_F(PriorityCalculatorTest, AssocAndJobSizeEnterThePriority) {
  config::AccountConfig vip;
  vip.name = "vip";
  vip.priority = 10;
  config::AccountConfig research;
  research.name = "research";
  research.priority = 5;
  config_.accounts = {vip, research};
  config_.scheduler.priority.assoc = 2000;
  struct Case {
    std::string name;
    Req req;
    bool favor_small;
    double assoc;
    std::int64_t priority;
  };
  const std::vector<Case> cases = {
      {"vip, 1 cpu", Req().account("vip"), false, 1.0, 2000 + 132},
      {"research, 4 nodes 64 cpus", Req().account("research").nodes(4).tasks(64), false, 0.5,
       1000 + 1000},
      {"unknown account", Req().account("other"), false, 0.0, 132},
      {"favor small", Req().account("other"), true, 0.0, 867},
  };
  for (const auto& c : cases) {
    config_.scheduler.priority.favor_small = c.favor_small;
    PriorityFactors f = compute(c.req.get());
    EXPECT_DOUBLE_EQ(f.assoc, c.assoc) << c.name;
    EXPECT_EQ(f.priority, c.priority) << c.name;
    EXPECT_TRUE(f.tres.empty()) << c.name;
  }
}

// The QOS factor: the job's QOS priority over the highest of the table, as the reference's sprio
// showed (high 100 -> 1.0, vip 50 -> 0.5, normal 0 -> 0), times weight_qos.
TEST_F(PriorityCalculatorTest, QosPriorityOverTheHighestTimesItsWeight) {
  auto qos = [](std::string name, std::uint32_t priority) {
    config::QosConfig q;
    q.name = std::move(name);
    q.priority = priority;
    return q;
  };
  config_.scheduler.priority.job_size = 0;
  config_.scheduler.priority.qos = 1000;
  EXPECT_TRUE(qosFactors(config_).empty());  // normal alone, priority 0
  config_.qos.push_back(qos("high", 100));
  config_.qos.push_back(qos("vip", 50));
  auto of = [&](const std::string& name) {
    sched::JobRequest r = Req().get();
    r.qos = name;
    return compute(r);
  };
  EXPECT_DOUBLE_EQ(of("high").qos, 1.0);
  EXPECT_EQ(of("high").priority, 1000);
  EXPECT_EQ(of("vip").priority, 500);
  EXPECT_EQ(of("normal").priority, 0);
  EXPECT_EQ(of("gone").priority, 0);  // a QOS no longer configured
}

// The cluster.conf keys behind these factors (and ResvOverRun): parsed, or refused by name.
TEST(PriorityConfig, KeysParseOrAreRefusedByName) {
  const std::string head =
      "cluster_name: c\n"
      "nodes:\n  - names: n[1-2]\n    address: 10.0.0.1\n    port: 7001-7002\n"
      "partitions:\n  - name: p\n    nodes: ALL\n";
  struct Case {
    std::string name;
    std::string tail;
    std::string error;  // "" = parses
    std::function<void(const config::ClusterConfig&)> check;
  };
  const std::vector<Case> cases = {
      {"defaults", "", "",
       [](const config::ClusterConfig& c) {
         EXPECT_EQ(c.scheduler.priority.assoc, 0u);
         EXPECT_TRUE(c.scheduler.priority.tres.empty());
         EXPECT_FALSE(c.scheduler.priority.favor_small);
         EXPECT_EQ(c.scheduler.resv_over_run_s, 0);
       }},
      {"weights", "scheduler:\n  resv_over_run: 5\n  priority:\n    weight_assoc: 7\n"
                  "    weight_tres: CPU=1000,Mem=-20,gres/gpu=3000\n    favor_small: true\n",
       "",
       [](const config::ClusterConfig& c) {
         EXPECT_EQ(c.scheduler.priority.assoc, 7u);
         using W = std::vector<std::pair<std::string, std::int64_t>>;
         EXPECT_EQ(c.scheduler.priority.tres, (W{{"cpu", 1000}, {"mem", -20}, {"gres/gpu", 3000}}));
         EXPECT_TRUE(c.scheduler.priority.favor_small);
         EXPECT_EQ(c.scheduler.resv_over_run_s, 300);  // minutes, as Slurm's ResvOverRun
       }},
      {"over-run unlimited", "scheduler:\n  resv_over_run: UNLIMITED\n", "",
       [](const config::ClusterConfig& c) { EXPECT_EQ(c.scheduler.resv_over_run_s, -1); }},
      {"account priority", "accounts:\n  - name: a\n    priority: 9\n  - name: b\n", "",
       [](const config::ClusterConfig& c) {
         ASSERT_EQ(c.accounts.size(), 2u);
         EXPECT_EQ(c.accounts[0].priority, 9);
         EXPECT_EQ(c.accounts[1].priority, -1);
       }},
      {"unknown TRES", "scheduler:\n  priority:\n    weight_tres: billing=5\n",
       "'billing=5' is not TRES=weight for a TRES Drover counts", nullptr},
      {"bad weight", "scheduler:\n  priority:\n    weight_tres: cpu=lots\n",
       "weight 'lots' of cpu is not an integer", nullptr},
      {"negative account priority", "accounts:\n  - name: a\n    priority: -1\n",
       "accounts[0].priority", nullptr},
  };
  for (const auto& c : cases) {
    auto parsed = config::parseClusterConfig(head + c.tail, "t.conf");
    if (c.error.empty()) {
      ASSERT_TRUE(parsed.ok()) << c.name << ": " << parsed.error();
      c.check(*parsed);
    } else {
      ASSERT_FALSE(parsed.ok()) << c.name;
      EXPECT_NE(parsed.error().find(c.error), std::string::npos) << c.name << ": " << parsed.error();
    }
  }
}

}  // namespace
}  // namespace drover::jobs
