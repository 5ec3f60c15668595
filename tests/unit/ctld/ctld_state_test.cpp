#include "ctld/ctld_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/clock.h"

namespace drover::ctld {
namespace {

std::string clusterYaml(int nodes) {
  return "cluster_name: unit\n"
         "controller: {host: 127.0.0.1, port: 29817, state_dir: state}\n"
         "timeouts: {heartbeat_interval: 1, node_down: 5}\n"
         "nodes:\n"
         "  - names: node[1-" + std::to_string(nodes) + "]\n"
         "    address: 127.0.0.1\n"
         "    port: 29830-" + std::to_string(29829 + nodes) + "\n"
         "    cpus: 16\n"
         "    sockets: 2\n"
         "    real_memory: 64G\n"
         "    gpus: {type: h100, count: 8}\n"
         "partitions:\n"
         "  - {name: gpu, nodes: ALL, default: true, max_time: 1-00:00:00}\n"
         "  - {name: debug, nodes: node1, max_time: 30}\n";
}

class CtldStateTest : public ::testing::Test {
 protected:
  CtldStateTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("drover-ctld-state-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    conf_ = (dir_ / "cluster.conf").string();
    write(clusterYaml(3));
  }
  ~CtldStateTest() override { std::filesystem::remove_all(dir_); }

  void write(const std::string& text) { std::ofstream(conf_) << text; }

  std::unique_ptr<CtldState> start() {
    auto cfg = config::loadClusterConfig(conf_);
    EXPECT_TRUE(cfg) << cfg.error();
    if (!store_) {
      auto s = StateStore::open(cfg->controller.state_dir);
      EXPECT_TRUE(s) << s.error();
      store_ = std::move(s).value();
    }
    auto st = std::make_unique<CtldState>(std::move(cfg).value(), clock_, store_.get(), "root");
    EXPECT_TRUE(st->init());
    return st;
  }

  // node1's agent registers as configured: 16 CPUs, 64 GiB, 8 GPUs.
  static bool registerNode1(CtldState& st) {
    Registration reg;
    reg.node_name = "node1";
    reg.resources.cpus = 16;
    reg.resources.real_memory_mb = 65536;
    for (std::uint32_t i = 0; i < 8; ++i) reg.resources.gpus.push_back({i, "h100", ""});
    return st.registerAgent(reg).ok();
  }

