#pragma once
// The association tree of cluster.conf's `accounts`, laid out as Slurm's association tree:
// `root` on top with user root directly under it, then depth first, each account's users (by
// name) before its child accounts (in the file's order). Fair share, the association priority
// factor and sacctmgr read the tree through this one walk, so they agree on its shape.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "drover/config.h"

namespace drover::config {

struct AssociationNode {
  std::string account;
  std::string user;            // "" for the account's own association
  std::uint32_t shares = 1;    // a user association has 1 share
  int depth = 0;               // root 0
  int parent = -1;             // index of the parent account's node; -1 for root
  // The account's Priority, or the nearest ancestor's that sets one; -1 when none does.
  std::int64_t priority = -1;
  // The association's id, as sshare, sacctmgr and sacct's AssocID show it: its place in the
  // walk from 1 (root 1, root's user root 2), what the reference numbered the same tree.
  std::uint32_t id = 0;
  // The QOSes its jobs may ask for (allowedQosOf) and the one they get without -q
  // (defaultQosOf's account own default, "" when neither it nor an ancestor sets one).
  std::vector<std::string> qos;
  std::string default_qos;
};

// Parents come before their children, so a reverse walk visits every child before its parent.
std::vector<AssociationNode> associationTree(const ClusterConfig& config);

// The account a user's jobs are charged to when they name none: the first account of the
// file that lists the user, as Slurm's default account; "" when none does.
std::string defaultAccountOf(const ClusterConfig& config, std::string_view user);

// The QOSes jobs charged to `account` may ask for: its own `qos` list, else its nearest
// ancestor's; empty when none sets one (every QOS may be asked for). As Slurm's association QOS
// list, which a child association inherits from its parent unless given its own.
std::vector<std::string> allowedQosOf(const std::vector<AccountConfig>& accounts,
                                      std::string_view account);
// The default_qos the account or its nearest ancestor sets; "" when none does.
std::string ownDefaultQosOf(const std::vector<AccountConfig>& accounts, std::string_view account);
// The QOS a job charged to `account` gets without -q: ownDefaultQosOf, else normal when the
// account may use it, else the first QOS it may use.
std::string defaultQosOf(const std::vector<AccountConfig>& accounts, std::string_view account);
// The QOS a job charged to `account` gets when it asks for `requested` (-q, scontrol update
// QOS=): "" its default; else the QOS of that name in any case, when the account may use it or
// `any` (root and operators may use every QOS). Null when no QOS has the name or the account
// may not use it (Slurm's "Invalid qos specification").
const QosConfig* qosFor(const ClusterConfig& config, std::string_view account,
                        std::string_view requested, bool any);

}  // namespace drover::config
