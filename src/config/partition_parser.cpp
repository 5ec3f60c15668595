// partitions: named sets of configured nodes with limits, as Slurm's PartitionName= lines.
#include <fmt/format.h>

#include <charconv>
#include <unordered_map>
#include <unordered_set>

#include "config/sections.h"
#include "drover/hostlist.h"

namespace drover::config::detail {
namespace {

constexpr std::int64_t kMaxPriority = 65533;  // Slurm's bound for PriorityTier/JobFactor

// "ALL", a hostlist, or a list of hostlists; every name must be a configured node.
bool parsePartitionNodes(Context& ctx, const YAML::Node& node, const std::string& path,
                         const std::vector<NodeConfig>& nodes,
                         const std::unordered_set<std::string_view>& known,
                         std::vector<std::string>& out) {
  if (node.IsScalar() && node.Scalar() == "ALL") {
    out.reserve(nodes.size());
    for (const NodeConfig& n : nodes) out.push_back(n.name);
    return true;
  }
  std::vector<YAML::Node> items;
  if (node.IsSequence() && node.size() > 0) {
    for (std::size_t i = 0; i < node.size(); ++i) items.push_back(node[i]);
  } else if (node.IsScalar()) {
    items.push_back(node);
  } else {
    return ctx.fail(node, fmt::format("{}: expected ALL, a hostlist such as node[1-2], or a list "
                                      "of hostlists, got {}",
                                      path, describe(node)));
  }
  std::unordered_set<std::string> seen;
  std::vector<std::string> unknown;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::vector<std::string> names;
    const std::string item_path = items.size() == 1 && node.IsScalar() ? path
                                                                       : fmt::format("{}[{}]", path, i);
    // Bounded by the node count (plus slack for the unknown names we report).
    if (!readHostlist(ctx, items[i], item_path, nodes.size() + 1024, names)) return false;
    for (std::string& name : names) {
      if (!known.count(name)) {
        unknown.push_back(name);
      } else if (seen.insert(name).second) {
        out.push_back(std::move(name));
      }
    }
    if (!unknown.empty()) {
      return ctx.fail(items[i],
                      fmt::format("{}: unknown node(s) {}; partitions may name only nodes "
                                  "configured under nodes ({}), or ALL",
                                  item_path, hostlist::compress(unknown),
                                  nodes.size() <= 64 ? hostlist::compress([&] {
                                    std::vector<std::string> all;
                                    for (const NodeConfig& n : nodes) all.push_back(n.name);
                                    return all;
                                  }())
                                                     : fmt::format("{} nodes", nodes.size())));
    }
  }
  return true;
}

bool readMaxNodes(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::int64_t& out) {
  if (node.IsScalar() && node.Scalar() == "UNLIMITED") {
    out = kUnlimited;
    return true;
  }
  std::int64_t v = 0;
  const std::string& s = node.Scalar();  // "" for non-scalars
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!node.IsScalar() || s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 1 ||
      v > 0xFFFFFFFFLL) {
    return ctx.fail(node, fmt::format("{}: expected UNLIMITED or an integer from 1 to 4294967295, "
                                      "got {}",
                                      path, describe(node)));
  }
  out = v;
  return true;
}

bool parseAllowList(Context& ctx, const MapReader& m, std::string_view key,
                    std::vector<std::string>& out) {
  const YAML::Node* v = m.find(key);
  if (!v) return true;
  if (v->IsScalar() && v->Scalar() == "ALL") return true;  // empty = ALL
  if (!readNameList(ctx, *v, m.path(key), out)) return false;
  for (const std::string& name : out) {
    if (name == "ALL") {
      out.clear();  // a list that contains ALL allows everyone
      break;
    }
  }
  return true;
}

}  // namespace

