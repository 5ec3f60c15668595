// NodeEventTracker: node records from a real NodeRegistry (FakeClock) turned into the event
// changes the accounting store applies: drain/down open, back in service closes, an unknown
// node changes nothing, restored events are neither duplicated nor lost, and the cluster's
// TRES open a cluster event.
#include "ctld/node_events.h"

#include <gtest/gtest.h>

#include "common/clock.h"

namespace drover::ctld {
namespace {

config::NodeConfig makeNode(const std::string& name, std::uint32_t cpus = 8) {
  config::NodeConfig n;
  n.name = name;
  n.address = "127.0.0.1";
  n.cpus = cpus;
  n.real_memory_mb = 4000;
  n.gpus.count = name == "g1" ? 2 : 0;
  return n;
}

Registration makeReg(const std::string& name, std::uint32_t cpus = 8) {
  Registration r;
  r.node_name = name;
  r.resources.cpus = cpus;
  r.resources.real_memory_mb = 4000;
  if (name == "g1") r.resources.gpus = {{0, "", ""}, {1, "", ""}};
  return r;
}

class NodeEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cfg.cluster_name = "c1";
    for (const char* n : {"n1", "n2", "g1"}) cfg.nodes.push_back(makeNode(n));
    registry.applyConfig(cfg);
  }
  std::vector<acct::EventChange> observe(const std::string& node) {
    std::vector<acct::EventChange> out;
    tracker.observe(*registry.find(node), clock.now(), &out);
    return out;
  }
  FakeClock clock;
  config::ClusterConfig cfg;
  NodeRegistry registry{clock, "slurm"};
  NodeEventTracker tracker{"c1", [](const std::string& user) { return user == "alice" ? 1001u : 0u; }};
};

TEST_F(NodeEventsTest, DrainOpensAnEventAndResumeClosesIt) {
  ASSERT_TRUE(registry.registerAgent(makeReg("n1")).ok());
  EXPECT_TRUE(observe("n1").empty()) << "an idle node has no event";
  clock.advanceSeconds(10);
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kDrain, "bad disk", "alice").ok());
  auto changes = observe("n1");
  ASSERT_EQ(changes.size(), 1u);
  const acct::EventRecord& e = changes[0].record;
  EXPECT_EQ(changes[0].op, acct::EventChange::Op::kOpen);
  EXPECT_EQ(e.kind, acct::EventKind::kNode);
  EXPECT_EQ(e.cluster, "c1");
  EXPECT_EQ(e.node_name, "n1");
  EXPECT_EQ(e.state, "DRAIN");
  EXPECT_EQ(e.state_raw, 0x202u);   // IDLE + DRAIN
  EXPECT_EQ(e.reason, "bad disk");
  EXPECT_EQ(e.reason_user, "alice");
  EXPECT_EQ(e.reason_uid, 1001u);
  EXPECT_EQ(e.tres, "cpu=8,mem=4000M");
  EXPECT_EQ(e.time_start, clock.now());
  EXPECT_TRUE(observe("n1").empty()) << "the same state again is the same event";
  // Down on top of the drain: a new event (the store closes the first at its start).
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kDown, "power", "root").ok());
  changes = observe("n1");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].record.state, "DOWN");
  EXPECT_EQ(changes[0].record.reason, "power");
  clock.advanceSeconds(50);
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kResume, "", "root").ok());
  changes = observe("n1");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].op, acct::EventChange::Op::kClose);
  EXPECT_EQ(changes[0].record.node_name, "n1");
  EXPECT_EQ(changes[0].record.time_end, clock.now());
  EXPECT_TRUE(tracker.open().empty());
}

// The reference (Slurm 22.05) had no event for a node drained while it ran a job; its DRAIN
// event started when the job ended, by slurm (the controller), not by who drained it.
TEST_F(NodeEventsTest, ADrainingNodesEventStartsWhenItsJobsAreDoneByTheController) {
  ASSERT_TRUE(registry.registerAgent(makeReg("n1")).ok());
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kDrain, "busy drain", "alice").ok());
  std::vector<acct::EventChange> changes;
  tracker.observe(*registry.find("n1"), clock.now(), &changes, /*busy=*/true);
  EXPECT_TRUE(changes.empty()) << "draining: no event yet";
  EXPECT_EQ(tracker.draining().count("n1"), 1u);
  clock.advanceSeconds(30);
  tracker.observe(*registry.find("n1"), clock.now(), &changes, /*busy=*/false);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].record.state, "DRAIN");
  EXPECT_EQ(changes[0].record.reason, "busy drain");
  EXPECT_EQ(changes[0].record.reason_user, "slurm");
  EXPECT_EQ(changes[0].record.time_start, clock.now());
  EXPECT_TRUE(tracker.draining().empty());
  // Resumed while still draining: nothing opened, nothing left to watch.
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kResume, "", "root").ok());
  changes.clear();
  tracker.observe(*registry.find("n1"), clock.now(), &changes);
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kDrain, "again", "alice").ok());
  tracker.observe(*registry.find("n1"), clock.now(), &changes, /*busy=*/true);
  ASSERT_TRUE(registry.adminUpdate({"n1"}, UpdateKind::kResume, "", "root").ok());
  tracker.observe(*registry.find("n1"), clock.now(), &changes);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].op, acct::EventChange::Op::kClose) << "the first drain's event";
  EXPECT_TRUE(tracker.draining().empty());
}