  std::filesystem::path dir_;
  std::string conf_;
  FakeClock clock_;
  std::unique_ptr<StateStore> store_;
};

TEST_F(CtldStateTest, NodeInfoCarriesGresPartitionsAndState) {
  auto st = start();
  v1::GetNodesReply rep;
  ASSERT_TRUE(st->fillNodes({"node1"}, &rep));
  ASSERT_EQ(rep.nodes_size(), 1);
  const auto& n = rep.nodes(0);
  EXPECT_EQ(n.name(), "node1");
  EXPECT_EQ(n.gres(), "gpu:h100:8");
  EXPECT_EQ(n.state(), v1::NODE_UNKNOWN);
  EXPECT_TRUE(n.not_responding());
  ASSERT_EQ(n.partitions_size(), 2);
  EXPECT_EQ(n.partitions(0), "gpu");
  EXPECT_EQ(n.partitions(1), "debug");
  EXPECT_EQ(n.configured().cpus(), 16u);
  EXPECT_EQ(n.configured().real_memory_mb(), 65536u);
  EXPECT_EQ(rep.time(), clock_.now());
  EXPECT_FALSE(st->fillNodes({"node9"}, &rep));
}

// Root, and the users cluster.conf names as operators, by the caller's name as the controller
// looked it up for the call (the same rule the job manager applies to the job RPCs).
TEST_F(CtldStateTest, OperatorsAreRootAndTheNamedUsers) {
  write("operators: [daemon]\n" + clusterYaml(1));
  auto st = start();
  EXPECT_TRUE(st->isOperator(0));
  EXPECT_FALSE(st->isOperator(1));  // daemon's name not looked up yet: no rights by its uid
  NameQuery query;
  query.uids = {1, 2, 424242};
  st->names().resolve(query);
  EXPECT_TRUE(st->isOperator(1));   // daemon (uid 1 on Debian)
  EXPECT_FALSE(st->isOperator(2));  // bin
  EXPECT_FALSE(st->isOperator(424242));
}

TEST_F(CtldStateTest, PartitionTotals) {
  auto st = start();
  v1::GetPartitionsReply rep;
  ASSERT_TRUE(st->fillPartitions({}, &rep));
  ASSERT_EQ(rep.partitions_size(), 2);
  const auto& gpu = rep.partitions(0);
  EXPECT_EQ(gpu.name(), "gpu");
  EXPECT_TRUE(gpu.is_default());
  EXPECT_EQ(gpu.nodes(), "node[1-3]");
  EXPECT_EQ(gpu.total_nodes(), 3u);
  EXPECT_EQ(gpu.total_cpus(), 48u);
  EXPECT_EQ(gpu.total_gpus(), 24u);
  EXPECT_EQ(gpu.total_memory_mb(), 3u * 65536u);
  EXPECT_EQ(gpu.max_time_min(), 1440);
  EXPECT_EQ(gpu.state(), "UP");
  EXPECT_FALSE(st->fillPartitions({"nope"}, &rep));
}

TEST_F(CtldStateTest, AdminDrainIsPersistedAndRestored) {
  {
    auto st = start();
    EXPECT_FALSE(st->updateNode("node[1-2]", "drain", "", "root"));
    ASSERT_TRUE(st->updateNode("node[1-2]", "drain", "disk swap", "root"));
    ASSERT_TRUE(st->updateNode("node3", "down", "psu", "root"));
    ASSERT_TRUE(st->updateNode("node3", "resume", "", "root"));
  }
  auto st = start();   // a restarted controller
  v1::GetNodesReply rep;
  ASSERT_TRUE(st->fillNodes({}, &rep));
  ASSERT_EQ(rep.nodes_size(), 3);
  EXPECT_TRUE(rep.nodes(0).drain());
  EXPECT_EQ(rep.nodes(0).reason(), "disk swap");
  EXPECT_EQ(rep.nodes(0).reason_user(), "root");
  EXPECT_TRUE(rep.nodes(1).drain());
  EXPECT_FALSE(rep.nodes(2).drain());
  EXPECT_EQ(rep.nodes(2).reason(), "");
}

TEST_F(CtldStateTest, BadStateAndBadHostlistAreRejected) {
  auto st = start();
  EXPECT_FALSE(st->updateNode("node1", "sleepy", "x", "root"));
  EXPECT_FALSE(st->updateNode("node[1-", "drain", "x", "root"));
  EXPECT_FALSE(st->updateNode("node1", "", "x", "root"));
}

TEST_F(CtldStateTest, ReconfigureAddsNodesAndKeepsState) {
  auto st = start();
  ASSERT_TRUE(registerNode1(*st));
  write(clusterYaml(4));
  auto r = st->reconfigure("");
  ASSERT_TRUE(r) << r.error();
  EXPECT_NE(r->find("added node4"), std::string::npos) << *r;
  v1::GetNodesReply rep;
  ASSERT_TRUE(st->fillNodes({}, &rep));
  ASSERT_EQ(rep.nodes_size(), 4);
  EXPECT_EQ(rep.nodes(0).state(), v1::NODE_IDLE);
  EXPECT_EQ(rep.nodes(3).state(), v1::NODE_UNKNOWN);
}

TEST_F(CtldStateTest, InvalidReconfigureKeepsOldConfig) {
  auto st = start();
  write(clusterYaml(3) + "bogus_key: 1\n");
  auto r = st->reconfigure("");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find(conf_ + ":"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("bogus_key"), std::string::npos) << r.error();
  EXPECT_EQ(st->config().nodes.size(), 3u);
  v1::GetNodesReply rep;
  ASSERT_TRUE(st->fillNodes({}, &rep));
  EXPECT_EQ(rep.nodes_size(), 3);
}

// scontrol setdebug N, then -1: the level the daemon started at again.
TEST_F(CtldStateTest, DebugLevelSetAndPutBack) {
  auto st = start();
  const int started = st->debugLevel();
  st->resetDebugLevel();  // never changed: nothing to put back
  EXPECT_EQ(st->debugLevel(), started);
  st->setDebugLevel(7);
  EXPECT_EQ(st->debugLevel(), 7);
  st->setDebugLevel(5);
  st->resetDebugLevel();
  EXPECT_EQ(st->debugLevel(), started);
}

// scontrol update PartitionName=: each field given changes, the others stay, until a
// reconfigure reads cluster.conf again (as the reference's, without slurmctld -R).
TEST_F(CtldStateTest, UpdatePartitionChangesTheRunningConfigurationUntilReconfigure) {
  auto st = start();
  v1::UpdatePartitionRequest req;
  req.set_name("debug");
  req.set_state("DOWN");
  req.set_max_time_min(45);
  req.set_nodes("node[1-2],node2");
  req.set_is_default(true);
  req.set_allow_accounts("research,,ops");
  req.set_priority_tier(3);
  ASSERT_TRUE(st->updatePartition(req, "root"));
  const auto* debug = st->config().findPartition("debug");
  ASSERT_NE(debug, nullptr);
  EXPECT_EQ(debug->state, config::PartitionState::kDown);
  EXPECT_EQ(debug->max_time_min, 45);
  EXPECT_EQ(debug->nodes, (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(debug->allow_accounts, (std::vector<std::string>{"research", "ops"}));
  EXPECT_EQ(debug->priority_tier, 3u);
  EXPECT_EQ(debug->priority_job_factor, 1u);  // not given: unchanged
  EXPECT_EQ(st->config().defaultPartition(), debug);  // gpu lost it
  v1::GetPartitionsReply parts;
  ASSERT_TRUE(st->fillPartitions({"debug"}, &parts));
  ASSERT_EQ(parts.partitions_size(), 1);
  EXPECT_EQ(parts.partitions(0).state(), "DOWN");

  // Default=NO leaves none; Nodes=ALL is every node; Nodes= none.
  v1::UpdatePartitionRequest none;
  none.set_name("debug");
  none.set_is_default(false);
  none.set_nodes("ALL");
  ASSERT_TRUE(st->updatePartition(none, "root"));
  EXPECT_EQ(st->config().defaultPartition(), nullptr);
  EXPECT_EQ(st->config().findPartition("debug")->nodes.size(), 3u);
  none.clear_is_default();
  none.set_nodes("");
  ASSERT_TRUE(st->updatePartition(none, "root"));
  EXPECT_TRUE(st->config().findPartition("debug")->nodes.empty());

  // Refusals in the reference's words change nothing.
  v1::UpdatePartitionRequest bad;
  bad.set_name("nosuch");
  bad.set_state("UP");
  auto r = st->updatePartition(bad, "root");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "Invalid partition name specified");
  bad.set_name("debug");
  bad.set_nodes("node[3-9]");
  r = st->updatePartition(bad, "root");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "Invalid node name specified");
  EXPECT_EQ(st->config().findPartition("debug")->state, config::PartitionState::kDown);

  ASSERT_TRUE(st->reconfigure(""));
  debug = st->config().findPartition("debug");
  EXPECT_EQ(debug->state, config::PartitionState::kUp);
  EXPECT_EQ(debug->max_time_min, 30);
  EXPECT_EQ(st->config().defaultPartition(), st->config().findPartition("gpu"));
}

// scontrol create and delete PartitionName=: a new partition of cluster.conf's defaults and
// the fields given; an existing or unusable name refused, as the reference's.
TEST_F(CtldStateTest, CreateAndDeletePartition) {
  auto st = start();
  v1::UpdatePartitionRequest req;
  req.set_action(v1::UpdatePartitionRequest::CREATE);
  req.set_name("extra");
  req.set_nodes("node3");
  req.set_max_time_min(20);
  ASSERT_TRUE(st->updatePartition(req, "root"));
  const auto* extra = st->config().findPartition("extra");
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(extra->nodes, std::vector<std::string>{"node3"});
  EXPECT_EQ(extra->max_time_min, 20);
  EXPECT_EQ(extra->default_time_min, config::kUnlimited);
  EXPECT_EQ(extra->state, config::PartitionState::kUp);
  EXPECT_FALSE(extra->is_default);
  v1::GetNodesReply nodes;
  ASSERT_TRUE(st->fillNodes({"node3"}, &nodes));
  EXPECT_THAT(nodes.nodes(0).partitions(), ::testing::Contains("extra"));

  for (const char* name : {"extra", "gpu", "", "a,b"}) {
    req.set_name(name);
    auto r = st->updatePartition(req, "root");
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error(), "Invalid partition name specified");
  }

