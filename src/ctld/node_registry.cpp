#include "ctld/node_registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "common/ascii_case.h"

namespace drover::ctld {
namespace {

constexpr const char* kNotResponding = "Not responding";

std::string fmtPercentReason(const char* what, std::uint64_t reported, std::uint64_t configured) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s (reported:%llu < 100.00%% of configured:%llu)", what,
                static_cast<unsigned long long>(reported),
                static_cast<unsigned long long>(configured));
  return buf;
}

}  // namespace

const char* baseStateName(BaseState s) {
  switch (s) {
    case BaseState::kUnknown: return "UNKNOWN";
    case BaseState::kIdle: return "IDLE";
    case BaseState::kAllocated: return "ALLOCATED";
    case BaseState::kMixed: return "MIXED";
    case BaseState::kDown: return "DOWN";
  }
  return "UNKNOWN";
}

std::string stateString(const NodeRecord& n) {
  std::string s = baseStateName(n.base);
  if (n.drain) s += "+DRAIN";
  if (n.not_responding) s += "*";
  return s;
}

std::string shortfallReason(const config::NodeConfig& cfg, const ReportedResources& r) {
  std::vector<std::string> parts;
  if (r.cpus < cfg.cpus) {
    parts.push_back("Low CPUs (reported:" + std::to_string(r.cpus) +
                    " < configured:" + std::to_string(cfg.cpus) + ")");
  }
  if (r.real_memory_mb < cfg.real_memory_mb) {
    parts.push_back(fmtPercentReason("Low RealMemory", r.real_memory_mb, cfg.real_memory_mb));
  }
  const std::uint32_t want_gpus = cfg.gpus.autodetect_nvidia && cfg.gpus.count == 0
                                      ? 0
                                      : cfg.gpus.count;
  if (r.gpus.size() < want_gpus) {
    parts.push_back("gres/gpu count reported lower than configured (" +
                    std::to_string(r.gpus.size()) + " < " + std::to_string(want_gpus) + ")");
  }
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

Result<UpdateKind> parseUpdateState(const std::string& text) {
  const std::string up = toUpperAscii(text);
  if (up == "DRAIN") return UpdateKind::kDrain;
  if (up == "RESUME") return UpdateKind::kResume;
  if (up == "DOWN") return UpdateKind::kDown;
  if (up == "IDLE") return UpdateKind::kIdle;
  if (up == "UNDRAIN") return UpdateKind::kUndrain;
  return makeError("Invalid node state specified: '" + text +
                   "' (accepted: DRAIN, RESUME, DOWN, IDLE, UNDRAIN)");
}

NodeRegistry::NodeRegistry(const Clock& clock, std::string system_user)
    : clock_(clock), system_user_(std::move(system_user)) {}

std::int64_t NodeRegistry::nowSeconds() const {
  return clock_.now();
}

void NodeRegistry::setReason(NodeRecord& n, std::string reason, const std::string& user) {
  n.reason = std::move(reason);
  n.reason_user = user;
  n.reason_time = nowSeconds();
}

void NodeRegistry::clearReason(NodeRecord& n) {
  n.reason.clear();
  n.reason_user.clear();
  n.reason_time = 0;
}

template <typename F>
void NodeRegistry::mutate(NodeRecord& n, bool admin, std::vector<StateChange>* out, F&& f) {
  const std::string before = stateString(n);
  const std::string before_reason = n.reason;
  f();
  const std::string after = stateString(n);
  if (out != nullptr && (before != after || before_reason != n.reason)) {
    out->push_back(StateChange{n.config.name, before, after, n.reason, admin});
  }
}

NodeRegistry::ConfigDiff NodeRegistry::applyConfig(const config::ClusterConfig& cfg) {
  ConfigDiff diff;
  std::set<std::string> wanted;
  std::vector<std::string> order;
  for (const auto& nc : cfg.nodes) {
    wanted.insert(nc.name);
    order.push_back(nc.name);
    auto it = nodes_.find(nc.name);
    if (it == nodes_.end()) {
      NodeRecord rec;
      rec.config = nc;
      rec.address = nc.address;
      rec.port = nc.port;
      rec.added_time = nowSeconds();
      nodes_.emplace(nc.name, std::move(rec));
      diff.added.push_back(nc.name);
    } else {
      it->second.config = nc;
      if (!it->second.registered) {
        it->second.address = nc.address;
        it->second.port = nc.port;
      }
    }
  }
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (wanted.count(it->first) == 0) {
      diff.removed.push_back(it->first);
      it = nodes_.erase(it);
    } else {
      ++it;
    }
  }
  order_ = std::move(order);
  return diff;
}

std::vector<StateChange> NodeRegistry::restoreAdminStates(const std::vector<AdminState>& states) {
  std::vector<StateChange> changes;
  for (const auto& s : states) {
    auto it = nodes_.find(s.name);
    if (it == nodes_.end()) continue;
    NodeRecord& n = it->second;
    mutate(n, false, &changes, [&] {
      n.admin_down = s.down;
      if (s.down) n.base = BaseState::kDown;
      n.drain = s.drain;
      n.system_drain = false;
      n.reason = s.reason;
      n.reason_user = s.reason_user;
      n.reason_time = s.reason_time;
    });
  }
  return changes;
}

