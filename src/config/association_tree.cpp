#include "config/association_tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace drover::config {

std::vector<AssociationNode> associationTree(const ClusterConfig& config) {
  // Children of each account: its users first (sorted, once each), then its child accounts in
  // the file's order. `root` is implicit (the parser refuses an account of that name).
  std::map<std::string, const AccountConfig*> by_name;
  for (const auto& a : config.accounts) by_name.emplace(a.name, &a);
  std::map<std::string, std::vector<std::string>> users_of;
  std::map<std::string, std::vector<std::string>> children_of;
  users_of["root"].push_back("root");
  for (const auto& a : config.accounts) {
    auto& users = users_of[a.name];
    users.insert(users.end(), a.users.begin(), a.users.end());
    if (a.name != "root") children_of[a.parent.empty() ? "root" : a.parent].push_back(a.name);
  }
  for (auto& [account, users] : users_of) {
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
  }

  std::vector<AssociationNode> tree;
  std::set<std::string> walked{"root"};
  std::function<void(const std::string&, int, int, std::int64_t)> walk =
      [&](const std::string& account, int depth, int parent, std::int64_t inherited) {
        const auto it = by_name.find(account);
        const AccountConfig* a = account == "root" || it == by_name.end() ? nullptr : it->second;
        AssociationNode node;
        node.account = account;
        node.shares = a ? a->shares : 1;
        node.depth = depth;
        node.parent = parent;
        node.priority = a && a->priority >= 0 ? a->priority : inherited;
        if (account != "root") {
          node.qos = allowedQosOf(config.accounts, account);
          node.default_qos = ownDefaultQosOf(config.accounts, account);
        }
        const int me = static_cast<int>(tree.size());
        node.id = static_cast<std::uint32_t>(me + 1);
        tree.push_back(node);
        for (const auto& user : users_of[account]) {
          AssociationNode u = node;
          u.user = user;
          u.shares = 1;
          u.depth = depth + 1;
          u.parent = me;
          u.id = static_cast<std::uint32_t>(tree.size() + 1);
          tree.push_back(std::move(u));
        }
        // The parser rejects cycles and duplicates; an account listed twice is still walked once.
        for (const auto& child : children_of[account]) {
          if (walked.insert(child).second) walk(child, depth + 1, me, node.priority);
        }
      };
  walk("root", 0, -1, -1);
  return tree;
}

std::string defaultAccountOf(const ClusterConfig& config, std::string_view user) {
  for (const auto& a : config.accounts) {
    if (std::find(a.users.begin(), a.users.end(), user) != a.users.end()) return a.name;
  }
  return "";
}

namespace {

// The account of that name and its ancestors, nearest first.
template <typename Visit>
void walkUp(const std::vector<AccountConfig>& accounts, std::string_view account, Visit visit) {
  // At most one step per account: the parser refuses cycles, this bounds a hand-made config.
  for (std::size_t steps = 0; steps <= accounts.size() && !account.empty(); ++steps) {
    auto it = std::find_if(accounts.begin(), accounts.end(),
                           [&](const AccountConfig& a) { return a.name == account; });
    if (it == accounts.end() || visit(*it)) return;
    account = it->parent;
  }
}

}  // namespace

std::vector<std::string> allowedQosOf(const std::vector<AccountConfig>& accounts,
                                      std::string_view account) {
  std::vector<std::string> out;
  walkUp(accounts, account, [&](const AccountConfig& a) {
    out = a.qos;
    return !out.empty();
  });
  return out;
}

std::string ownDefaultQosOf(const std::vector<AccountConfig>& accounts, std::string_view account) {
  std::string out;
  walkUp(accounts, account, [&](const AccountConfig& a) {
    out = a.default_qos;
    return !out.empty();
  });
  return out;
}

std::string defaultQosOf(const std::vector<AccountConfig>& accounts, std::string_view account) {
  if (std::string own = ownDefaultQosOf(accounts, account); !own.empty()) return own;
  const std::vector<std::string> allowed = allowedQosOf(accounts, account);
  if (allowed.empty() || std::find(allowed.begin(), allowed.end(), "normal") != allowed.end()) {
    return "normal";
  }
  return allowed.front();
}

const QosConfig* qosFor(const ClusterConfig& config, std::string_view account,
                        std::string_view requested, bool any) {
  if (requested.empty()) return config.findQos(defaultQosOf(config.accounts, account));
  const QosConfig* qos = config.findQos(requested);
  if (!qos || any) return qos;
  const std::vector<std::string> allowed = allowedQosOf(config.accounts, account);
  const bool may = allowed.empty() || std::find(allowed.begin(), allowed.end(), qos->name) != allowed.end();
  return may ? qos : nullptr;
}

}  // namespace drover::config
