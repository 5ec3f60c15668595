#include "jobs/fair_share.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace drover::jobs {

std::string fairShareAccount(const std::string& account) {
  return account.empty() ? "root" : account;
}

double UsageLedger::decay(const UsageEntry& e, std::int64_t now) const {
  if (half_life_s_ <= 0 || now <= e.at) return e.value;
  return e.value *
         std::exp2(-static_cast<double>(now - e.at) / static_cast<double>(half_life_s_));
}

void UsageLedger::charge(const Association& who, double amount, std::int64_t at) {
  if (amount <= 0) return;
  UsageEntry& e = entries_[who];
  e.value = decay(e, at) + amount;
  e.at = std::max(e.at, at);
  changed_[who] = true;
}

double UsageLedger::usage(const Association& who, std::int64_t now) const {
  auto it = entries_.find(who);
  return it == entries_.end() ? 0 : decay(it->second, now);
}

std::map<Association, double> UsageLedger::decayedAt(std::int64_t now) const {
  std::map<Association, double> out;
  for (const auto& [who, e] : entries_) out[who] = decay(e, now);
  return out;
}

std::vector<std::pair<Association, UsageEntry>> UsageLedger::takeChanged() {
  std::vector<std::pair<Association, UsageEntry>> out;
  for (const auto& [who, yes] : changed_) out.emplace_back(who, entries_.at(who));
  changed_.clear();
  return out;
}

namespace {

struct TreeNode {
  std::string account;
  std::string user;  // "" = account node
  std::uint32_t shares = 1;
  std::vector<int> children;  // users first, then child accounts
  double usage = 0;
};

}  // namespace

ShareTable::ShareTable(const config::ClusterConfig& config,
                       const std::map<Association, double>& usage) {
  std::vector<TreeNode> nodes;
  std::map<std::string, int> account_index;
  nodes.push_back({"root", "", 1, {}, 0});
  account_index["root"] = 0;
  for (const auto& a : config.accounts) {
    if (a.name == "root" || account_index.count(a.name)) continue;
    account_index[a.name] = static_cast<int>(nodes.size());
    nodes.push_back({a.name, "", a.shares, {}, 0});
  }
  auto addUser = [&](const std::string& account, const std::string& user) {
    int parent = account_index.at(account);
    for (int c : nodes[parent].children) {
      if (nodes[c].user == user) return;
    }
    nodes[parent].children.push_back(static_cast<int>(nodes.size()));
    nodes.push_back({account, user, 1, {}, 0});
  };
  addUser("root", "root");
  for (const auto& a : config.accounts) {
    std::vector<std::string> users = a.users;
    std::sort(users.begin(), users.end());
    for (const auto& u : users) addUser(a.name == "root" ? "root" : a.name, u);
  }
  // Users sorted before accounts at each level: push accounts after all users are in.
  for (const auto& a : config.accounts) {
    if (a.name == "root") continue;
    int parent = account_index.at(a.parent.empty() ? "root" : a.parent);
    int me = account_index.at(a.name);
    auto& kids = nodes[parent].children;
    if (std::find(kids.begin(), kids.end(), me) == kids.end()) kids.push_back(me);
  }
  for (auto& n : nodes) {
    std::stable_partition(n.children.begin(), n.children.end(),
                          [&](int c) { return !nodes[c].user.empty(); });
  }
  // Usage of each user association, then summed up the tree.
  for (auto& n : nodes) {
    if (n.user.empty()) continue;
    auto it = usage.find({n.account, n.user});
    if (it != usage.end()) n.usage = it->second;
  }
  std::function<double(int)> sum = [&](int i) {
    for (int c : nodes[i].children) nodes[i].usage += nodes[c].user.empty() ? sum(c) : nodes[c].usage;
    return nodes[i].usage;
  };
  sum(0);
  const double total = nodes[0].usage;

  ShareRow root;
  root.account = "root";
  root.raw_usage = total;
  root.norm_usage = total > 0 ? 1 : 0;
  root.effective_usage = 1;
  root.global_shares = 1;
  rows_.push_back(root);
  std::function<void(int, int, double)> walk = [&](int i, int depth, double parent_global) {
    const TreeNode& parent = nodes[i];
    double sibling_shares = 0;
    for (int c : parent.children) sibling_shares += nodes[c].shares;
    for (int c : parent.children) {
      const TreeNode& n = nodes[c];
      ShareRow r;
      r.account = n.account;
      r.user = n.user;
      r.depth = depth;
      r.raw_shares = n.shares;
      r.norm_shares = sibling_shares > 0 ? n.shares / sibling_shares : 0;
      r.global_shares = parent_global * r.norm_shares;
      r.raw_usage = n.usage;
      r.norm_usage = total > 0 ? n.usage / total : 0;
      r.effective_usage = parent.usage > 0 ? n.usage / parent.usage : 0;
      r.level_fs = r.effective_usage > 0 ? r.norm_shares / r.effective_usage
                                         : std::numeric_limits<double>::infinity();
      if (!n.user.empty()) {
        r.fair_share = r.global_shares > 0 ? std::exp2(-r.norm_usage / r.global_shares) : 0;
        factors_[{n.account, n.user}] = r.fair_share;
      }
      rows_.push_back(r);
      if (n.user.empty()) walk(c, depth + 1, r.global_shares);
    }
  };
  walk(0, 1, 1.0);
}

double ShareTable::factor(const std::string& account, const std::string& user) const {
  auto it = factors_.find({fairShareAccount(account), user});
  return it == factors_.end() ? 0 : it->second;
}

}  // namespace drover::jobs