  v1::UpdatePartitionRequest drop;
  drop.set_action(v1::UpdatePartitionRequest::DELETE);
  drop.set_name("extra");
  ASSERT_TRUE(st->updatePartition(drop, "root"));
  EXPECT_EQ(st->config().findPartition("extra"), nullptr);
  auto again = st->updatePartition(drop, "root");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), "Invalid partition name specified");
}

// ALLOCATED once every CPU is allocated, else MIXED: the reference's node held whole by memory
// (--mem=0) or GPUs (--gres=gpu:8) with one CPU was MIXED.
TEST_F(CtldStateTest, AllocatedIsByCpusAlone) {
  auto st = start();
  ASSERT_TRUE(registerNode1(*st));
  NodeUsage usage;
  st->setUsageSource([&] { return std::map<std::string, NodeUsage>{{"node1", usage}}; });
  auto stateOf = [&] {
    v1::GetNodesReply rep;
    EXPECT_TRUE(st->fillNodes({"node1"}, &rep));
    return rep.nodes(0).state();
  };
  usage.cpus = 1;
  usage.memory_mb = 65536;
  usage.gpus = 8;
  EXPECT_EQ(stateOf(), v1::NODE_MIXED);
  usage.cpus = 16;
  usage.memory_mb = 0;
  usage.gpus = 0;
  EXPECT_EQ(stateOf(), v1::NODE_ALLOCATED);
}

TEST(GresString, Table) {
  EXPECT_EQ(gresString("", 0), "");
  EXPECT_EQ(gresString("", 8), "gpu:8");
  EXPECT_EQ(gresString("h100", 4), "gpu:h100:4");
}

}  // namespace
}  // namespace drover::ctld
