// accounts: the fair-share tree below the implicit `root` account.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "config/sections.h"

namespace drover::config::detail {

bool parseAccounts(Context& ctx, const YAML::Node& node, std::vector<AccountConfig>& out) {
  if (!node.IsSequence()) {
    return ctx.fail(node, fmt::format("accounts: expected a list of accounts (each with name, "
                                      "parent, shares, users, priority, description, "
                                      "organization, qos, default_qos), got {}",
                                      describe(node)));
  }
  std::unordered_map<std::string, std::size_t> index;
  std::vector<YAML::Mark> parent_marks;
  for (std::size_t i = 0; i < node.size(); ++i) {
    MapReader m;
    if (!m.open(ctx, node[i], fmt::format("accounts[{}]", i), {"name", "parent", "shares", "users",
                                                                       "priority", "description",
                                                                       "organization", "qos",
                                                                       "default_qos"})) {
      return false;
    }
    AccountConfig a;
    const YAML::Node* name_node = m.require(ctx, "name");
    if (!name_node || !readName(ctx, *name_node, m.path("name"), a.name)) return false;
    if (a.name == "root") {
      return ctx.fail(*name_node, fmt::format("{}: 'root' is the implicit top of the account tree "
                                              "and cannot be defined; give accounts parent: root",
                                              m.path("name")));
    }
    if (auto [it, fresh] = index.emplace(a.name, i); !fresh) {
      return ctx.fail(*name_node, fmt::format("{}: account '{}' is already defined as accounts[{}]",
                                              m.path("name"), a.name, it->second));
    }
    if (auto* v = m.find("parent")) {
      if (!readName(ctx, *v, m.path("parent"), a.parent)) return false;
      if (a.parent == "root") a.parent.clear();
      parent_marks.push_back(v->Mark());
    } else {
      parent_marks.push_back(m.node().Mark());
    }
    if (auto* v = m.find("shares"); v && !readInteger(ctx, *v, m.path("shares"), 1, 0xFFFFFFFFLL, a.shares)) {
      return false;
    }
    if (auto* v = m.find("priority");
        v && !readInteger(ctx, *v, m.path("priority"), 0, 0xFFFFFFFFLL, a.priority)) {
      return false;
    }
    if (auto* v = m.find("users"); v && !readNameList(ctx, *v, m.path("users"), a.users)) {
      return false;
    }
    if (auto* v = m.find("description");
        v && !readString(ctx, *v, m.path("description"), a.description)) {
      return false;
    }
    if (auto* v = m.find("organization");
        v && !readString(ctx, *v, m.path("organization"), a.organization)) {
      return false;
    }
    // Checked against the QOS table by checkAccountQos.
    if (auto* v = m.find("qos"); v && !readQosList(ctx, *v, m.path("qos"), a.qos)) return false;
    if (auto* v = m.find("default_qos");
        v && !readQosName(ctx, *v, m.path("default_qos"), a.default_qos)) {
      return false;
    }
    out.push_back(std::move(a));
  }

  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string& parent = out[i].parent;
    if (!parent.empty() && !index.count(parent)) {
      std::vector<std::string> accepted{"root"};
      for (const AccountConfig& a : out) accepted.push_back(a.name);
      return ctx.fail(parent_marks[i],
                      fmt::format("accounts[{}].parent: unknown account '{}'; accepted: {}", i,
                                  parent, joinNames(accepted)));
    }
  }
  // Walk each chain of parents up to root; meeting an account twice on one walk is a cycle.
  enum class Seen { kNo, kOnPath, kReachesRoot };
  std::vector<Seen> seen(out.size(), Seen::kNo);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::vector<std::size_t> path;
    for (std::size_t at = i; seen[at] != Seen::kReachesRoot;) {
      if (seen[at] == Seen::kOnPath) {
        std::string chain = out[at].name;
        for (auto it = std::find(path.begin(), path.end(), at) + 1; it != path.end(); ++it) {
          chain += " -> " + out[*it].name;
        }
        chain += " -> " + out[at].name;
        return ctx.fail(parent_marks[at],
                        fmt::format("accounts[{}].parent: accounts form a cycle ({}); every "
                                    "account must lead up to root",
                                    at, chain));
      }
      seen[at] = Seen::kOnPath;
      path.push_back(at);
      if (out[at].parent.empty()) break;
      at = index.at(out[at].parent);
    }
    for (std::size_t p : path) seen[p] = Seen::kReachesRoot;
  }
  return true;
}

}  // namespace drover::config::detail
