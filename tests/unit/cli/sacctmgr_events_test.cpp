// sacctmgr show event: the man page's conditions read into a QueryEvents request, and the
// table of the controller's events (default columns, format=, -P/-p/-n).
#include "cli/sacctmgr_events.h"

#include <gtest/gtest.h>

#include "cli/node_values.h"
#include "cli/sacctmgr_query.h"
#include "cli/window_time.h"

namespace drover::cli {
namespace {

constexpr std::int64_t kNow = 1796083200 + 12 * 3600;

Result<EventQuery> parse(const std::vector<std::string>& words) {
  return parseEventConditions(words, kNow);
}

v1::QueryEventsReply reply() {
  v1::QueryEventsReply r;
  r.set_cluster_name("c1");
  auto* c = r.add_events();
  c->set_kind(1);
  c->set_cluster("c1");
  c->set_cluster_nodes("n[1-2]");
  c->set_time_start(kNow - 7200);
  c->set_reason("Cluster Registered TRES");
  c->set_tres("cpu=8,mem=2000M,node=2");
  auto* n = r.add_events();
  n->set_kind(2);
  n->set_cluster("c1");
  n->set_node_name("n1");
  n->set_time_start(kNow - 3600);
  n->set_time_end(kNow - 600);
  n->set_state("DRAIN");
  n->set_state_raw(0x202);
  n->set_reason("bad disk");
  n->set_reason_uid(0);
  n->set_reason_user("root");
  n->set_tres("cpu=4,mem=1000M");
  return r;
}

TEST(SacctmgrEvents, TheEntityIsEvent) {
  auto a = parseSacctmgrWords({"show", "event", "nodes=n1"}, false);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->list.entity, SacctmgrEntity::kEvent);
  EXPECT_EQ(a->list.event_conditions, std::vector<std::string>{"nodes=n1"});
  a = parseSacctmgrWords({"list", "events"}, false);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->list.entity, SacctmgrEntity::kEvent);
}

TEST(SacctmgrEvents, DefaultWindowIsFromYesterdaysMidnightToNow) {
  auto q = parse({});
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q->request.window_start(), localMidnight(kNow) - 86400);
  EXPECT_EQ(q->request.window_end(), kNow);
  EXPECT_EQ(q->request.kind(), 0u);
  EXPECT_FALSE(q->request.open_only());
}

TEST(SacctmgrEvents, ReadsTheManPagesConditions) {
  auto q = parse({"Start=now-1hour", "End=now", "Nodes=n[1-3]", "Reason=disk,fan", "Event=Cluster",
                  "MinCPUs=2", "MaxCPUs=64", "CondFlags=Open", "format=NodeName,State%10"});
  ASSERT_TRUE(q.ok()) << q.error();
  const auto& r = q->request;
  EXPECT_EQ(r.window_start(), kNow - 3600);
  EXPECT_EQ(r.window_end(), kNow);
  ASSERT_EQ(r.nodes_size(), 3);
  EXPECT_EQ(r.nodes(2), "n3");
  ASSERT_EQ(r.reasons_size(), 2);
  EXPECT_EQ(r.kind(), 1u);
  EXPECT_EQ(r.min_cpus(), 2u);
  EXPECT_EQ(r.max_cpus(), 64u);
  EXPECT_TRUE(r.open_only());
  ASSERT_EQ(q->format.size(), 2u);
  EXPECT_EQ(q->format[1].width, 10);
  // States= and User= make it a node query; States= without Start= asks for the open events.
  q = parse({"States=down,drain", "User=root"});
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q->request.kind(), 2u);
  EXPECT_TRUE(q->request.open_only());
  EXPECT_FALSE(q->request.has_window_start());
  EXPECT_EQ(q->request.states(0), "DOWN");
  EXPECT_EQ(q->request.users(0), "root");
  q = parse({"All_Time"});
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_FALSE(q->request.has_window_start());
  EXPECT_FALSE(q->request.has_window_end());
}

TEST(SacctmgrEvents, BadConditionsAreClearErrors) {
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"Event=disk"}, {"MinCPUs=x"}, {"Start=yesterdayish"}, {"Colour=red"}, {"bogus"},
           {"CondFlags=closed"}, {"Start=now", "End=now-1hour"}, {"Nodes=n[1-"}}) {
    auto q = parse(words);
    EXPECT_FALSE(q.ok()) << words[0];
  }
  auto q = parse({"format=NodeName,Colour"});
  ASSERT_TRUE(q.ok());
  auto t = renderEvents(*q, reply(), {}, kNow);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "Unknown field 'Colour'");
}

TEST(SacctmgrEvents, PrintsTheDefaultColumns) {
  auto q = parse({});
  ASSERT_TRUE(q.ok());
  auto t = renderEvents(*q, reply(), {}, kNow);
  ASSERT_TRUE(t.ok()) << t.error();
  const std::string want =
      "   Cluster        NodeName           TimeStart             TimeEnd  State                         Reason       User \n"
      "---------- --------------- ------------------- ------------------- ------ ------------------------------ ---------- \n"
      "        c1                 " + formatIsoTime(kNow - 7200) + "             Unknown               Cluster Registered TRES            \n"
      "        c1              n1 " + formatIsoTime(kNow - 3600) + " " + formatIsoTime(kNow - 600) +
      "  DRAIN                       bad disk    root(0) \n";
  EXPECT_EQ(*t, want);
}

TEST(SacctmgrEvents, ParsableAndChosenColumns) {
  auto q = parse({"format=Event,EventRaw,NodeName,State,StateRaw,Duration,TRES,ClusterNodes"});
  ASSERT_TRUE(q.ok()) << q.error();
  TableStyle p2;
  p2.parsable2 = true;
  p2.no_header = true;
  auto t = renderEvents(*q, reply(), p2, kNow);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(*t,
            "Cluster|1||||02:00:00|cpu=8,mem=2000M,node=2|n[1-2]\n"
            "Node|2|n1|DRAIN|514|00:50:00|cpu=4,mem=1000M|\n");
  // Clusters= naming another cluster shows none of this one's events.
  q = parse({"Clusters=other", "format=NodeName"});
  ASSERT_TRUE(q.ok());
  TableStyle p;
  p.parsable = true;
  t = renderEvents(*q, reply(), p, kNow);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "NodeName|\n");
}

}  // namespace
}  // namespace drover::cli
