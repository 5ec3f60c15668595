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

// As the reference's: the spec's line as a warning, and the default window.
TEST(SacctmgrEvents, ATimeThatDoesNotReadWarnsAndKeepsTheDefault) {
  auto bad = parse({"Start=yesterdayish", "End=2026-13-45"});
  ASSERT_TRUE(bad.ok()) << bad.error();
  EXPECT_EQ(bad->warnings, (std::vector<std::string>{
                               "Invalid time specification (pos=0): yesterdayish",
                               "Invalid time specification (pos=5): 2026-13-45"}));
  auto plain = parse({});
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->warnings.empty());
  // An empty one says nothing, as the reference's start= (no line), and keeps the default.
  auto empty = parse({"Start=", "End="});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->warnings.empty());
  EXPECT_EQ(empty->request.window_start(), plain->request.window_start());
  EXPECT_EQ(bad->request.window_start(), plain->request.window_start());
  EXPECT_EQ(bad->request.window_end(), plain->request.window_end());
}

TEST(SacctmgrEvents, BadConditionsAreClearErrors) {
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"Event=disk"}, {"MinCPUs=x"}, {"Colour=red"}, {"bogus"},
           {"CondFlags=closed"}, {"Start=now", "End=now-1hour"}, {"Nodes=n[1-"}}) {
    auto q = parse(words);
    EXPECT_FALSE(q.ok()) << words[0];
  }
  auto q = parse({"format=NodeName,Colour"});
  ASSERT_TRUE(q.ok());
  auto t = renderEvents(*q, reply(), {}, kNow);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "Unknown field 'colour'");   // lowered, as the reference
}

TEST(SacctmgrEvents, PrintsTheDefaultColumns) {
  auto q = parse({});
  ASSERT_TRUE(q.ok());
  auto t = renderEvents(*q, reply(), {}, kNow);
  ASSERT_TRUE(t.ok()) << t.error();
  const std::string want =
      "   Cluster NodeName                  TimeStart             TimeEnd  State                         Reason       User \n"
      "---------- --------------- ------------------- ------------------- ------ ------------------------------ ---------- \n"
      "        c1                 " + formatIsoTime(kNow - 7200) + "             Unknown               Cluster Registered TRES            \n"
      "        c1 n1              " + formatIsoTime(kNow - 3600) + " " + formatIsoTime(kNow - 600) +
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
            "Cluster|1|||0|02:00:00|billing=8,cpu=8,energy=0,fs/disk=0,mem=2000M,node=2,pages=0,vmem=0|n[1-2]\n"
            "Node|2|n1|DRAIN|514|00:50:00|billing=4,cpu=4,mem=1000M|\n");
  // Clusters= naming another cluster shows none of this one's events.
  q = parse({"Clusters=other", "format=NodeName"});
  ASSERT_TRUE(q.ok());
  TableStyle p;
  p.parsable = true;
  t = renderEvents(*q, reply(), p, kNow);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "NodeName|\n");
}

