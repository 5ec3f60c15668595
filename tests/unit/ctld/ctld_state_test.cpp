#include "ctld/ctld_state.h"

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
