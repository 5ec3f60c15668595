#include "ctld/node_registry.h"

#include <gtest/gtest.h>

#include <chrono>

#include "common/clock.h"

namespace drover::ctld {
namespace {

using std::chrono::seconds;

config::NodeConfig makeNode(const std::string& name, std::uint32_t cpus = 16,
                            std::uint64_t mem = 65536, std::uint32_t gpus = 8) {
  config::NodeConfig n;
  n.name = name;
  n.address = "127.0.0.1";
  n.cpus = cpus;
  n.sockets = 2;
  n.cores_per_socket = cpus / 2;
  n.real_memory_mb = mem;
  n.gpus.count = gpus;
  return n;
}

config::ClusterConfig makeCluster(const std::vector<std::string>& names) {
  config::ClusterConfig c;
  c.cluster_name = "test";
  for (const auto& n : names) c.nodes.push_back(makeNode(n));
  return c;
}

Registration makeReg(const std::string& name, std::uint32_t cpus = 16, std::uint64_t mem = 65536,
                     std::uint32_t gpus = 8) {
  Registration r;
  r.node_name = name;
  r.address = "127.0.0.1";
  r.port = 7818;
  r.resources.cpus = cpus;
  r.resources.real_memory_mb = mem;
  for (std::uint32_t i = 0; i < gpus; ++i) r.resources.gpus.push_back({i, "", ""});
  return r;
}

class NodeRegistryTest : public ::testing::Test {
 protected:
  NodeRegistryTest() : registry_(clock_, "root") {
    registry_.applyConfig(makeCluster({"node1", "node2", "node3"}));
  }
  const NodeRecord& node(const std::string& name) { return *registry_.find(name); }

  FakeClock clock_;
  NodeRegistry registry_;
};

TEST_F(NodeRegistryTest, NodesStartUnknownNotResponding) {
  EXPECT_EQ(registry_.size(), 3u);
  EXPECT_EQ(node("node1").base, BaseState::kUnknown);
  EXPECT_TRUE(node("node1").not_responding);
  EXPECT_EQ(stateString(node("node1")), "UNKNOWN*");
}

TEST_F(NodeRegistryTest, RegistrationMakesNodeIdle) {
  auto changes = registry_.registerAgent(makeReg("node1"));
  ASSERT_TRUE(changes);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].from, "UNKNOWN*");
  EXPECT_EQ((*changes)[0].to, "IDLE");
  EXPECT_EQ(node("node1").base, BaseState::kIdle);
  EXPECT_FALSE(node("node1").not_responding);
  EXPECT_FALSE(node("node1").drain);
  EXPECT_EQ(node("node1").last_busy_time, clock_.now());
}

TEST_F(NodeRegistryTest, UnconfiguredNodeCannotRegister) {
  auto r = registry_.registerAgent(makeReg("ghost"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("ghost"), std::string::npos);
}

TEST(ShortfallReason, Table) {
  struct Case {
    std::string name;
    std::uint32_t cpus;
    std::uint64_t mem;
    std::uint32_t gpus;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"enough", 16, 65536, 8, ""},
      {"more than configured", 32, 131072, 8, ""},
      {"low memory", 16, 32000, 8,
       "Low RealMemory (reported:32000 < 100.00% of configured:65536)"},
      {"low cpus", 8, 65536, 8, "Low CPUs (reported:8 < configured:16)"},
      {"no gpus", 16, 65536, 0, "gres/gpu count reported lower than configured (0 < 8)"},
      {"cpus and memory", 4, 1000, 8,
       "Low CPUs (reported:4 < configured:16), "
       "Low RealMemory (reported:1000 < 100.00% of configured:65536)"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(shortfallReason(makeNode("n"), makeReg("n", c.cpus, c.mem, c.gpus).resources),
              c.want)
        << c.name;
  }
}

TEST_F(NodeRegistryTest, LowResourcesDrainWithReason) {
  auto changes = registry_.registerAgent(makeReg("node2", 16, 32000));
  ASSERT_TRUE(changes);
  const auto& n = node("node2");
  EXPECT_EQ(n.base, BaseState::kIdle);
  EXPECT_TRUE(n.drain);
  EXPECT_EQ(n.reason, "Low RealMemory (reported:32000 < 100.00% of configured:65536)");
  EXPECT_EQ(n.reason_user, "root");
  EXPECT_EQ(stateString(n), "IDLE+DRAIN");
  // A system drain is not an admin state: nothing to persist.
  EXPECT_FALSE(registry_.adminStateOf(n).drain);
}

TEST_F(NodeRegistryTest, SilentNodeGoesDownAndReturnsWhenAgentRegistersAgain) {
  for (const char* name : {"node1", "node2", "node3"}) {
    ASSERT_TRUE(registry_.registerAgent(makeReg(name)));
  }
  clock_.advance(seconds(5));
  EXPECT_TRUE(registry_.heartbeat("node1", 0.5, 1000, nullptr));
  clock_.advance(seconds(5));
  EXPECT_TRUE(registry_.heartbeat("node2", 0.5, 1000, nullptr));
  EXPECT_TRUE(registry_.heartbeat("node3", 0.5, 1000, nullptr));
  clock_.advance(seconds(5));
  EXPECT_TRUE(registry_.checkTimeouts(10).changes.empty())
      << "exactly at the limit is still alive";
  clock_.advance(seconds(1));
  auto down = registry_.checkTimeouts(10).changes;
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0].node, "node1");
  EXPECT_EQ(down[0].to, "DOWN*");
  EXPECT_EQ(down[0].reason, "Not responding");
  EXPECT_TRUE(registry_.checkTimeouts(10).changes.empty()) << "a change is reported once";
  // Its next heartbeat is told to register again, which brings it back.
  EXPECT_FALSE(registry_.heartbeat("node1", 0, 0, nullptr));
  auto back = registry_.registerAgent(makeReg("node1"));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].to, "IDLE");
  EXPECT_EQ(node("node1").reason, "");
}

