#pragma once
// Fair-share for the controller: decayed historical usage per association (account, user), the
// account tree of cluster.conf, and what sshare shows and the priority's fair-share factor uses.
//
// Usage is CPU-seconds (Slurm's TRES-billing-seconds with default billing weights), decayed
// with PriorityDecayHalfLife: a value v recorded at t counts v * 2^(-(now - t) / half_life) at
// now. The tree follows Slurm's association tree: `root` on top, each account's users and child
// accounts are siblings that split their parent's share by their raw shares (a user
// association has 1 share), and user root hangs directly under root. The factor is classic
// multifactor fair-share, F = 2^(-NormUsage / NormSharesGlobal): NormUsage is the
// association's usage over the whole cluster's, NormSharesGlobal the product of its sibling
// shares up to root. Pure: no clock and no I/O; time is a parameter.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "drover/config.h"

namespace drover::jobs {

using Association = std::pair<std::string, std::string>;  // (account, user)

// The account a job is charged to for fair share: jobs without one (root's) go to root.
std::string fairShareAccount(const std::string& account);

struct UsageEntry {
  double value = 0;       // usage as of `at`
  std::int64_t at = 0;
};

class UsageLedger {
 public:
  explicit UsageLedger(std::int64_t half_life_s = 0) : half_life_s_(half_life_s) {}
  void setHalfLife(std::int64_t half_life_s) { half_life_s_ = half_life_s; }
  std::int64_t halfLife() const { return half_life_s_; }

  // Adds `amount` CPU-seconds used up to `at`.
  void charge(const Association& who, double amount, std::int64_t at);
  // Restores a persisted entry (no change is recorded).
  void restore(const Association& who, UsageEntry entry) { entries_[who] = entry; }
  double usage(const Association& who, std::int64_t now) const;
  // Every association's decayed usage at `now`.
  std::map<Association, double> decayedAt(std::int64_t now) const;
  // Entries changed since the last call, for the durable store.
  std::vector<std::pair<Association, UsageEntry>> takeChanged();

 private:
  double decay(const UsageEntry& e, std::int64_t now) const;

  std::int64_t half_life_s_;
  std::map<Association, UsageEntry> entries_;
  std::map<Association, bool> changed_;
};

// One line of sshare: an account (user empty) or a user association.
struct ShareRow {
  std::string account;
  std::string user;  // "" for an account row
  int depth = 0;     // 0 for root
  std::uint32_t id = 0;  // the association's id: its place in the tree's walk, from 1
  std::uint32_t raw_shares = 0;
  double norm_shares = 0;   // among its siblings
  double raw_usage = 0;     // CPU-seconds, decayed, itself and everything below it
  double norm_usage = 0;    // over the whole cluster's usage
  double effective_usage = 0;  // over its parent's usage (root: 1)
  double fair_share = -1;   // users only (-1 = not shown)
  double level_fs = 0;      // norm_shares / effective_usage; infinity when unused
  double global_shares = 0;  // product of norm_shares up to root
};

class ShareTable {
 public:
  // The tree of `config.accounts` with `usage` (decayed CPU-seconds per association).
  ShareTable(const config::ClusterConfig& config, const std::map<Association, double>& usage);

  // Rows in sshare's order: root, then depth first, users of an account before its child
  // accounts.
  const std::vector<ShareRow>& rows() const { return rows_; }
  // The fair-share factor of an association in [0, 1]; 0 for an association not in the tree.
  double factor(const std::string& account, const std::string& user) const;

 private:
  std::vector<ShareRow> rows_;
  std::map<Association, double> factors_;
};

}  // namespace drover::jobs
