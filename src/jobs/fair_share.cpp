#include "jobs/fair_share.h"

#include "config/association_tree.h"

#include <algorithm>
#include <cmath>
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

ShareTable::ShareTable(const config::ClusterConfig& config,
                       const std::map<Association, double>& usage) {
  const std::vector<config::AssociationNode> tree = config::associationTree(config);
  // Usage of each user association, summed up the tree (children come after their parents),
  // and the shares of each account's children (its users and child accounts are siblings).
  std::vector<double> used(tree.size(), 0);
  std::vector<double> child_shares(tree.size(), 0);
  for (std::size_t i = tree.size(); i-- > 0;) {
    const config::AssociationNode& n = tree[i];
    if (!n.user.empty()) {
      auto it = usage.find({n.account, n.user});
      if (it != usage.end()) used[i] = it->second;
    }
    if (n.parent >= 0) {
      used[static_cast<std::size_t>(n.parent)] += used[i];
      child_shares[static_cast<std::size_t>(n.parent)] += n.shares;
    }
  }
  const double total = used[0];

  ShareRow root;
  root.account = "root";
  root.raw_usage = total;
  root.norm_usage = total > 0 ? 1 : 0;
  root.effective_usage = 1;
  root.global_shares = 1;
  root.id = tree[0].id;
  rows_.push_back(root);
  for (std::size_t i = 1; i < tree.size(); ++i) {
    const config::AssociationNode& n = tree[i];
    const auto parent = static_cast<std::size_t>(n.parent);
    ShareRow r;
    r.account = n.account;
    r.user = n.user;
    r.depth = n.depth;
    r.id = n.id;
    r.raw_shares = n.shares;
    r.norm_shares = child_shares[parent] > 0 ? n.shares / child_shares[parent] : 0;
    r.global_shares = rows_[parent].global_shares * r.norm_shares;
    r.raw_usage = used[i];
    r.norm_usage = total > 0 ? used[i] / total : 0;
    r.effective_usage = used[parent] > 0 ? used[i] / used[parent] : 0;
    r.level_fs = r.effective_usage > 0 ? r.norm_shares / r.effective_usage
                                       : std::numeric_limits<double>::infinity();
    if (!n.user.empty()) {
      r.fair_share = r.global_shares > 0 ? std::exp2(-r.norm_usage / r.global_shares) : 0;
      factors_[{n.account, n.user}] = r.fair_share;
    }
    rows_.push_back(r);
  }
}

double ShareTable::factor(const std::string& account, const std::string& user) const {
  auto it = factors_.find({fairShareAccount(account), user});
  return it == factors_.end() ? 0 : it->second;
}

}  // namespace drover::jobs
