#include "sched/fairshare.h"

#include <cmath>

namespace drover::sched {

void FairShareTree::addAccount(const std::string& account, const std::string& parent,
                               int shares) {
  accounts_[account] = {parent, shares};
}

void FairShareTree::addUser(const std::string& account, const std::string& user, int shares) {
  users_[{account, user}] = shares;
}

double FairShareTree::decayed(const Usage& u, int64_t now) const {
  if (halfLifeS_ <= 0 || now <= u.at) return u.value;
  return u.value * std::exp2(-static_cast<double>(now - u.at) / static_cast<double>(halfLifeS_));
}

void FairShareTree::recordUsage(const std::string& account, const std::string& user,
                                double amount, int64_t at) {
  Usage& u = usage_[{account, user}];
  u.value = decayed(u, at) + amount;
  u.at = std::max(u.at, at);
}

double FairShareTree::usage(const std::string& account, const std::string& user,
                            int64_t now) const {
  auto it = usage_.find({account, user});
  return it == usage_.end() ? 0 : decayed(it->second, now);
}

double FairShareTree::accountShare(const std::string& account) const {
  auto it = accounts_.find(account);
  if (it == accounts_.end()) return 0;
  const auto& [parent, shares] = it->second;
  int siblings = 0;
  for (const auto& [name, info] : accounts_) {
    if (info.first == parent) siblings += info.second;
  }
  double own = siblings > 0 ? static_cast<double>(shares) / siblings : 0;
  return parent.empty() ? own : own * accountShare(parent);
}

double FairShareTree::normalizedShares(const std::string& account,
                                       const std::string& user) const {
  auto it = users_.find({account, user});
  if (it == users_.end()) return 0;
  int siblings = 0;
  for (const auto& [key, shares] : users_) {
    if (key.first == account) siblings += shares;
  }
  return siblings > 0 ? accountShare(account) * it->second / siblings : 0;
}

double FairShareTree::factor(const std::string& account, const std::string& user,
                             int64_t now) const {
  double shares = normalizedShares(account, user);
  if (shares <= 0) return 0;
  double total = 0;
  for (const auto& [key, u] : usage_) total += decayed(u, now);
  double mine = usage(account, user, now);
  double normUsage = total > 0 ? mine / total : 0;
  return std::exp2(-normUsage / shares);
}

}  // namespace drover::sched
