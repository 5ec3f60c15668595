// CtldState::updatePartition: scontrol update, create and delete PartitionName= on the running
// configuration.
#include <algorithm>
#include <set>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "common/log.h"
#include "ctld/ctld_state.h"
#include "drover/hostlist.h"

namespace drover::ctld {
namespace {

// "ALL" (any case) is no restriction, as cluster.conf's allow_accounts/allow_groups.
std::vector<std::string> allowList(const std::string& value) {
  if (toUpperAscii(value) == "ALL") return {};
  return splitCommas(value);
}

std::optional<config::PartitionState> stateOf(const std::string& name) {
  for (auto s : {config::PartitionState::kUp, config::PartitionState::kDown,
                 config::PartitionState::kDrain, config::PartitionState::kInactive}) {
    if (config::partitionStateName(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace

Status CtldState::updatePartition(const v1::UpdatePartitionRequest& req, const std::string& user) {
  config::ClusterConfig next = cfg_;
  auto it = std::find_if(next.partitions.begin(), next.partitions.end(),
                         [&](const config::PartitionConfig& p) { return p.name == req.name(); });
  const bool create = req.action() == v1::UpdatePartitionRequest::CREATE;
  if (create) {
    // A name a job's `-p` list could not hold is no name (the reference refused an existing one
    // with the same words).
    const bool unusable = req.name().empty() ||
                          req.name().find_first_of(", \t\n") != std::string::npos;
    if (it != next.partitions.end() || unusable) {
      return makeError("Invalid partition name specified");
    }
    config::PartitionConfig fresh;  // cluster.conf's defaults: UP, no limits, tier 1, factor 1
    fresh.name = req.name();
    next.partitions.push_back(std::move(fresh));
    it = std::prev(next.partitions.end());
  } else if (it == next.partitions.end()) {
    return makeError("Invalid partition name specified");
  }
  if (req.action() == v1::UpdatePartitionRequest::DELETE) {
    next.partitions.erase(it);
    install(std::move(next));
    log::get("ctld")->info("partition {} deleted by {}", req.name(), user);
    return okStatus();
  }
  config::PartitionConfig& part = *it;

  if (req.has_state()) {
    auto s = stateOf(req.state());
    if (!s) return makeError("Invalid partition state " + req.state());
    part.state = *s;
  }
  if (req.has_max_time_min()) part.max_time_min = req.max_time_min();
  if (req.has_default_time_min()) part.default_time_min = req.default_time_min();
  if (req.has_max_nodes()) part.max_nodes = req.max_nodes();
  if (req.has_priority_tier()) part.priority_tier = req.priority_tier();
  if (req.has_priority_job_factor()) part.priority_job_factor = req.priority_job_factor();
  if (req.has_allow_accounts()) part.allow_accounts = allowList(req.allow_accounts());
  if (req.has_allow_groups()) part.allow_groups = allowList(req.allow_groups());
  if (req.has_exclusive()) part.exclusive = req.exclusive();
  if (req.has_preempt_mode()) {
    const auto mode = config::preemptModeNamed(req.preempt_mode());
    if (!mode) return makeError("Invalid preempt mode " + req.preempt_mode());
    part.preempt_mode = *mode;
  }
  if (req.has_grace_time_s()) part.grace_time_s = req.grace_time_s();
  if (req.has_nodes()) {
    std::vector<std::string> names;
    if (toUpperAscii(req.nodes()) == "ALL") {
      for (const auto& n : next.nodes) names.push_back(n.name);
    } else if (!req.nodes().empty()) {
      auto expanded = hostlist::expand(req.nodes());
      if (!expanded) return makeError("Invalid node name specified");
      std::set<std::string> known;
      for (const auto& n : next.nodes) known.insert(n.name);
      std::set<std::string> seen;
      for (auto& name : *expanded) {
        if (!known.contains(name)) return makeError("Invalid node name specified");
        if (seen.insert(name).second) names.push_back(std::move(name));
      }
    }
    part.nodes = std::move(names);
  }
  if (req.has_is_default()) {
    // YES takes it from the partition that had it; NO leaves the cluster without one, so that
    // a job naming no partition is refused, as the reference's.
    for (auto& p : next.partitions) {
      if (req.is_default() || &p == &part) p.is_default = false;
    }
    part.is_default = req.is_default();
  }

  install(std::move(next));
  log::get("ctld")->info("partition {} {} by {}: {}", req.name(), create ? "created" : "updated",
                         user, req.ShortDebugString());
  return okStatus();
}

}  // namespace drover::ctld
