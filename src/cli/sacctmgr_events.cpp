#include "cli/sacctmgr_events.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "cli/job_values.h"
#include "cli/node_values.h"
#include "cli/window_time.h"
#include "common/ascii_case.h"
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
    {"NodeName", "NodeName", 15},     {"Reason", "Reason", 30},
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

// A condition key, any case, singular or plural ("node", "nodes").
bool isKey(std::string_view key, std::string_view name) {
  if (equalsIgnoreCase(key, name)) return true;
  return key.size() == name.size() + 1 && (key.back() == 's' || key.back() == 'S') &&
         equalsIgnoreCase(key.substr(0, name.size()), name);
}

Result<std::uint32_t> cpuCount(const std::string& key, const std::string& value) {
  std::uint32_t n = 0;
  if (value.empty() || value.size() > 9 || !std::all_of(value.begin(), value.end(), ::isdigit))
    return makeError(" Invalid " + key + " value: '" + value + "' (a number of CPUs)");
  n = static_cast<std::uint32_t>(std::stoul(value));
  return n;
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
  if (field == "State") return node ? e.state() : "";
  if (field == "StateRaw") return node ? std::to_string(e.state_raw()) : "";
  if (field == "TRES") return e.tres();
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
      if (equalsIgnoreCase(w, "where") || equalsIgnoreCase(w, "all_clusters")) continue;
      if (equalsIgnoreCase(w, "all_time")) {
        all_time = true;
        continue;
      }
      return makeError(" Unknown condition: " + w);
    }
    const std::string key = w.substr(0, eq);
    const std::string value = w.substr(eq + 1);
    const std::vector<std::string> values = splitCommas(value);
    if (equalsIgnoreCase(key, "format")) {
      for (const std::string& item : values) {
        auto choice = splitFieldWidth(item);
        if (!choice.ok()) return makeError(choice.error());
        q.format.push_back(*choice);
      }
      if (q.format.empty()) return makeError("Unknown field ''");
    } else if (isKey(key, "cluster")) {
      q.clusters.insert(q.clusters.end(), values.begin(), values.end());
    } else if (isKey(key, "condflag")) {
      for (const std::string& flag : values) {
        if (!equalsIgnoreCase(flag, "open"))
          return makeError(" Unknown CondFlags value: '" + flag + "' (accepted: Open)");
        r.set_open_only(true);
      }
    } else if (equalsIgnoreCase(key, "start") || equalsIgnoreCase(key, "end")) {
      auto t = parseWindowTime(value, now);
      if (!t.ok()) return makeError(" Invalid time specification: '" + value + "' (" + t.error() + ")");
      (equalsIgnoreCase(key, "start") ? start : end) = *t;
    } else if (isKey(key, "event")) {
      if (startsWithIgnoreCase("cluster", value) && !value.empty()) {
        r.set_kind(kClusterEvent);
      } else if (startsWithIgnoreCase("node", value) && !value.empty()) {
        r.set_kind(kNodeEvent);
      } else {
        return makeError(" Unknown event type: '" + value + "' Valid types are Cluster and Node.");
      }
    } else if (equalsIgnoreCase(key, "mincpus") || equalsIgnoreCase(key, "maxcpus")) {
      auto n = cpuCount(key, value);
      if (!n.ok()) return makeError(n.error());
      if (equalsIgnoreCase(key, "mincpus")) r.set_min_cpus(*n); else r.set_max_cpus(*n);
    } else if (isKey(key, "node") || equalsIgnoreCase(key, "nodename")) {
      auto names = hostlist::expand(value);
      if (!names.ok()) return makeError(" Invalid node list '" + value + "': " + names.error());
      for (auto& n : *names) r.add_nodes(n);
    } else if (isKey(key, "reason")) {
      for (const auto& v : values) r.add_reasons(v);
    } else if (isKey(key, "state")) {
      for (const auto& v : values) r.add_states(toUpperAscii(v));
      r.set_kind(kNodeEvent);   // only node events have states (man page)
    } else if (isKey(key, "user")) {
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
    if (f == nullptr) return makeError("Unknown field '" + choice.name + "'");
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
