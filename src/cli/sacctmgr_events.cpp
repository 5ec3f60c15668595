#include "cli/sacctmgr_events.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>

#include "cli/job_values.h"
#include "cli/node_values.h"
#include "cli/window_time.h"
#include "common/ascii_case.h"
#include "common/slurm_node_state.h"
#include "common/comma_list.h"
#include "drover/hostlist.h"

namespace drover::cli {
namespace {

constexpr std::uint32_t kClusterEvent = 1, kNodeEvent = 2;

// A column: the name format= takes, its header, width and side.
struct EventField {
  std::string_view name;
  std::string_view header;
  int width;
  bool left = false;
};
constexpr EventField kFields[] = {
    {"Cluster", "Cluster", 10},       {"ClusterNodes", "Cluster Nodes", 20},
    {"Duration", "Duration", 13},     {"End", "TimeEnd", 19},
    {"Event", "Event", 7},            {"EventRaw", "EventRaw", 8},
    {"NodeName", "NodeName", 15, true}, {"Reason", "Reason", 30},
    {"Start", "TimeStart", 19},       {"State", "State", 6},
    {"StateRaw", "StateRaw", 8},      {"TRES", "TRES", 20},
    {"User", "User", 10},
};
constexpr std::string_view kDefaultFormat[] = {"Cluster", "NodeName", "Start", "End",
                                               "State",   "Reason",   "User"};

// A whole name or header first, then the one field whose name it begins.
const EventField* findField(std::string_view name) {
  if (name.empty()) return nullptr;
  for (const EventField& f : kFields)
    if (equalsIgnoreCase(f.name, name) || equalsIgnoreCase(f.header, name)) return &f;
  const EventField* found = nullptr;
  for (const EventField& f : kFields) {
    if (!startsWithIgnoreCase(f.name, name)) continue;
    if (found != nullptr) return nullptr;
    found = &f;
  }
  return found;
}

// A condition key as the reference's sacctmgr took it: any case, a beginning of the name at
// least `min` long ("n=", "stat=", "star="; "users=" and "s=" are unknown conditions there).
bool isKey(std::string_view key, std::string_view name, std::size_t min) {
  return key.size() >= min && key.size() <= name.size() && startsWithIgnoreCase(name, key);
}

// Event=Node|Cluster (a beginning of either); the reference's error, with the value lowered.
Result<std::uint32_t> eventKind(const std::string& value) {
  if (!value.empty() && startsWithIgnoreCase("cluster", value)) return kClusterEvent;
  if (!value.empty() && startsWithIgnoreCase("node", value)) return kNodeEvent;
  return makeError(" Unknown event type: '" + toLowerAscii(value) +
                   "'  Valid events are Cluster and Node.");
}

// States=: a beginning of one of the node states the reference's sacctmgr knew, as its full
// name ("idl" -> IDLE); anything else is its fatal error (exit 1).
Result<std::string> nodeStateName(const std::string& value) {
  static constexpr std::string_view kStates[] = {"DRAIN", "FAIL",  "UNKNOWN", "DOWN",  "IDLE",
                                                 "ALLOCATED", "?", "MIXED",   "FUTURE"};
  for (std::string_view s : kStates)
    if (!value.empty() && startsWithIgnoreCase(s, value)) return std::string(s);
  std::string names;
  for (std::string_view s : kStates) names += std::string(s) + " ";
  return makeError("Invalid state: " + value + "\nValid node states are: " + names +
                   "\nsacctmgr: fatal: unrecognized job state value");
}

Result<std::uint32_t> cpuCount(const std::string& key, const std::string& value) {
  std::uint32_t n = 0;
  if (value.empty() || value.size() > 9 || !std::all_of(value.begin(), value.end(), ::isdigit))
    return makeError(" Invalid " + key + " value: '" + value + "' (a number of CPUs)");
  n = static_cast<std::uint32_t>(std::stoul(value));
  return n;
}

// The node's state as sinfo's compact name, from StateRaw (Slurm's numbers): the reference
// printed DRAIN for a drained node set DOWN (StateRaw 513), and DOWN for one only down.
std::string compactState(const v1::AcctEvent& e) {
  namespace state = slurm_node_state;
  const std::uint32_t raw = e.state_raw();
  if (raw == 0) return e.state();   // not recorded
  const std::uint32_t base = state::base(raw);
  if (state::drained(raw)) {
    return base == state::kAllocated || base == state::kMixed ? "DRNG" : "DRAIN";
  }
  switch (base) {
    case state::kDown: return "DOWN";
    case state::kIdle: return "IDLE";
    case state::kAllocated: return "ALLOC";
    case state::kMixed: return "MIX";
    default: return e.state();
  }
}

// TRES as the reference's sacctmgr printed them: by name, billing beside cpu (Drover bills a
// CPU as 1), memory in the largest whole unit ("mem=64G"); a cluster event lists every TRES
// the cluster has, those Drover does not count as 0 (the reference's
// "billing=64,cpu=64,energy=0,fs/disk=0,gres/gpu=32,mem=256G,node=4,pages=0,vmem=0").
std::string eventTres(const std::string& stored, bool cluster) {
  std::map<std::string, std::string> items;
  for (const std::string& item : splitCommas(stored)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    // The controller writes memory in MB ("mem=65536M").
    if (key == "mem" && value.size() > 1 && value.back() == 'M' &&
        std::all_of(value.begin(), value.end() - 1, ::isdigit)) {
      value = formatTresMemory(std::stoull(value.substr(0, value.size() - 1)));
    }
    items[key] = value;
  }
  if (auto cpu = items.find("cpu"); cpu != items.end()) items.emplace("billing", cpu->second);
  if (cluster) {
    for (const char* zero : {"energy", "fs/disk", "pages", "vmem"}) items.emplace(zero, "0");
  }
  std::string out;
  for (const auto& [key, value] : items) out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

std::string valueOf(std::string_view field, const v1::AcctEvent& e, std::int64_t now) {
  const bool node = e.kind() == kNodeEvent;
  if (field == "Cluster") return e.cluster();
  if (field == "ClusterNodes") return node ? "" : e.cluster_nodes();
  if (field == "Duration")
    return formatScontrolDuration((e.time_end() > 0 ? e.time_end() : now) - e.time_start());
  if (field == "End") return e.time_end() > 0 ? formatIsoTime(e.time_end()) : "Unknown";
  if (field == "Event") return node ? "Node" : "Cluster";
  if (field == "EventRaw") return std::to_string(e.kind());
  if (field == "NodeName") return e.node_name();
  if (field == "Reason") return e.reason();
  if (field == "Start") return formatIsoTime(e.time_start());
  if (field == "State") return node ? compactState(e) : "";
  if (field == "StateRaw") return std::to_string(node ? e.state_raw() : 0);   // 0: the reference's
  if (field == "TRES") return eventTres(e.tres(), !node);
  if (field == "User") {
    if (!node || e.reason_user().empty()) return "";
    return e.reason_user() + "(" + std::to_string(e.reason_uid()) + ")";
  }
  return "";
}

}  // namespace

Result<EventQuery> parseEventConditions(const std::vector<std::string>& conditions, std::int64_t now) {
  EventQuery q;
  v1::QueryEventsRequest& r = q.request;
  bool all_time = false;
  std::optional<std::int64_t> start, end;
  for (const std::string& w : conditions) {
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos) {
      if (equalsIgnoreCase(w, "where") || isKey(w, "all_clusters", 5)) continue;
      if (isKey(w, "all_time", 5)) {
        all_time = true;
        continue;
      }
      // Any other word is an event type, as the reference's `sacctmgr show event node`.
      auto kind = eventKind(w);
      if (!kind.ok()) return makeError(kind.error());
      r.set_kind(*kind);
      continue;
    }
    const std::string key = w.substr(0, eq);
    const std::string value = w.substr(eq + 1);
    const std::vector<std::string> values = splitCommas(value);
    if (isKey(key, "format", 1)) {
      for (const std::string& item : values) {
        auto choice = splitFieldWidth(item);
        if (!choice.ok()) return makeError(choice.error());
        q.format.push_back(*choice);
      }
      if (q.format.empty()) return makeError("Unknown field ''");
    } else if (isKey(key, "clusters", 2)) {
      q.clusters.insert(q.clusters.end(), values.begin(), values.end());
    } else if (isKey(key, "condflags", 2)) {
      for (const std::string& flag : values) {
        if (!equalsIgnoreCase(flag, "open"))
          return makeError(" Unknown CondFlags value: '" + flag + "' (accepted: Open)");
        r.set_open_only(true);
      }
    } else if (isKey(key, "start", 4) || isKey(key, "end", 2)) {
      auto t = parseWindowTime(value, now);
      if (t.ok()) (isKey(key, "start", 4) ? start : end) = *t;
      else if (!value.empty()) q.warnings.push_back(t.error());
    } else if (isKey(key, "events", 1)) {
      auto kind = eventKind(value);
      if (!kind.ok()) return makeError(kind.error());
      r.set_kind(*kind);
    } else if (isKey(key, "mincpus", 2) || isKey(key, "maxcpus", 2)) {
      auto n = cpuCount(key, value);
      if (!n.ok()) return makeError(n.error());
      if (isKey(key, "mincpus", 2)) r.set_min_cpus(*n); else r.set_max_cpus(*n);
    } else if (isKey(key, "nodes", 1)) {
      auto names = hostlist::expand(value);
      if (!names.ok()) return makeError(" Invalid node list '" + value + "': " + names.error());
      for (auto& n : *names) r.add_nodes(n);
    } else if (isKey(key, "reason", 1)) {
      for (const auto& v : values) r.add_reasons(v);
    } else if (isKey(key, "states", 4)) {
      for (const auto& v : values) {
        auto state = nodeStateName(v);
        if (!state.ok()) return makeError(state.error());
        r.add_states(*state);
      }
      r.set_kind(kNodeEvent);   // only node events have states (man page)
    } else if (isKey(key, "user", 1)) {
      for (const auto& v : values) r.add_users(v);
      r.set_kind(kNodeEvent);   // only slurm's user makes cluster events (man page)
    } else {
      return makeError(" Unknown condition: " + w);
    }
  }
  if (!all_time) {
    // States= without Start= asks for the events open in those states now (man page).
    if (!start && r.states_size() > 0) {
      r.set_open_only(true);
    } else {
      r.set_window_start(start ? *start : localMidnight(now) - 86400);
      r.set_window_end(end ? *end : now);
    }
  }
  if (r.has_window_start() && r.has_window_end() && r.window_end() < r.window_start())
    return makeError(" Start time (" + formatIsoTime(r.window_start()) + ") is after end time (" +
                     formatIsoTime(r.window_end()) + ")");
  return q;
}

Result<std::string> renderEvents(const EventQuery& query, const v1::QueryEventsReply& reply,
                                 const TableStyle& style, std::int64_t now) {
  std::vector<FieldWidthChoice> format = query.format;
  if (format.empty())
    for (std::string_view name : kDefaultFormat) format.push_back({std::string(name), 0});
  std::vector<TableColumn> columns;
  std::vector<std::string_view> names;
  for (const auto& choice : format) {
    const EventField* f = findField(choice.name);
    if (f == nullptr) return makeError("Unknown field '" + toLowerAscii(choice.name) + "'");
    columns.push_back(chosenColumn(std::string(f->header), f->width, f->left, choice.width));
    names.push_back(f->name);
  }
  const bool wanted_cluster =
      query.clusters.empty() ||
      std::any_of(query.clusters.begin(), query.clusters.end(),
                  [&](const std::string& c) { return equalsIgnoreCase(c, reply.cluster_name()); });
  std::vector<TableRow> rows;
  if (wanted_cluster) {
    for (const auto& e : reply.events()) {
      TableRow row;
      for (std::string_view name : names) row.push_back(valueOf(name, e, now));
      rows.push_back(std::move(row));
    }
  }
  return renderTable(columns, rows, style);
}

}  // namespace drover::cli
