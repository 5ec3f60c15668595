// Node and cluster events in the accounting file (SqliteAccountingStore::applyEvents, events,
// openEvents, downTime) on real database files, across a reopen and a migration from schema
// version 3; and the controller's QueryEvents and cluster Utilization's Down over them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "acct/sqlite_store.h"
#include "ctld/event_query.h"
#include "ctld/usage_query.h"
#include "../temp_dir.h"

namespace drover::acct {
namespace {

constexpr std::int64_t kT = 1796083200;

std::unique_ptr<SqliteAccountingStore> openStore(const std::string& path, SqliteOptions o = {}) {
  auto s = SqliteAccountingStore::open(path, o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return s.ok() ? std::move(*s) : nullptr;
}

EventRecord nodeEvent(const std::string& node, std::int64_t start, const std::string& state,
                      const std::string& reason, const std::string& tres = "cpu=4,mem=1000M") {
  EventRecord e;
  e.kind = EventKind::kNode;
  e.cluster = "c1";
  e.node_name = node;
  e.time_start = start;
  e.state = state;
  e.state_raw = state == "DOWN" ? 1 : 0x202;
  e.reason = reason;
  e.reason_uid = 0;
  e.reason_user = "root";
  e.tres = tres;
  return e;
}

EventChange open(EventRecord e) { return {EventChange::Op::kOpen, std::move(e)}; }
EventChange close(const std::string& node, std::int64_t end) {
  EventRecord e;
  e.cluster = "c1";
  e.node_name = node;
  e.time_end = end;
  return {EventChange::Op::kClose, e};
}

void apply(SqliteAccountingStore& store, std::vector<EventChange> changes) {
  AcctBatch b;
  b.events = std::move(changes);
  auto r = store.apply(b);
  ASSERT_TRUE(r.ok()) << r.error();
}

std::vector<EventRecord> all(SqliteAccountingStore& store, EventFilter f = {}) {
  auto r = store.events(f, kT + 100000);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
  return r.ok() ? *r : std::vector<EventRecord>{};
}

TEST(AcctEvents, OpenedClosedAndReopenedWithAnotherReason) {
  TempDir dir;
  auto store = openStore(dir.file("a.db"));
  ASSERT_TRUE(store);
  apply(*store, {open(nodeEvent("n1", kT + 10, "DRAIN", "disk"))});
  // The same state and reason again (a restarted controller): kept, not duplicated.
  apply(*store, {open(nodeEvent("n1", kT + 50, "DRAIN", "disk"))});
  auto events = all(*store);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].time_start, kT + 10);
  EXPECT_EQ(events[0].time_end, 0);
  // Another reason: the first closes where the second starts.
  apply(*store, {open(nodeEvent("n1", kT + 100, "DOWN", "power"))});
  // Back in service.
  apply(*store, {close("n1", kT + 300)});
  // A close with nothing open changes nothing.
  apply(*store, {close("n1", kT + 400), close("n2", kT + 400)});
  events = all(*store);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].reason, "disk");
  EXPECT_EQ(events[0].time_end, kT + 100);
  EXPECT_EQ(events[1].reason, "power");
  EXPECT_EQ(events[1].state, "DOWN");
  EXPECT_EQ(events[1].time_start, kT + 100);
  EXPECT_EQ(events[1].time_end, kT + 300);
  EXPECT_TRUE(store->openEvents()->empty());
}

TEST(AcctEvents, OpenEventsSurviveAReopenOfTheFile) {
  TempDir dir;
  const auto path = dir.file("a.db");
  {
    auto store = openStore(path);
    ASSERT_TRUE(store);
    apply(*store, {open(nodeEvent("n1", kT, "DRAIN", "disk")), open(nodeEvent("n2", kT + 5, "DOWN", "gone"))});
  }
  auto store = openStore(path);
  ASSERT_TRUE(store);
  auto still = store->openEvents();
  ASSERT_TRUE(still.ok()) << still.error();
  ASSERT_EQ(still->size(), 2u);
  EXPECT_EQ((*still)[0].node_name, "n1");
  EXPECT_EQ((*still)[1].reason, "gone");
  apply(*store, {open(nodeEvent("n1", kT + 60, "DRAIN", "disk")), close("n2", kT + 70)});
  auto events = all(*store);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].time_start, kT);
  EXPECT_EQ(events[0].time_end, 0);
  EXPECT_EQ(events[1].time_end, kT + 70);
}

