#include "ctld/event_query.h"

namespace drover::ctld {

acct::EventFilter eventFilterFromWire(const v1::QueryEventsRequest& r) {
  acct::EventFilter f;
  if (r.kind() != 0) f.kind = static_cast<acct::EventKind>(r.kind());
  f.nodes.assign(r.nodes().begin(), r.nodes().end());
  f.states.assign(r.states().begin(), r.states().end());
  f.reasons.assign(r.reasons().begin(), r.reasons().end());
  f.users.assign(r.users().begin(), r.users().end());
  if (r.has_window_start()) f.window_start = r.window_start();
  if (r.has_window_end()) f.window_end = r.window_end();
  f.open_only = r.open_only();
  if (r.has_min_cpus()) f.min_cpus = r.min_cpus();
  if (r.has_max_cpus()) f.max_cpus = r.max_cpus();
  return f;
}

v1::AcctEvent eventToWire(const acct::EventRecord& e) {
  v1::AcctEvent w;
  w.set_kind(static_cast<std::uint32_t>(e.kind));
  w.set_cluster(e.cluster);
  w.set_node_name(e.node_name);
  w.set_cluster_nodes(e.cluster_nodes);
  w.set_time_start(e.time_start);
  w.set_time_end(e.time_end);
  w.set_state(e.state);
  w.set_state_raw(e.state_raw);
  w.set_reason(e.reason);
  w.set_reason_uid(e.reason_uid);
  w.set_reason_user(e.reason_user);
  w.set_tres(e.tres);
  return w;
}

acct::EventRecord eventFromWire(const v1::AcctEvent& w) {
  acct::EventRecord e;
  e.kind = static_cast<acct::EventKind>(w.kind());
  e.cluster = w.cluster();
  e.node_name = w.node_name();
  e.cluster_nodes = w.cluster_nodes();
  e.time_start = w.time_start();
  e.time_end = w.time_end();
  e.state = w.state();
  e.state_raw = w.state_raw();
  e.reason = w.reason();
  e.reason_uid = w.reason_uid();
  e.reason_user = w.reason_user();
  e.tres = w.tres();
  return e;
}

std::string eventsRequestError(const v1::QueryEventsRequest& r) {
  if (r.kind() > static_cast<std::uint32_t>(acct::EventKind::kNode))
    return "unknown event kind " + std::to_string(r.kind()) + " (1: cluster, 2: node)";
  if (r.has_window_start() && r.has_window_end() && r.window_end() < r.window_start())
    return "event window: end is before start";
  if (r.has_min_cpus() && r.has_max_cpus() && r.max_cpus() < r.min_cpus())
    return "MaxCPUs is below MinCPUs";
  return "";
}

Result<v1::QueryEventsReply> queryEvents(acct::SqliteAccountingStore& store,
                                         const v1::QueryEventsRequest& request,
                                         const std::string& cluster_name, std::int64_t now) {
  if (auto why = eventsRequestError(request); !why.empty()) return makeError(why);
  auto events = store.events(eventFilterFromWire(request), now);
  if (!events.ok()) return makeError("event query failed: " + events.error());
  v1::QueryEventsReply reply;
  reply.set_cluster_name(cluster_name);
  for (const auto& e : *events) *reply.add_events() = eventToWire(e);
  return reply;
}

}  // namespace drover::ctld
