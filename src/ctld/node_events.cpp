#include "ctld/node_events.h"

#include <algorithm>

#include "common/slurm_node_state.h"
#include "drover/hostlist.h"

namespace drover::ctld {
namespace {

constexpr const char* kClusterReason = "Cluster Registered TRES";

std::string tresText(std::uint64_t cpus, std::uint64_t mem_mb, std::uint64_t gpus,
                     std::uint64_t nodes) {
  std::string s = "cpu=" + std::to_string(cpus);
  if (mem_mb > 0) s += ",mem=" + std::to_string(mem_mb) + "M";
  if (nodes > 0) s += ",node=" + std::to_string(nodes);
  if (gpus > 0) s += ",gres/gpu=" + std::to_string(gpus);
  return s;
}

bool sameEvent(const acct::EventRecord& a, const acct::EventRecord& b) {
  return a.state == b.state && a.reason == b.reason && a.tres == b.tres &&
         a.cluster_nodes == b.cluster_nodes;
}

}  // namespace

std::string nodeTres(const config::NodeConfig& node) {
  return tresText(node.cpus, node.real_memory_mb, node.gpus.count, 0);
}

std::string clusterTres(const std::vector<config::NodeConfig>& nodes) {
  std::uint64_t cpus = 0, mem = 0, gpus = 0;
  for (const auto& n : nodes) {
    cpus += n.cpus;
    mem += n.real_memory_mb;
    gpus += n.gpus.count;
  }
  return tresText(cpus, mem, gpus, nodes.size());
}

std::uint32_t eventStateRaw(const NodeRecord& node) {
  namespace state = slurm_node_state;
  std::uint32_t raw = state::kUnknown;
  switch (node.base) {
    case BaseState::kDown: raw = state::kDown; break;
    case BaseState::kIdle: raw = state::kIdle; break;
    case BaseState::kAllocated: raw = state::kAllocated; break;
    case BaseState::kMixed: raw = state::kMixed; break;
    case BaseState::kUnknown: raw = state::kUnknown; break;
  }
  return node.drain ? raw | state::kFlagDrain : raw;
}

NodeEventTracker::NodeEventTracker(std::string cluster,
                                   std::function<std::uint32_t(const std::string&)> uid_of,
                                   std::string system_user)
    : cluster_(std::move(cluster)), uid_of_(std::move(uid_of)), system_user_(std::move(system_user)) {}

void NodeEventTracker::restore(const std::vector<acct::EventRecord>& open) {
  for (const auto& e : open) {
    if (e.cluster != cluster_) continue;
    open_[e.kind == acct::EventKind::kCluster ? std::string() : e.node_name] = e;
  }
}

void NodeEventTracker::close(const std::string& name, std::int64_t now,
                             std::vector<acct::EventChange>* out) {
  auto it = open_.find(name);
  if (it == open_.end()) return;
  acct::EventChange change{acct::EventChange::Op::kClose, it->second};
  change.record.time_end = std::max(now, it->second.time_start);
  out->push_back(std::move(change));
  open_.erase(it);
}

void NodeEventTracker::observe(const NodeRecord& node, std::int64_t now,
                               std::vector<acct::EventChange>* out, bool busy) {
  const std::string& name = node.config.name;
  const bool down = node.base == BaseState::kDown;
  if (node.drain && !down && busy) {
    draining_.insert(name);
    return;
  }
  if (down || node.drain) {
    acct::EventRecord e;
    e.kind = acct::EventKind::kNode;
    e.cluster = cluster_;
    e.node_name = name;
    e.time_start = now;
    // DOWN wins over the drain flag, as sinfo shows a drained node that went down.
    e.state = down ? "DOWN" : "DRAIN";
    e.state_raw = eventStateRaw(node);
    e.reason = node.reason;
    const bool was_draining = draining_.erase(name) > 0;
    e.reason_user = was_draining && !down ? system_user_ : node.reason_user;
    e.reason_uid = e.reason_user.empty() ? 0 : uid_of_(e.reason_user);
    e.tres = nodeTres(node.config);
    auto it = open_.find(name);
    if (it != open_.end() && sameEvent(it->second, e)) return;
    // The store closes the open event at the new one's start (EventChange::kOpen).
    out->push_back(acct::EventChange{acct::EventChange::Op::kOpen, e});
    open_[name] = std::move(e);
    return;
  }
  const bool in_service = node.registered && !node.not_responding && node.base != BaseState::kUnknown;
  if (in_service) {
    draining_.erase(name);
    close(name, now, out);
  }
}

void NodeEventTracker::configured(const std::vector<config::NodeConfig>& nodes, std::int64_t now,
                                  std::vector<acct::EventChange>* out) {
  std::vector<std::string> names;
  for (const auto& n : nodes) names.push_back(n.name);
  std::vector<std::string> gone;
  for (const auto& [name, e] : open_) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      gone.push_back(name);
  }
  for (const auto& name : gone) close(name, now, out);
  acct::EventRecord e;
  e.kind = acct::EventKind::kCluster;
  e.cluster = cluster_;
  e.cluster_nodes = hostlist::compress(names);
  e.time_start = now;
  e.reason = kClusterReason;
  e.tres = clusterTres(nodes);
  auto it = open_.find("");
  if (it != open_.end() && sameEvent(it->second, e)) return;
  out->push_back(acct::EventChange{acct::EventChange::Op::kOpen, e});
  open_[""] = std::move(e);
}

}  // namespace drover::ctld