TEST_F(NodeEventsTest, ASilentNodeIsDownUntilItsAgentRegisters) {
  ASSERT_TRUE(registry.registerAgent(makeReg("g1")).ok());
  clock.advanceSeconds(400);
  registry.checkTimeouts(300);
  auto changes = observe("g1");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].record.state, "DOWN");
  EXPECT_EQ(changes[0].record.reason, "Not responding");
  EXPECT_EQ(changes[0].record.reason_user, "slurm");
  EXPECT_EQ(changes[0].record.tres, "cpu=8,mem=4000M,gres/gpu=2");
  ASSERT_TRUE(registry.registerAgent(makeReg("g1")).ok());
  changes = observe("g1");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].op, acct::EventChange::Op::kClose);
}

TEST_F(NodeEventsTest, RestoredEventsAreKeptOrClosedNeverDuplicated) {
  acct::EventRecord drained;
  drained.kind = acct::EventKind::kNode;
  drained.cluster = "c1";
  drained.node_name = "n1";
  drained.time_start = clock.now() - 1000;
  drained.state = "DRAIN";
  drained.reason = "bad disk";
  drained.reason_user = "alice";
  drained.tres = "cpu=8,mem=4000M";
  acct::EventRecord down = drained;
  down.node_name = "n2";
  down.state = "DOWN";
  down.reason = "Not responding";
  acct::EventRecord elsewhere = drained;
  elsewhere.cluster = "other";
  tracker.restore({drained, down, elsewhere});
  EXPECT_EQ(tracker.open().size(), 2u) << "another cluster's events are not ours";
  // The restarted controller restores n1's admin drain: the same event, nothing written.
  registry.restoreAdminStates({AdminState{"n1", false, true, "bad disk", "alice", drained.time_start}});
  EXPECT_TRUE(observe("n1").empty());
  // n2 has not registered yet (UNKNOWN): its event stays open...
  EXPECT_TRUE(observe("n2").empty());
  // ...until its agent is back.
  ASSERT_TRUE(registry.registerAgent(makeReg("n2")).ok());
  auto changes = observe("n2");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].op, acct::EventChange::Op::kClose);
  EXPECT_EQ(changes[0].record.time_start, drained.time_start) << "the event as it was opened";
}

TEST_F(NodeEventsTest, TheClusterEventFollowsTheConfiguration) {
  std::vector<acct::EventChange> out;
  tracker.configured(cfg.nodes, clock.now(), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].record.kind, acct::EventKind::kCluster);
  EXPECT_EQ(out[0].record.node_name, "");
  EXPECT_EQ(out[0].record.cluster_nodes, "n[1-2],g1");
  EXPECT_EQ(out[0].record.tres, "cpu=24,mem=12000M,node=3,gres/gpu=2");
  EXPECT_EQ(out[0].record.reason, "Cluster Registered TRES");
  out.clear();
  tracker.configured(cfg.nodes, clock.now() + 5, &out);
  EXPECT_TRUE(out.empty()) << "the same TRES: the same cluster event";
  // n2 drained, then removed from the configuration: its event closes, the cluster's changes.
  ASSERT_TRUE(registry.adminUpdate({"n2"}, UpdateKind::kDrain, "retire", "root").ok());
  EXPECT_EQ(observe("n2").size(), 1u);
  auto fewer = cfg.nodes;
  fewer.erase(fewer.begin() + 1);
  tracker.configured(fewer, clock.now() + 10, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].op, acct::EventChange::Op::kClose);
  EXPECT_EQ(out[0].record.node_name, "n2");
  EXPECT_EQ(out[1].record.tres, "cpu=16,mem=8000M,node=2,gres/gpu=2");
}

}  // namespace
}  // namespace drover::ctld
