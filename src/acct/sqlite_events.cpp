// Node and cluster events in the accounting file (schema version 4, table `events`): what
// `sacctmgr show event` lists and what sreport's Down sums. Few rows (one per node state
// change), so the filters that are not an index range are applied here, not in SQL.
#include <algorithm>
#include <string_view>
#include <utility>

#include "acct/sqlite_stmt.h"
#include "common/slurm_node_state.h"
#include "acct/tres_counts.h"
#include "common/ascii_case.h"

namespace drover::acct {
namespace {

constexpr const char* kEventColumns =
    "kind, cluster, node_name, cluster_nodes, time_start, time_end, state, state_raw, reason, "
    "reason_uid, reason_user, tres";

// A template so that it can read the store's private statement type.
template <typename Stmt>
EventRecord readEvent(const Stmt& s, int c = 0) {
  EventRecord e;
  e.kind = static_cast<EventKind>(s.i64(c++));
  e.cluster = s.str(c++);
  e.node_name = s.str(c++);
  e.cluster_nodes = s.str(c++);
  e.time_start = s.i64(c++);
  e.time_end = s.i64(c++);
  e.state = s.str(c++);
  e.state_raw = static_cast<std::uint32_t>(s.i64(c++));
  e.reason = s.str(c++);
  e.reason_uid = static_cast<std::uint32_t>(s.i64(c++));
  e.reason_user = s.str(c++);
  e.tres = s.str(c++);
  return e;
}

// The same event, seen again (a controller that restarted, a repeated drain with the same
// reason): it stays open with its first start.
bool sameEvent(const EventRecord& a, const EventRecord& b) {
  return a.state == b.state && a.reason == b.reason && a.tres == b.tres &&
         a.cluster_nodes == b.cluster_nodes;
}

bool containsIgnoreCase(std::string_view text, std::string_view part) {
  return toLowerAscii(std::string(text)).find(toLowerAscii(std::string(part))) != std::string::npos;
}

std::uint32_t cpusOf(const EventRecord& e) {
  const auto counts = parseTresCounts(e.tres);
  auto it = counts.find("cpu");
  return it == counts.end() ? 0 : static_cast<std::uint32_t>(it->second);
}

// States=NAME as the reference matched it, by StateRaw (Slurm's numbers): DRAIN the drain flag,
// a base state its number, so a drained node set DOWN (513) is in both DOWN and DRAIN and a
// drained idle one (514) in IDLE. An event without StateRaw: by its state's name.
bool inState(const EventRecord& e, const std::string& name) {
  namespace state = slurm_node_state;
  if (e.state_raw == 0) return equalsIgnoreCase(name, e.state);
  if (equalsIgnoreCase(name, "DRAIN")) return state::drained(e.state_raw);
  static constexpr std::pair<std::string_view, std::uint32_t> kBase[] = {
      {"UNKNOWN", state::kUnknown}, {"DOWN", state::kDown},   {"IDLE", state::kIdle},
      {"ALLOCATED", state::kAllocated}, {"MIXED", state::kMixed}, {"FUTURE", state::kFuture}};
  for (const auto& [base, number] : kBase)
    if (equalsIgnoreCase(name, base)) return state::base(e.state_raw) == number;
  return false;
}

// The filters applied after SQL: names, states, reasons, users, CPU bounds.
bool matchesRest(const EventFilter& f, const EventRecord& e) {
  auto anyOf = [](const std::vector<std::string>& wanted, auto&& matches) {
    return wanted.empty() || std::any_of(wanted.begin(), wanted.end(), matches);
  };
  if (!anyOf(f.nodes, [&](const std::string& n) { return n == e.node_name; })) return false;
  if (!anyOf(f.states, [&](const std::string& s) { return inState(e, s); })) return false;
  // Slurm matches a reason anywhere in the event's reason.
  if (!anyOf(f.reasons, [&](const std::string& r) { return containsIgnoreCase(e.reason, r); }))
    return false;
  if (!anyOf(f.users, [&](const std::string& u) {
        return u == e.reason_user || u == std::to_string(e.reason_uid);
      }))
    return false;
  if (f.min_cpus && cpusOf(e) < *f.min_cpus) return false;
  if (f.max_cpus && cpusOf(e) > *f.max_cpus) return false;
  return true;
}

}  // namespace

Status SqliteAccountingStore::applyEvents(const std::vector<EventChange>& changes) {
  auto failed = [&](const std::string& what) -> Status {
    return makeError("accounting database " + path_ + ": " + what + ": " + sqlite3_errmsg(db_));
  };
  auto find = prepared(std::string("SELECT id, ") + kEventColumns +
                       " FROM events WHERE kind = ? AND cluster = ? AND node_name = ? AND time_end = 0");
  auto close = prepared("UPDATE events SET time_end = max(time_start, ?) WHERE id = ?");
  auto insert = prepared(std::string("INSERT INTO events(") + kEventColumns +
                         ") VALUES(?,?,?,?,?,0,?,?,?,?,?,?)");
  for (auto* r : {&find, &close, &insert}) {
    if (!*r) return makeError(r->error());
  }
  for (const EventChange& change : changes) {
    const EventRecord& e = change.record;
    Stmt& f = **find;
    f.reset();
    f.bind(static_cast<std::int64_t>(e.kind));
    f.bind(e.cluster);
    f.bind(e.node_name);
    std::optional<std::int64_t> open_id;
    std::optional<EventRecord> open;
    if (sqlite3_step(f.get()) == SQLITE_ROW) {
      open_id = f.i64(0);
      open = readEvent(f, 1);
    }
    f.reset();
    const bool opening = change.op == EventChange::Op::kOpen;
    if (opening && open && sameEvent(*open, e)) continue;
    if (open_id) {
      const std::int64_t end = opening ? e.time_start : e.time_end;
      if (end <= 0) return makeError("event of node '" + e.node_name + "' closed without an end time");
      Stmt& c = **close;
      c.reset();
      c.bind(end);
      c.bind(*open_id);
      if (sqlite3_step(c.get()) != SQLITE_DONE) return failed("closing an event");
    }
    if (!opening) continue;
    Stmt& s = **insert;
    s.reset();
    s.bind(static_cast<std::int64_t>(e.kind));
    s.bind(e.cluster);
    s.bind(e.node_name);
    s.bind(e.cluster_nodes);
    s.bind(e.time_start);
    s.bind(e.state);
    s.bind(std::int64_t{e.state_raw});
    s.bind(e.reason);
    s.bind(std::int64_t{e.reason_uid});
    s.bind(e.reason_user);
    s.bind(e.tres);
    if (sqlite3_step(s.get()) != SQLITE_DONE) return failed("writing an event");
  }
  return okStatus();
}

Result<std::vector<EventRecord>> SqliteAccountingStore::events(const EventFilter& filter,
                                                               std::int64_t now) {
  std::vector<EventRecord> out;
  if (version_ < 4) return out;
  // One statement for every shape: an unset bound is bound as NULL and passes.
  auto st = prepared(std::string("SELECT ") + kEventColumns +
                     " FROM events WHERE (?1 IS NULL OR kind = ?1) AND (?2 = 0 OR time_end = 0)"
                     " AND (?3 IS NULL OR time_start <= ?3)"
                     " AND (?4 IS NULL OR (time_end = 0 AND ?5 >= ?4) OR time_end >= ?4)"
                     // The reference's order: by node (the cluster's events first), then start.
                     " ORDER BY node_name, time_start, id");
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  std::optional<std::int64_t> kind;
  if (filter.kind) kind = static_cast<std::int64_t>(*filter.kind);
  s.bind(kind);
  s.bind(std::int64_t{filter.open_only});
  s.bind(filter.window_end);
  s.bind(filter.window_start);
  s.bind(now);
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    EventRecord e = readEvent(s);
    if (matchesRest(filter, e)) out.push_back(std::move(e));
  }
  s.reset();
  if (rc != SQLITE_DONE) {
    return makeError("accounting database " + path_ + ": events: " + sqlite3_errmsg(db_));
  }
  return out;
}

Result<std::vector<EventRecord>> SqliteAccountingStore::openEvents() {
  EventFilter open;
  open.open_only = true;
  return events(open, 0);
}

Result<std::vector<DownRow>> SqliteAccountingStore::downTime(const UsageWindow& window) {
  std::vector<DownRow> out;
  if (version_ < 4) return out;
  auto st = prepared(
      "SELECT tres, sum(max(0, min(CASE WHEN time_end = 0 THEN ?3 ELSE time_end END, ?2)"
      " - max(time_start, ?1))) FROM events WHERE kind = 2 AND time_start < ?2"
      " AND (time_end = 0 OR time_end > ?1) GROUP BY tres");
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  s.bind(window.start);
  s.bind(window.end);
  s.bind(window.now);
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) out.push_back({s.str(0), s.i64(1)});
  s.reset();
  if (rc != SQLITE_DONE) {
    return makeError("accounting database " + path_ + ": down time: " + sqlite3_errmsg(db_));
  }
  return out;
}

}  // namespace drover::acct