Result<std::vector<StateChange>> NodeRegistry::registerAgent(const Registration& reg) {
  auto it = nodes_.find(reg.node_name);
  if (it == nodes_.end()) {
    return makeError("node '" + reg.node_name + "' is not in the cluster configuration");
  }
  NodeRecord& n = it->second;
  std::vector<StateChange> changes;
  mutate(n, false, &changes, [&] {
    n.registered = true;
    n.reported = reg.resources;
    if (!reg.address.empty()) n.address = reg.address;
    if (reg.port != 0) n.port = reg.port;
    n.version = reg.version;
    n.os = reg.os;
    n.arch = reg.arch;
    n.hostname = reg.hostname;
    n.boot_time = reg.boot_time;
    n.agent_start_time = reg.start_time;
    n.last_heartbeat = nowSeconds();
    n.not_responding = false;
    if (n.base == BaseState::kUnknown || (n.base == BaseState::kDown && !n.admin_down)) {
      n.base = BaseState::kIdle;
      if (n.reason == kNotResponding) clearReason(n);
      if (n.last_busy_time == 0) n.last_busy_time = n.last_heartbeat;
    }
    std::string shortfall = shortfallReason(n.config, reg.resources);
    if (!shortfall.empty() && (!n.drain || n.system_drain)) {
      n.drain = true;
      n.system_drain = true;
      if (n.reason != shortfall) setReason(n, shortfall, system_user_);
    }
  });
  return changes;
}

bool NodeRegistry::heartbeat(const std::string& name, double cpu_load,
                             std::uint64_t free_memory_mb, std::vector<StateChange>* changes) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || !it->second.registered) return false;
  NodeRecord& n = it->second;
  mutate(n, false, changes, [&] {
    n.last_heartbeat = nowSeconds();
    n.cpu_load = cpu_load;
    n.free_memory_mb = free_memory_mb;
    if (n.not_responding) {
      n.not_responding = false;
      if (n.base == BaseState::kDown && !n.admin_down) {
        n.base = BaseState::kIdle;
        if (n.reason == kNotResponding) clearReason(n);
      }
    }
  });
  return true;
}

NodeRegistry::TimeoutCheck NodeRegistry::checkTimeouts(std::uint32_t node_down_s) {
  TimeoutCheck check;
  std::vector<StateChange>& changes = check.changes;
  const std::int64_t now = nowSeconds();
  if (last_check_ != 0 && now - last_check_ > static_cast<std::int64_t>(node_down_s / 2)) {
    check.stalled_s = now - last_check_;
    listening_since_ = now;
  }
  last_check_ = now;
  for (const auto& name : order_) {
    NodeRecord& n = nodes_.at(name);
    const std::int64_t last =
        std::max(n.registered ? n.last_heartbeat : n.added_time, listening_since_);
    if (now - last <= static_cast<std::int64_t>(node_down_s)) continue;
    if (n.base == BaseState::kDown && n.not_responding) continue;
    if (n.registered && n.not_responding) continue;
    mutate(n, false, &changes, [&] {
      n.not_responding = true;
      n.registered = false;   // it must register again to come back with fresh resources
      if (n.base != BaseState::kDown) {
        n.base = BaseState::kDown;
        if (!n.drain || n.reason.empty()) setReason(n, kNotResponding, system_user_);
      }
    });
  }
  return check;
}

Result<std::vector<StateChange>> NodeRegistry::adminUpdate(const std::vector<std::string>& names,
                                                          UpdateKind kind,
                                                          const std::string& reason,
                                                          const std::string& user) {
  for (const auto& name : names) {
    if (nodes_.count(name) == 0) return makeError("Invalid node name specified: " + name);
  }
  if ((kind == UpdateKind::kDrain || kind == UpdateKind::kDown) && reason.empty()) {
    return makeError(
        "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
  if (kind == UpdateKind::kResume) {
    for (const auto& name : names) {
      const NodeRecord& n = nodes_.at(name);
      if (!n.drain && n.base != BaseState::kDown) {
        return makeError("Invalid node state specified: " + name + " is " + stateString(n) +
                         ", RESUME applies to DOWN or DRAINED nodes");
      }
    }
  }
  std::vector<StateChange> changes;
  for (const auto& name : names) {
    NodeRecord& n = nodes_.at(name);
    mutate(n, true, &changes, [&] {
      switch (kind) {
        case UpdateKind::kDrain:
          n.drain = true;
          n.system_drain = false;
          setReason(n, reason, user);
          break;
        case UpdateKind::kDown:
          n.base = BaseState::kDown;
          n.admin_down = true;
          setReason(n, reason, user);
          break;
        case UpdateKind::kUndrain:
          n.drain = false;
          n.system_drain = false;
          if (n.base != BaseState::kDown) clearReason(n);
          break;
        case UpdateKind::kResume:
        case UpdateKind::kIdle:
          n.drain = false;
          n.system_drain = false;
          n.admin_down = false;
          clearReason(n);
          if (n.base == BaseState::kDown || n.base == BaseState::kUnknown) {
            n.base = n.registered && !n.not_responding ? BaseState::kIdle : BaseState::kUnknown;
          }
          if (n.base == BaseState::kUnknown) {
            // Give the agent a full timeout to come back before it is marked down again.
            n.added_time = nowSeconds();
          }
          if (n.reported) {
            std::string shortfall = shortfallReason(n.config, *n.reported);
            if (!shortfall.empty()) {
              n.drain = true;
              n.system_drain = true;
              setReason(n, shortfall, system_user_);
            }
          }
          break;
      }
    });
  }
  return changes;
}

AdminState NodeRegistry::adminStateOf(const NodeRecord& n) const {
  AdminState s;
  s.name = n.config.name;
  s.down = n.admin_down;
  s.drain = n.drain && !n.system_drain;
  if (s.down || s.drain) {
    s.reason = n.reason;
    s.reason_user = n.reason_user;
    s.reason_time = n.reason_time;
  }
  return s;
}

const NodeRecord* NodeRegistry::find(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

}  // namespace drover::ctld