TEST_F(NodeRegistryTest, AStalledControllerRestartsEveryNodesSilenceInsteadOfBlamingIt) {
  for (const char* name : {"node1", "node2", "node3"}) {
    ASSERT_TRUE(registry_.registerAgent(makeReg(name)));
  }
  // Checks every 2 s, as the controller's timer does, while all three answer.
  for (int i = 0; i < 3; ++i) {
    clock_.advance(seconds(2));
    for (const char* name : {"node1", "node2", "node3"}) registry_.heartbeat(name, 0, 0, nullptr);
    EXPECT_TRUE(registry_.checkTimeouts(10).changes.empty());
  }
  // The controller stops for 30 s: the first check after it sees every node silent for 30 s,
  // which is the controller's doing, not theirs.
  clock_.advance(seconds(30));
  auto after_stall = registry_.checkTimeouts(10);
  EXPECT_EQ(after_stall.stalled_s, 30);
  EXPECT_TRUE(after_stall.changes.empty()) << "no node is blamed for the controller's stall";
  // node1 and node2 answer again; node3 really died. Its silence counts from the stall's end.
  for (int t = 2; t <= 10; t += 2) {
    clock_.advance(seconds(2));
    registry_.heartbeat("node1", 0, 0, nullptr);
    registry_.heartbeat("node2", 0, 0, nullptr);
    auto check = registry_.checkTimeouts(10);
    EXPECT_EQ(check.stalled_s, 0);
    EXPECT_TRUE(check.changes.empty()) << t << " s after the stall";
  }
  clock_.advance(seconds(1));
  auto down = registry_.checkTimeouts(10);
  ASSERT_EQ(down.changes.size(), 1u);
  EXPECT_EQ(down.changes[0].node, "node3");
  EXPECT_EQ(down.changes[0].to, "DOWN*");
}

TEST_F(NodeRegistryTest, ChecksCloserThanHalfTheTimeoutAreNoStall) {
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  registry_.checkTimeouts(10);
  clock_.advance(seconds(5));
  EXPECT_EQ(registry_.checkTimeouts(10).stalled_s, 0);
  clock_.advance(seconds(5));
  EXPECT_EQ(registry_.checkTimeouts(10).stalled_s, 0);
  clock_.advance(seconds(1));
  auto check = registry_.checkTimeouts(10);
  EXPECT_EQ(check.stalled_s, 0);
  // node2 and node3 never registered: they go down with it.
  ASSERT_EQ(check.changes.size(), 3u) << "silent for 11 s while checked every 5 s";
  EXPECT_EQ(check.changes[0].node, "node1");
  EXPECT_EQ(check.changes[0].to, "DOWN*");
}

TEST_F(NodeRegistryTest, NeverRegisteredNodeGoesDownAfterTimeout) {
  clock_.advance(seconds(11));
  auto down = registry_.checkTimeouts(10).changes;
  EXPECT_EQ(down.size(), 3u);
  EXPECT_EQ(node("node3").base, BaseState::kDown);
  EXPECT_EQ(node("node3").reason, "Not responding");
}

TEST_F(NodeRegistryTest, UnregisteredHeartbeatAsksForRegistration) {
  EXPECT_FALSE(registry_.heartbeat("node1", 0, 0, nullptr));
  EXPECT_FALSE(registry_.heartbeat("ghost", 0, 0, nullptr));
}

TEST_F(NodeRegistryTest, DrainAndDownNeedReason) {
  for (auto kind : {UpdateKind::kDrain, UpdateKind::kDown}) {
    auto r = registry_.adminUpdate({"node1"}, kind, "", "root");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(),
              "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
}

TEST_F(NodeRegistryTest, UnknownNodeNameRejected) {
  auto r = registry_.adminUpdate({"node1", "nodeX"}, UpdateKind::kDrain, "x", "root");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("nodeX"), std::string::npos);
  EXPECT_FALSE(node("node1").drain) << "nothing applied when one name is bad";
}

