#include "cli/node_state.h"

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

v1::NodeInfo node(v1::NodeBaseState s, bool drain = false, bool no_resp = false) {
  v1::NodeInfo n;
  n.set_state(s);
  n.set_drain(drain);
  n.set_not_responding(no_resp);
  return n;
}

struct Case {
  v1::NodeInfo node;
  std::string compact, full, scontrol;
};

TEST(NodeStateTest, NamesAsSlurmPrintsThem) {
  const std::vector<Case> cases = {
      {node(v1::NODE_IDLE), "idle", "idle", "IDLE"},
      {node(v1::NODE_ALLOCATED), "alloc", "allocated", "ALLOCATED"},
      {node(v1::NODE_MIXED), "mix", "mixed", "MIXED"},
      {node(v1::NODE_DOWN), "down", "down", "DOWN"},
      {node(v1::NODE_UNKNOWN), "unk", "unknown", "UNKNOWN"},
      {node(v1::NODE_IDLE, true), "drain", "drained", "IDLE+DRAIN"},
      {node(v1::NODE_MIXED, true), "drng", "draining", "MIXED+DRAIN"},
      {node(v1::NODE_ALLOCATED, true), "drng", "draining", "ALLOCATED+DRAIN"},
      {node(v1::NODE_DOWN, true), "drain", "drained", "DOWN+DRAIN"},
      {node(v1::NODE_DOWN, false, true), "down*", "down*", "DOWN+NOT_RESPONDING"},
      {node(v1::NODE_IDLE, false, true), "idle*", "idle*", "IDLE+NOT_RESPONDING"},
      {node(v1::NODE_IDLE, true, true), "drain*", "drained*", "IDLE+DRAIN+NOT_RESPONDING"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(stateCompact(c.node), c.compact) << c.scontrol;
    EXPECT_EQ(stateLong(c.node), c.full) << c.scontrol;
    EXPECT_EQ(stateScontrol(c.node), c.scontrol);
  }
}

TEST(NodeStateTest, StateFilterAcceptsLongAndShortNamesCaseInsensitively) {
  struct FilterCase {
    std::string filter;
    v1::NodeInfo node;
    bool matches;
  };
  const std::vector<FilterCase> cases = {
      {"idle", node(v1::NODE_IDLE), true},
      {"IDLE", node(v1::NODE_MIXED), false},
      {"alloc", node(v1::NODE_ALLOCATED), true},
      {"ALLOCATED", node(v1::NODE_ALLOCATED), true},
      {"mix", node(v1::NODE_MIXED), true},
      {"drain", node(v1::NODE_MIXED, true), true},
      {"drain", node(v1::NODE_IDLE, true), true},
      {"drained", node(v1::NODE_MIXED, true), false},
      {"drng", node(v1::NODE_MIXED, true), true},
      {"draining", node(v1::NODE_IDLE, true), false},
      {"down,idle", node(v1::NODE_DOWN), true},
      {"down,idle", node(v1::NODE_MIXED), false},
      {"idle&no_respond", node(v1::NODE_IDLE, false, true), true},
      {"idle&no_respond", node(v1::NODE_IDLE), false},
      {"unk", node(v1::NODE_UNKNOWN), true},
  };
  for (const auto& c : cases) {
    auto f = parseStateFilter(c.filter);
    ASSERT_TRUE(f.ok()) << c.filter << ": " << f.error();
    EXPECT_EQ(matchesStateFilter(*f, c.node), c.matches) << c.filter << " vs " << stateScontrol(c.node);
  }
}

TEST(NodeStateTest, StateFilterRejectsUnknownNames) {
  auto f = parseStateFilter("idle,bogus");
  ASSERT_FALSE(f.ok());
  // The reference's first line, word for word (sinfo -t bogus, 2026-12-02): the name as given.
  EXPECT_EQ(f.error().substr(0, f.error().find('\n')), "Bad state string: \"bogus\"");
  EXPECT_NE(f.error().find("\nsinfo: error: valid states: "), std::string::npos);
  EXPECT_NE(f.error().find(",draining,"), std::string::npos);  // says what is accepted
  EXPECT_FALSE(parseStateFilter("idle,down&mix").ok());
}

TEST(NodeStateTest, SortKeyOrdersMixedBeforeAllocatedBeforeIdle) {
  EXPECT_GT(stateSortKey(node(v1::NODE_MIXED)), stateSortKey(node(v1::NODE_ALLOCATED)));
  EXPECT_GT(stateSortKey(node(v1::NODE_ALLOCATED)), stateSortKey(node(v1::NODE_IDLE)));
  EXPECT_GT(stateSortKey(node(v1::NODE_IDLE)), stateSortKey(node(v1::NODE_DOWN)));
}

TEST(NodeStateTest, SortKeyPutsFlaggedStatesAboveEveryBaseState) {
  // The reference sorted a drained idle node above a mixed one (golden sinfo-merge/01) and a
  // draining mixed one above that (18).
  v1::NodeInfo drained_idle = node(v1::NODE_IDLE);
  drained_idle.set_drain(true);
  v1::NodeInfo draining_mixed = node(v1::NODE_MIXED);
  draining_mixed.set_drain(true);
  v1::NodeInfo down_not_responding = node(v1::NODE_DOWN);
  down_not_responding.set_not_responding(true);
  EXPECT_GT(stateSortKey(drained_idle), stateSortKey(node(v1::NODE_MIXED)));
  EXPECT_GT(stateSortKey(draining_mixed), stateSortKey(drained_idle));
  EXPECT_GT(stateSortKey(down_not_responding), stateSortKey(draining_mixed));
}

}  // namespace
}  // namespace drover::cli
