#include "ctld/ctld_state.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "common/log.h"
#include "drover/hostlist.h"
#include "jobspec/array_spec.h"

namespace drover::ctld {
namespace {

v1::NodeBaseState toProto(BaseState s) {
  switch (s) {
    case BaseState::kUnknown: return v1::NODE_UNKNOWN;
    case BaseState::kIdle: return v1::NODE_IDLE;
    case BaseState::kAllocated: return v1::NODE_ALLOCATED;
    case BaseState::kMixed: return v1::NODE_MIXED;
    case BaseState::kDown: return v1::NODE_DOWN;
  }
  return v1::NODE_UNKNOWN;
}

void fillConfigured(const config::NodeConfig& c, v1::NodeResources* r) {
  r->set_cpus(c.cpus);
  r->set_sockets(c.sockets);
  r->set_cores_per_socket(c.cores_per_socket);
  r->set_threads_per_core(c.threads_per_core);
  r->set_real_memory_mb(c.real_memory_mb);
  for (std::uint32_t i = 0; i < c.gpus.count; ++i) {
    auto* g = r->add_gpus();
    g->set_index(i);
    g->set_type(c.gpus.type);
    if (i < c.gpus.files.size()) g->set_file(c.gpus.files[i]);
  }
}

void fillReported(const ReportedResources& rep, v1::NodeResources* r) {
  r->set_cpus(rep.cpus);
  r->set_sockets(rep.sockets);
  r->set_cores_per_socket(rep.cores_per_socket);
  r->set_threads_per_core(rep.threads_per_core);
  r->set_real_memory_mb(rep.real_memory_mb);
  for (const auto& gpu : rep.gpus) {
    auto* g = r->add_gpus();
    g->set_index(gpu.index);
    g->set_type(gpu.type);
    g->set_file(gpu.file);
  }
}

}  // namespace

std::string gresString(const std::string& type, std::uint32_t count) {
  if (count == 0) return "";
  return type.empty() ? "gpu:" + std::to_string(count)
                      : "gpu:" + type + ":" + std::to_string(count);
}

CtldState::CtldState(config::ClusterConfig cfg, const Clock& clock, StateStore* store,
                     std::string system_user)
    : cfg_(std::move(cfg)),
      clock_(clock),
      store_(store),
      registry_(clock, std::move(system_user)),
      start_time_(clock.now()) {}

bool CtldState::isOperator(std::uint32_t uid) const {
  if (uid == 0) return true;
  const auto user = names_.user(uid);
  return user && cfg_.isOperator(uid, user->name);
}

Status CtldState::init() {
  registry_.applyConfig(cfg_);
  if (store_ != nullptr) {
    auto saved = store_->loadNodeAdminStates();
    if (!saved) return makeError(saved.error());
    logChanges(registry_.restoreAdminStates(*saved));
  }
  return okStatus();
}

void CtldState::logChanges(const std::vector<StateChange>& changes) {
  auto log = drover::log::get("ctld");
  for (const auto& c : changes) {
    log->info("node {} state {} -> {}{}{}", c.node, c.from, c.to,
             c.reason.empty() ? "" : ", reason: ", c.reason);
    if (c.admin && store_ != nullptr) {
      const NodeRecord* n = registry_.find(c.node);
      if (n == nullptr) continue;
      auto saved = store_->saveNodeAdminState(registry_.adminStateOf(*n));
      if (!saved) log->error("cannot persist state of node {}: {}", c.node, saved.error());
    }
  }
  if (on_change_) {
    for (const auto& c : changes) on_change_(c);
  }
}

Result<std::string> CtldState::reconfigure(const std::string& path) {
  const std::string file = path.empty() ? cfg_.source_path : path;
  auto loaded = config::loadClusterConfig(file);
  if (!loaded) {
    drover::log::get("ctld")->error("reconfigure rejected, old configuration stays: {}",
                                   loaded.error());
    return makeError(loaded.error());
  }
  return applyNewConfig(std::move(loaded).value());
}

Result<std::string> CtldState::applyNewConfig(config::ClusterConfig cfg) {
  std::string note;
  if (cfg.controller.host != cfg_.controller.host || cfg.controller.port != cfg_.controller.port ||
      cfg.controller.state_dir != cfg_.controller.state_dir ||
      cfg.munge_socket != cfg_.munge_socket) {
    note = "; controller address, state directory and munge socket changes need a restart";
    // Keep what the running daemon is bound to.
    cfg.controller = cfg_.controller;
    cfg.munge_socket = cfg_.munge_socket;
  }
  auto diff = install(std::move(cfg));
  std::string summary = "reconfigured from " + cfg_.source_path + ": " +
                        std::to_string(cfg_.nodes.size()) + " nodes, " +
                        std::to_string(cfg_.partitions.size()) + " partitions";
  if (!diff.added.empty()) summary += "; added " + hostlist::compress(diff.added);
  if (!diff.removed.empty()) summary += "; removed " + hostlist::compress(diff.removed);
  summary += note;
  drover::log::get("ctld")->info("{}", summary);
  return summary;
}

NodeRegistry::ConfigDiff CtldState::install(config::ClusterConfig cfg) {
  cfg_ = std::move(cfg);
  return registry_.applyConfig(cfg_);
}

Status CtldState::registerAgent(const Registration& reg) {
  auto changes = registry_.registerAgent(reg);
  if (!changes) return makeError(changes.error());
  drover::log::get("ctld")->info("node {} registered from {}:{} (cpus={} memory={}M gpus={})",
                                reg.node_name, reg.address, reg.port, reg.resources.cpus,
                                reg.resources.real_memory_mb, reg.resources.gpus.size());
  logChanges(*changes);
  return okStatus();
}

bool CtldState::heartbeat(const std::string& node, double cpu_load,
                          std::uint64_t free_memory_mb) {
  std::vector<StateChange> changes;
  const bool known = registry_.heartbeat(node, cpu_load, free_memory_mb, &changes);
  logChanges(changes);
  return known;
}

int CtldState::debugLevel() const {
  return debug_level_ >= 0 ? debug_level_ : log::debugForLevel(log::get("ctld")->level());
}

void CtldState::setDebugLevel(int level) {
  if (!start_debug_level_) start_debug_level_ = debugLevel();
  debug_level_ = level;
  log::setLevel(log::levelForDebug(level));
}

void CtldState::resetDebugLevel() {
  if (!start_debug_level_) return;  // never changed
  log::setLevel(log::levelForDebug(*start_debug_level_));
  debug_level_ = -1;
}

void CtldState::checkTimeouts() {
  const auto check = registry_.checkTimeouts(cfg_.timeouts.node_down_s);
  if (check.stalled_s > 0) {
    drover::log::get("ctld")->warn(
        "node timeouts were not checked for {} s (the controller was stalled): every node's "
        "silence counts from now, {} s to node_down",
        check.stalled_s, cfg_.timeouts.node_down_s);
  }
  logChanges(check.changes);
}

Status CtldState::updateNode(const std::string& nodes_expr, const std::string& state,
                             const std::string& reason, const std::string& user) {
  auto names = hostlist::expand(nodes_expr);
  if (!names) return makeError(names.error());
  if (names->empty()) return makeError("No node name specified (nodename=...)");
  if (state.empty()) {
    return makeError("No node state specified (accepted: DRAIN, RESUME, DOWN, IDLE, UNDRAIN)");
  }
  auto kind = parseUpdateState(state);
  if (!kind) return makeError(kind.error());
  auto changes = registry_.adminUpdate(*names, *kind, reason, user);
  if (!changes) return makeError(changes.error());
  logChanges(*changes);
  return okStatus();
}

std::map<std::string, NodeUsage> CtldState::usage() const {
  return usage_source_ ? usage_source_() : std::map<std::string, NodeUsage>{};
}

void CtldState::fillNode(const NodeRecord& n, const NodeUsage* usage, v1::NodeInfo* out) const {
  const auto& c = n.config;
  out->set_name(c.name);
  out->set_address(n.address);
  out->set_port(n.port);
  BaseState base = n.base;
  if (usage != nullptr && usage->cpus > 0 && (base == BaseState::kIdle || base == BaseState::kMixed ||
                                              base == BaseState::kAllocated)) {
    // By CPUs alone, as Slurm's: the reference showed a node whose whole memory a `--mem=0`
    // job held, or all of whose GPUs one job held, MIXED while CPUs were left.
    base = usage->cpus >= c.cpus ? BaseState::kAllocated : BaseState::kMixed;
  }
  out->set_state(toProto(base));
  if (usage != nullptr) {
    out->set_alloc_cpus(usage->cpus);
    out->set_alloc_memory_mb(usage->memory_mb);
    out->set_alloc_gpus(usage->gpus);
  }
  out->set_drain(n.drain);
  out->set_not_responding(n.not_responding);
  out->set_reason(n.reason);
  out->set_reason_user(n.reason_user);
  out->set_reason_time(n.reason_time);
  fillConfigured(c, out->mutable_configured());
  if (n.reported) fillReported(*n.reported, out->mutable_reported());
  for (const auto& f : c.features) out->add_features(f);
  out->set_weight(c.weight);
  for (const auto& p : cfg_.partitions) {
    for (const auto& pn : p.nodes) {
      if (pn == c.name) {
        out->add_partitions(p.name);
        break;
      }
    }
  }
  out->set_boot_time(n.boot_time);
  out->set_agent_start_time(n.agent_start_time);
  out->set_last_heartbeat(n.last_heartbeat);
  out->set_last_busy_time(n.last_busy_time);
  out->set_version(n.version);
  out->set_os(n.os);
  out->set_arch(n.arch);
  out->set_hostname(n.hostname);
  out->set_cpu_load(n.cpu_load);
  out->set_free_memory_mb(n.free_memory_mb);
  std::uint32_t gpus = c.gpus.count;
  std::string type = c.gpus.type;
  if (gpus == 0 && c.gpus.autodetect_nvidia && n.reported) {
    gpus = static_cast<std::uint32_t>(n.reported->gpus.size());
    if (!n.reported->gpus.empty()) type = n.reported->gpus.front().type;
  }
  out->set_gres(gresString(type, gpus));
  if (gpus == 0) {
    out->set_gres_used("");
  } else if (usage == nullptr || usage->gpu_indices.empty()) {
    out->set_gres_used(type.empty() ? "gpu:0" : "gpu:" + type + ":0");
  } else {
    std::vector<std::uint32_t> idx = usage->gpu_indices;
    std::sort(idx.begin(), idx.end());
    out->set_gres_used((type.empty() ? "gpu:" : "gpu:" + type + ":") +
                       std::to_string(idx.size()) + "(IDX:" + jobspec::compressIds(idx) + ")");
  }
}

Status CtldState::fillNodes(const std::vector<std::string>& names,
                            v1::GetNodesReply* reply) const {
  reply->set_time(clock_.now());
  const auto used = usage();
  auto usageOf = [&used](const std::string& name) -> const NodeUsage* {
    auto it = used.find(name);
    return it == used.end() ? nullptr : &it->second;
  };
  if (names.empty()) {
    for (const auto& name : registry_.order()) {
      fillNode(*registry_.find(name), usageOf(name), reply->add_nodes());
    }
    return okStatus();
  }
  for (const auto& expr : names) {
    auto expanded = hostlist::expand(expr);
    if (!expanded) return makeError(expanded.error());
    for (const auto& name : *expanded) {
      const NodeRecord* n = registry_.find(name);
      if (n == nullptr) return makeError("Node " + name + " not found");
      fillNode(*n, usageOf(name), reply->add_nodes());
    }
  }
  return okStatus();
}

Status CtldState::fillPartitions(const std::vector<std::string>& names,
                                 v1::GetPartitionsReply* reply) const {
  reply->set_time(clock_.now());
  std::set<std::string> wanted(names.begin(), names.end());
  for (const auto& name : wanted) {
    if (cfg_.findPartition(name) == nullptr) {
      return makeError("Partition " + name + " not found");
    }
  }
  for (const auto& p : cfg_.partitions) {
    if (!wanted.empty() && wanted.count(p.name) == 0) continue;
    auto* out = reply->add_partitions();
    out->set_name(p.name);
    out->set_is_default(p.is_default);
    out->set_state(std::string(config::partitionStateName(p.state)));
    out->set_max_time_min(p.max_time_min);
    out->set_default_time_min(p.default_time_min);
    out->set_max_nodes(p.max_nodes);
    out->set_priority_tier(p.priority_tier);
    out->set_priority_job_factor(p.priority_job_factor);
    out->set_nodes(hostlist::compress(p.nodes));
    for (const auto& a : p.allow_accounts) out->add_allow_accounts(a);
    for (const auto& g : p.allow_groups) out->add_allow_groups(g);
    out->set_exclusive(p.exclusive);
    const config::PreemptMode mode = config::effectivePreemptMode(cfg_.scheduler, p);
    out->set_preempt_mode(std::string(config::preemptModeName(mode)));
    out->set_grace_time_s(p.grace_time_s);
    std::uint32_t cpus = 0, gpus = 0;
    std::uint64_t mem = 0;
    for (const auto& nn : p.nodes) {
      const NodeRecord* n = registry_.find(nn);
      if (n == nullptr) continue;
      cpus += n->config.cpus;
      mem += n->config.real_memory_mb;
      gpus += n->config.gpus.count;
    }
    out->set_total_cpus(cpus);
    out->set_total_nodes(static_cast<std::uint32_t>(p.nodes.size()));
    out->set_total_memory_mb(mem);
    out->set_total_gpus(gpus);
  }
  return okStatus();
}

}  // namespace drover::ctld