bool parsePartitions(Context& ctx, const YAML::Node& node, const std::vector<NodeConfig>& nodes,
                     std::vector<PartitionConfig>& out) {
  if (!node.IsSequence() || node.size() == 0) {
    return ctx.fail(node, fmt::format("partitions: expected a non-empty list of partitions (each "
                                      "with name, nodes, ...), got {}",
                                      describe(node)));
  }
  std::unordered_set<std::string_view> known;
  for (const NodeConfig& n : nodes) known.insert(n.name);
  std::unordered_map<std::string, int> names;  // name -> line
  std::size_t default_index = node.size();
  int default_line = 0;

  for (std::size_t i = 0; i < node.size(); ++i) {
    MapReader m;
    if (!m.open(ctx, node[i], fmt::format("partitions[{}]", i),
                {"name", "nodes", "default", "max_time", "default_time", "max_nodes",
                 "priority_tier", "priority_job_factor", "state", "allow_accounts",
                 "allow_groups", "exclusive", "preempt_mode", "grace_time"})) {
      return false;
    }
    PartitionConfig p;
    const YAML::Node* name_node = m.require(ctx, "name");
    if (!name_node || !readName(ctx, *name_node, m.path("name"), p.name)) return false;
    if (auto [it, fresh] = names.emplace(p.name, name_node->Mark().line + 1); !fresh) {
      return ctx.fail(*name_node, fmt::format("{}: partition '{}' is already defined at line {}; "
                                              "partition names must be unique",
                                              m.path("name"), p.name, it->second));
    }
    const YAML::Node* nodes_node = m.require(ctx, "nodes");
    if (!nodes_node || !parsePartitionNodes(ctx, *nodes_node, m.path("nodes"), nodes, known, p.nodes)) {
      return false;
    }
    if (auto* v = m.find("default")) {
      if (!readBool(ctx, *v, m.path("default"), p.is_default)) return false;
      if (p.is_default && default_index != node.size()) {
        return ctx.fail(*v, fmt::format("{}: partition '{}' is marked default, but so is '{}' "
                                        "(line {}); at most one partition may be the default",
                                        m.path("default"), p.name, out[default_index].name,
                                        default_line));
      }
      if (p.is_default) {
        default_index = i;
        default_line = v->Mark().line + 1;
      }
    }
    if (auto* v = m.find("max_time"); v && !readTimeMinutes(ctx, *v, m.path("max_time"), p.max_time_min)) {
      return false;
    }
    if (auto* v = m.find("default_time")) {
      if (!readTimeMinutes(ctx, *v, m.path("default_time"), p.default_time_min)) return false;
      const bool exceeds = p.max_time_min != kUnlimited &&
                           (p.default_time_min == kUnlimited || p.default_time_min > p.max_time_min);
      if (exceeds) {
        return ctx.fail(*v, fmt::format("{}: default_time ({}) exceeds max_time ({}); a job "
                                        "without --time would be over the partition's limit",
                                        m.path("default_time"), v->Scalar(),
                                        m.find("max_time")->Scalar()));
      }
    }
    if (auto* v = m.find("max_nodes"); v && !readMaxNodes(ctx, *v, m.path("max_nodes"), p.max_nodes)) {
      return false;
    }
    if (auto* v = m.find("priority_tier");
        v && !readInteger(ctx, *v, m.path("priority_tier"), 0, kMaxPriority, p.priority_tier)) {
      return false;
    }
    if (auto* v = m.find("priority_job_factor");
        v && !readInteger(ctx, *v, m.path("priority_job_factor"), 0, kMaxPriority,
                          p.priority_job_factor)) {
      return false;
    }
    if (auto* v = m.find("state")) {
      std::size_t s = 0;
      if (!readChoice(ctx, *v, m.path("state"), {"UP", "DOWN", "DRAIN", "INACTIVE"}, s)) {
        return false;
      }
      p.state = static_cast<PartitionState>(s);
    }
    if (!parseAllowList(ctx, m, "allow_accounts", p.allow_accounts) ||
        !parseAllowList(ctx, m, "allow_groups", p.allow_groups)) {
      return false;
    }
    if (auto* v = m.find("exclusive"); v && !readBool(ctx, *v, m.path("exclusive"), p.exclusive)) {
      return false;
    }
    if (auto* v = m.find("preempt_mode")) {
      PreemptMode mode = PreemptMode::kOff;
      if (!readPreemptMode(ctx, *v, m.path("preempt_mode"), mode)) return false;
      p.preempt_mode = mode;
    }
    // Slurm's GraceTime is whole seconds.
    if (auto* v = m.find("grace_time");
        v && !readInteger(ctx, *v, m.path("grace_time"), 0, kMaxGraceTimeS, p.grace_time_s)) {
      return false;
    }
    out.push_back(std::move(p));
  }
  if (default_index == out.size()) out.front().is_default = true;  // as Slurm: the first one
  return true;
}

}  // namespace drover::config::detail