TEST(AcctEvents, ClusterEventsAreKeptApartFromNodeEvents) {
  TempDir dir;
  auto store = openStore(dir.file("a.db"));
  ASSERT_TRUE(store);
  EventRecord cluster;
  cluster.kind = EventKind::kCluster;
  cluster.cluster = "c1";
  cluster.cluster_nodes = "n[1-2]";
  cluster.time_start = kT;
  cluster.reason = "Cluster Registered TRES";
  cluster.tres = "cpu=8,mem=2000M,node=2";
  apply(*store, {open(cluster), open(nodeEvent("n1", kT + 1, "DOWN", "x"))});
  EventRecord bigger = cluster;
  bigger.time_start = kT + 500;
  bigger.tres = "cpu=12,mem=3000M,node=3";
  bigger.cluster_nodes = "n[1-3]";
  apply(*store, {open(bigger)});
  EventFilter clusters;
  clusters.kind = EventKind::kCluster;
  auto got = all(*store, clusters);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].time_end, kT + 500);
  EXPECT_EQ(got[1].tres, "cpu=12,mem=3000M,node=3");
  EventFilter nodes;
  nodes.kind = EventKind::kNode;
  ASSERT_EQ(all(*store, nodes).size(), 1u);
  EXPECT_EQ(all(*store, nodes)[0].time_end, 0) << "the cluster's change does not close a node's event";
}

TEST(AcctEvents, QueriedByWindowAndFilters) {
  TempDir dir;
  auto store = openStore(dir.file("a.db"));
  ASSERT_TRUE(store);
  apply(*store, {open(nodeEvent("n1", kT, "DRAIN", "disk failing")), close("n1", kT + 100),
                 open(nodeEvent("n2", kT + 200, "DOWN", "Not responding", "cpu=16")),
                 open(nodeEvent("n3", kT + 300, "DRAIN", "upgrade"))});
  struct Case {
    const char* name;
    EventFilter f;
    std::vector<std::string> want;
  };
  auto window = [](std::int64_t s, std::int64_t e) {
    EventFilter f;
    f.window_start = kT + s;
    f.window_end = kT + e;
    return f;
  };
  std::vector<Case> cases = {
      {"everything", {}, {"n1", "n2", "n3"}},
      {"before n1 ended", window(0, 50), {"n1"}},
      {"n1's end is inside", window(100, 150), {"n1"}},
      {"after n1, open ones last", window(150, 250), {"n2"}},
      {"later: still open", window(5000, 6000), {"n2", "n3"}},
  };
  EventFilter open_only;
  open_only.open_only = true;
  cases.push_back({"open", open_only, {"n2", "n3"}});
  EventFilter nodes;
  nodes.nodes = {"n3", "n9"};
  cases.push_back({"nodes", nodes, {"n3"}});
  EventFilter states;
  states.states = {"down"};
  cases.push_back({"states, any case", states, {"n2"}});
  EventFilter reasons;
  reasons.reasons = {"FAIL"};
  cases.push_back({"reason anywhere in it", reasons, {"n1"}});
  EventFilter users;
  users.users = {"alice"};
  cases.push_back({"users", users, {}});
  users.users = {"0"};
  cases.push_back({"users by uid", users, {"n1", "n2", "n3"}});
  EventFilter cpus;
  cpus.min_cpus = 8;
  cases.push_back({"MinCPUs", cpus, {"n2"}});
  cpus = {};
  cpus.max_cpus = 8;
  cases.push_back({"MaxCPUs", cpus, {"n1", "n3"}});
  for (const auto& c : cases) {
    std::vector<std::string> got;
    for (const auto& e : all(*store, c.f)) got.push_back(e.node_name);
    EXPECT_EQ(got, c.want) << c.name;
  }
}

// As the reference (Slurm 22.05) listed them: by node, the cluster's first, then by start; and
// States= by StateRaw: a drained node set DOWN (513, printed DRAIN) is in DOWN and in DRAIN,
// a drained idle one (514) in IDLE and DRAIN.
TEST(AcctEvents, ListedByNodeThenStartAndStatesMatchTheRawState) {
  TempDir dir;
  auto store = openStore(dir.file("a.db"));
  ASSERT_TRUE(store);
  EventRecord drained_down = nodeEvent("n4", kT + 10, "DRAIN", "second");
  drained_down.state_raw = 0x201;
  apply(*store, {open(nodeEvent("n2", kT, "DRAIN", "maint")), open(nodeEvent("n3", kT, "DOWN", "power")),
                 open(nodeEvent("n4", kT, "DRAIN", "first")), open(drained_down),
                 open(nodeEvent("n1", kT + 60, "DRAIN", "busy"))});
  std::vector<std::string> order;
  for (const auto& e : all(*store)) order.push_back(e.node_name + "/" + e.reason);
  EXPECT_EQ(order, (std::vector<std::string>{"n1/busy", "n2/maint", "n3/power", "n4/first", "n4/second"}));
  auto in = [&](const std::string& state) {
    EventFilter f;
    f.states = {state};
    std::vector<std::string> got;
    for (const auto& e : all(*store, f)) got.push_back(e.node_name + "/" + e.reason);
    return got;
  };
  EXPECT_EQ(in("DOWN"), (std::vector<std::string>{"n3/power", "n4/second"}));
  EXPECT_EQ(in("DRAIN"), (std::vector<std::string>{"n1/busy", "n2/maint", "n4/first", "n4/second"}));
  EXPECT_EQ(in("IDLE"), (std::vector<std::string>{"n1/busy", "n2/maint", "n4/first"}));
  EXPECT_EQ(in("MIXED"), std::vector<std::string>{});
}