// What the reference (Slurm 22.05.8, 4 nodes of 16 CPUs, 64 GiB, 8 GPUs) printed for the same
// events: NodeName left-aligned, the cluster's StateRaw 0, TRES by name with billing and
// memory in G, a drained node set DOWN (StateRaw 513) in State DRAIN, truncation with '+'.
TEST(SacctmgrEvents, AsTheReferencePrintedThem) {
  constexpr std::int64_t kStart = 1796083200;
  v1::QueryEventsReply r;
  r.set_cluster_name("oracle");
  auto* c = r.add_events();
  c->set_kind(1);
  c->set_cluster("oracle");
  c->set_cluster_nodes("node[01-04]");
  c->set_time_start(kStart);
  c->set_reason("Cluster Registered TRES");
  c->set_tres("cpu=64,mem=262144M,node=4,gres/gpu=32");
  auto node = [&](const std::string& name, std::uint32_t raw, const std::string& state,
                  const std::string& reason, const std::string& user, std::uint32_t uid) {
    auto* n = r.add_events();
    n->set_kind(2);
    n->set_cluster("oracle");
    n->set_node_name(name);
    n->set_time_start(kStart + 44);
    n->set_state(state);
    n->set_state_raw(raw);
    n->set_reason(reason);
    n->set_reason_user(user);
    n->set_reason_uid(uid);
    n->set_tres("cpu=16,mem=65536M,gres/gpu=8");
  };
  node("node01", 0x202, "DRAIN", "busy drain", "slurm", 64030);
  node("node04", 0x201, "DOWN", "second", "root", 0);
  auto q = parseEventConditions({}, kStart + 100);
  ASSERT_TRUE(q.ok());
  auto t = renderEvents(*q, r, {}, kStart + 100);
  ASSERT_TRUE(t.ok()) << t.error();
  const std::string start = formatIsoTime(kStart), later = formatIsoTime(kStart + 44);
  EXPECT_EQ(*t,
            "   Cluster NodeName                  TimeStart             TimeEnd  State                         Reason       User \n"
            "---------- --------------- ------------------- ------------------- ------ ------------------------------ ---------- \n"
            "    oracle                 " + start + "             Unknown               Cluster Registered TRES            \n"
            "    oracle node01          " + later + "             Unknown  DRAIN                     busy drain slurm(640+ \n"
            "    oracle node04          " + later + "             Unknown  DRAIN                         second    root(0) \n");
  q = parseEventConditions({"format=Event,StateRaw,TRES%90"}, kStart + 100);
  ASSERT_TRUE(q.ok());
  TableStyle p2;
  p2.parsable2 = true;
  t = renderEvents(*q, r, p2, kStart + 100);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(*t,
            "Event|StateRaw|TRES\n"
            "Cluster|0|billing=64,cpu=64,energy=0,fs/disk=0,gres/gpu=32,mem=256G,node=4,pages=0,vmem=0\n"
            "Node|514|billing=16,cpu=16,gres/gpu=8,mem=64G\n"
            "Node|513|billing=16,cpu=16,gres/gpu=8,mem=64G\n");
  q = parseEventConditions({"format=nodename%5,state%3"}, kStart + 100);
  ASSERT_TRUE(q.ok());
  t = renderEvents(*q, r, {}, kStart + 100);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(*t, "NodeN Sta \n----- --- \n          \nnode+ DR+ \nnode+ DR+ \n");
}

// The reference's condition keys (a beginning long enough: "n=", "stat=", "star="), its
// errors for an unknown event type (also a bare word) and state, and state beginnings.
TEST(SacctmgrEvents, ConditionsAndErrorsAsTheReference) {
  auto q = parse({"n=n1", "stat=idl,down", "star=now-1hour", "u=root", "e=node", "r=disk", "co=open"});
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q->request.nodes(0), "n1");
  ASSERT_EQ(q->request.states_size(), 2);
  EXPECT_EQ(q->request.states(0), "IDLE");
  EXPECT_EQ(q->request.states(1), "DOWN");
  EXPECT_EQ(q->request.window_start(), kNow - 3600);
  EXPECT_EQ(q->request.users(0), "root");
  EXPECT_EQ(q->request.reasons(0), "disk");
  EXPECT_TRUE(q->request.open_only());
  q = parse({"node"});
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q->request.kind(), 2u);
  q = parse({"all_t", "all_c"});
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_FALSE(q->request.has_window_start());
  for (const char* key : {"users=root", "s=down", "sta=down", "reasons=x", "nodename=n1", "c=c1"}) {
    q = parse({key});
    ASSERT_FALSE(q.ok()) << key;
    EXPECT_EQ(q.error(), std::string(" Unknown condition: ") + key);
  }
  q = parse({"event=Disk"});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error(), " Unknown event type: 'disk'  Valid events are Cluster and Node.");
  q = parse({"bogus"});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error(), " Unknown event type: 'bogus'  Valid events are Cluster and Node.");
  q = parse({"states=drng"});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error(),
            "Invalid state: drng\nValid node states are: DRAIN FAIL UNKNOWN DOWN IDLE ALLOCATED ? MIXED FUTURE \n"
            "sacctmgr: fatal: unrecognized job state value");
}

}  // namespace
}  // namespace drover::cli
