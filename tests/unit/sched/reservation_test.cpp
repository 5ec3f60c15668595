// Advance reservations: named, on nodes or a node count, for users/accounts, with a window;
// other work is kept out, and jobs naming the reservation run inside it.
#include <gtest/gtest.h>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

AdvanceReservation resv(std::vector<std::string> nodes, int64_t start, int64_t end,
                        std::vector<std::string> users = {"alice"}) {
  AdvanceReservation r;
  r.name = "big";
  r.nodes = std::move(nodes);
  r.users = std::move(users);
  r.start = start;
  r.end = end;
  return r;
}

TEST(Reservations, Cases) {
  struct Case {
    std::string name;
    int nodes;
    AdvanceReservation res;
    Job job;
    std::vector<std::string> wantNodes;  // empty = does not start
    Reason wantReason = Reason::None;
    std::optional<int64_t> wantExpected;
  };
  // now = 0 throughout; jobs last 3600 s unless set.
  std::vector<Case> cases = {
      {"outside work avoids a reserved node", 2, resv({"gpu001"}, 100, 1000),
       JobBuilder(1).gpusPerNode(8), {"gpu002"}, Reason::None, std::nullopt},
      {"outside work that ends before the window may use it", 1, resv({"gpu001"}, 100, 1000),
       JobBuilder(1).gpusPerNode(8).time(100), {"gpu001"}, Reason::None, std::nullopt},
      {"outside work that would overlap waits for the end", 1, resv({"gpu001"}, 100, 1000),
       JobBuilder(1).gpusPerNode(8).time(200), {}, Reason::Resources, 1000},
      {"a member's job runs inside an active reservation", 2, resv({"gpu002"}, 0, 10000),
       JobBuilder(1).gpusPerNode(8).reservation("big"), {"gpu002"}, Reason::None, std::nullopt},
      {"a member's job waits for the window to open", 2, resv({"gpu002"}, 500, 10000),
       JobBuilder(1).gpusPerNode(8).reservation("big"), {}, Reason::Reservation, 500},
      {"a job longer than the window never fits", 2, resv({"gpu002"}, 0, 1000),
       JobBuilder(1).gpusPerNode(8).reservation("big"), {}, Reason::Resources, std::nullopt},
      {"a non-member may not use it", 2, resv({"gpu002"}, 0, 10000),
       JobBuilder(1).user("bob").reservation("big"), {}, Reason::Reservation, std::nullopt},
      {"a member by account", 2, resv({"gpu002"}, 0, 10000, {}),
       [] {
         Job j = JobBuilder(1).user("bob").account("lab").reservation("big");
         return j;
       }(),
       {"gpu002"}, Reason::None, std::nullopt},
      {"unknown reservation", 2, resv({"gpu002"}, 0, 10000),
       JobBuilder(1).reservation("nope"), {}, Reason::Reservation, std::nullopt},
      {"node-count reservation takes nodes in hostlist order", 2,
       [] {
         AdvanceReservation r = resv({}, 0, 10000);
         r.nodeCount = 1;
         return r;
       }(),
       JobBuilder(1).gpusPerNode(8), {"gpu002"}, Reason::None, std::nullopt},
  };
  for (const auto& c : cases) {
    Snapshot s;
    s.nodes = gpuNodes(c.nodes);
    s.partitions = {partition()};
    s.reservations = {c.res};
    if (c.name == "a member by account") s.reservations[0].accounts = {"lab"};
    s.pending = {c.job};
    Plan plan = schedule(s, SchedulerParams{}, 0);
    const Start* st = startOf(plan, 1);
    if (c.wantNodes.empty()) {
      EXPECT_EQ(st, nullptr) << c.name;
      const PendingInfo* p = pendingOf(plan, 1);
      ASSERT_NE(p, nullptr) << c.name;
      EXPECT_EQ(reasonName(p->reason), reasonName(c.wantReason)) << c.name;
      EXPECT_EQ(p->expectedStart, c.wantExpected) << c.name;
    } else {
      ASSERT_NE(st, nullptr) << c.name;
      std::vector<std::string> got;
      for (const auto& a : st->allocation.nodes) got.push_back(a.node);
      EXPECT_EQ(got, c.wantNodes) << c.name;
    }
  }
}

TEST(Reservations, MembersShareTheReservedNodes) {
  Snapshot s;
  s.nodes = gpuNodes(1);
  s.partitions = {partition()};
  s.reservations = {resv({"gpu001"}, 0, 10000)};
  s.pending = {JobBuilder(1).gpusPerNode(4).reservation("big"),
               JobBuilder(2).gpusPerNode(4).reservation("big"),
               JobBuilder(3).gpusPerNode(4).reservation("big")};
  Plan plan = schedule(s, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 2u);
  EXPECT_EQ(plan.starts[0].allocation.nodes[0].gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(plan.starts[1].allocation.nodes[0].gpus, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(*pendingOf(plan, 3)->expectedStart, 3600);
}

}  // namespace
}  // namespace drover::sched