TEST_F(NodeRegistryTest, AdminDrainSurvivesReregistrationUntilResume) {
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  auto d = registry_.adminUpdate({"node1"}, UpdateKind::kDrain, "maintenance", "alice");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->size(), 1u);
  EXPECT_TRUE((*d)[0].admin);
  EXPECT_EQ((*d)[0].to, "IDLE+DRAIN");
  EXPECT_EQ(node("node1").reason_user, "alice");
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  EXPECT_TRUE(node("node1").drain);
  EXPECT_EQ(node("node1").reason, "maintenance");
  AdminState saved = registry_.adminStateOf(node("node1"));
  EXPECT_TRUE(saved.drain);
  EXPECT_EQ(saved.reason, "maintenance");
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kResume, "", "root"));
  EXPECT_FALSE(node("node1").drain);
  EXPECT_EQ(node("node1").reason, "");
  EXPECT_EQ(stateString(node("node1")), "IDLE");
}

TEST_F(NodeRegistryTest, AdminDownStaysDownWhenAgentReturns) {
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kDown, "bad dimm", "root"));
  EXPECT_EQ(node("node1").base, BaseState::kDown);
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  EXPECT_EQ(node("node1").base, BaseState::kDown);
  EXPECT_TRUE(registry_.heartbeat("node1", 0, 0, nullptr));
  EXPECT_EQ(node("node1").base, BaseState::kDown);
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kResume, "", "root"));
  EXPECT_EQ(node("node1").base, BaseState::kIdle);
}

TEST_F(NodeRegistryTest, ResumeOfIdleNodeIsInvalid) {
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  auto r = registry_.adminUpdate({"node1"}, UpdateKind::kResume, "", "root");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("Invalid node state specified"), std::string::npos);
}

TEST_F(NodeRegistryTest, UndrainKeepsDown) {
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kDown, "x", "root"));
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kDrain, "y", "root"));
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kUndrain, "", "root"));
  EXPECT_FALSE(node("node1").drain);
  EXPECT_EQ(node("node1").base, BaseState::kDown);
}

TEST_F(NodeRegistryTest, ResumeOfShortNodeDrainsAgain) {
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1", 8)));
  ASSERT_TRUE(node("node1").drain);
  ASSERT_TRUE(registry_.adminUpdate({"node1"}, UpdateKind::kResume, "", "root"));
  EXPECT_TRUE(node("node1").drain);
  EXPECT_EQ(node("node1").reason, "Low CPUs (reported:8 < configured:16)");
}

TEST_F(NodeRegistryTest, RestoreAdminStates) {
  AdminState s;
  s.name = "node2";
  s.down = true;
  s.reason = "rma";
  s.reason_user = "root";
  s.reason_time = 42;
  AdminState ghost;
  ghost.name = "gone";
  ghost.drain = true;
  registry_.restoreAdminStates({s, ghost});
  EXPECT_EQ(node("node2").base, BaseState::kDown);
  EXPECT_EQ(node("node2").reason, "rma");
  ASSERT_TRUE(registry_.registerAgent(makeReg("node2")));
  EXPECT_EQ(node("node2").base, BaseState::kDown) << "an admin DOWN survives a restart";
}

TEST_F(NodeRegistryTest, ApplyConfigAddsRemovesAndKeepsState) {
  ASSERT_TRUE(registry_.registerAgent(makeReg("node1")));
  ASSERT_TRUE(registry_.adminUpdate({"node2"}, UpdateKind::kDrain, "keep me", "root"));
  auto cfg = makeCluster({"node1", "node2", "node4"});
  cfg.nodes[0].real_memory_mb = 1024;   // a limit change on a known node
  auto diff = registry_.applyConfig(cfg);
  EXPECT_EQ(diff.added, std::vector<std::string>{"node4"});
  EXPECT_EQ(diff.removed, std::vector<std::string>{"node3"});
  EXPECT_EQ(node("node1").base, BaseState::kIdle);
  EXPECT_EQ(node("node1").config.real_memory_mb, 1024u);
  EXPECT_EQ(node("node2").reason, "keep me");
  EXPECT_EQ(node("node4").base, BaseState::kUnknown);
  EXPECT_EQ(registry_.find("node3"), nullptr);
  EXPECT_EQ(registry_.order(), (std::vector<std::string>{"node1", "node2", "node4"}));
}

TEST(ParseUpdateState, AcceptsSlurmNamesCaseInsensitive) {
  EXPECT_EQ(*parseUpdateState("drain"), UpdateKind::kDrain);
  EXPECT_EQ(*parseUpdateState("RESUME"), UpdateKind::kResume);
  EXPECT_EQ(*parseUpdateState("Down"), UpdateKind::kDown);
  EXPECT_EQ(*parseUpdateState("idle"), UpdateKind::kIdle);
  EXPECT_EQ(*parseUpdateState("undrain"), UpdateKind::kUndrain);
  EXPECT_FALSE(parseUpdateState("sleepy"));
}

}  // namespace
}  // namespace drover::ctld