TEST(AcctEvents, DownTimeIsClippedToTheWindow) {
  TempDir dir;
  auto store = openStore(dir.file("a.db"));
  ASSERT_TRUE(store);
  // n1: 4 CPUs drained [T-600, T+600); n2: 16 CPUs down from T+3000, still open.
  apply(*store, {open(nodeEvent("n1", kT - 600, "DRAIN", "a")), close("n1", kT + 600),
                 open(nodeEvent("n2", kT + 3000, "DOWN", "b", "cpu=16"))});
  const UsageWindow w{kT, kT + 3600, kT + 3300};
  auto rows = store->downTime(w);
  ASSERT_TRUE(rows.ok()) << rows.error();
  std::map<std::string, std::int64_t> by_tres;
  for (const auto& r : *rows) by_tres[r.tres] = r.seconds;
  EXPECT_EQ(by_tres.at("cpu=4,mem=1000M"), 600);
  EXPECT_EQ(by_tres.at("cpu=16"), 300) << "an open event counts up to now";

  v1::QueryUsageRequest req;
  req.set_start(w.start);
  req.set_end(w.end);
  req.set_now(w.now);
  req.set_grouping(v1::USAGE_TOTAL);
  auto reply = ctld::queryUsage(*store, rpc::Caller{0, 0}, req, "c1", w.now);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_DOUBLE_EQ(reply->down().at("cpu"), 4.0 * 600 + 16.0 * 300);
  EXPECT_DOUBLE_EQ(reply->down().at("mem"), 1000.0 * 600);
  req.set_grouping(v1::USAGE_BY_ASSOCIATION);
  reply = ctld::queryUsage(*store, rpc::Caller{0, 0}, req, "c1", w.now);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_TRUE(reply->down().empty()) << "only cluster Utilization asks for Down";
}

TEST(AcctEvents, QueryEventsOverTheWire) {
  TempDir dir;
  auto store = openStore(dir.file("a.db"));
  ASSERT_TRUE(store);
  apply(*store, {open(nodeEvent("n1", kT, "DRAIN", "disk"))});
  v1::QueryEventsRequest req;
  req.add_nodes("n1");
  req.set_kind(2);
  auto reply = ctld::queryEvents(*store, req, "c1", kT + 10);
  ASSERT_TRUE(reply.ok()) << reply.error();
  ASSERT_EQ(reply->events_size(), 1);
  EXPECT_EQ(reply->cluster_name(), "c1");
  EXPECT_EQ(ctld::eventFromWire(reply->events(0)), nodeEvent("n1", kT, "DRAIN", "disk"));
  req.set_kind(7);
  EXPECT_FALSE(ctld::queryEvents(*store, req, "c1", kT).ok());
  req.set_kind(0);
  req.set_window_start(kT + 10);
  req.set_window_end(kT);
  EXPECT_NE(ctld::eventsRequestError(req), "");
}

TEST(AcctEvents, AVersion3FileIsMigratedAndKeepsItsJobs) {
  TempDir dir;
  const auto path = dir.file("old.db");
  {
    SqliteOptions v3;
    v3.migrate_to = 3;
    auto old = openStore(path, v3);
    ASSERT_TRUE(old);
    JobRecord j;
    j.job_id = 5;
    j.submit = j.eligible = kT;
    ASSERT_TRUE(old->upsertJob(j).ok());
    AcctBatch b;
    b.events.push_back(open(nodeEvent("n1", kT, "DOWN", "x")));
    auto refused = old->apply(b);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("keeps no events"), std::string::npos) << refused.error();
  }
  auto store = openStore(path);
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  apply(*store, {open(nodeEvent("n1", kT, "DOWN", "x"))});
  EXPECT_EQ(all(*store).size(), 1u);
  AcctFilter f;
  EXPECT_EQ(store->query(f)->size(), 1u);
}

}  // namespace
}  // namespace drover::acct
