// The association tree fair share, the association factor and sacctmgr share: its order
// (root, user root, then depth first with an account's users by name before its child
// accounts in the file's order), parents, depths, shares and inherited priorities.
#include <gtest/gtest.h>

#include "config/association_tree.h"

namespace drover::config {
namespace {

AccountConfig account(std::string name, std::string parent, std::vector<std::string> users,
                      std::int64_t priority = -1, std::uint32_t shares = 1) {
  AccountConfig a;
  a.name = std::move(name);
  a.parent = std::move(parent);
  a.users = std::move(users);
  a.priority = priority;
  a.shares = shares;
  return a;
}

std::string describe(const std::vector<AssociationNode>& tree) {
  std::string out;
  for (const auto& n : tree) {
    out += std::string(static_cast<std::size_t>(n.depth), ' ') + n.account;
    if (!n.user.empty()) out += "/" + n.user;
    out += " parent=" + (n.parent < 0 ? std::string("-") : tree[static_cast<std::size_t>(n.parent)].account);
    out += " shares=" + std::to_string(n.shares) + " prio=" + std::to_string(n.priority) + "\n";
  }
  return out;
}

TEST(AssociationTreeTest, OrderParentsAndInheritedPriority) {
  ClusterConfig c;
  c.accounts = {account("research", "", {"bob", "alice", "bob"}, 50, 10),
                account("ops", "", {"carol"}),
                account("vision", "research", {"dave"}),
                account("nlp", "research", {}, 5)};
  EXPECT_EQ(describe(associationTree(c)),
            "root parent=- shares=1 prio=-1\n"
            " root/root parent=root shares=1 prio=-1\n"
            " research parent=root shares=10 prio=50\n"
            "  research/alice parent=research shares=1 prio=50\n"
            "  research/bob parent=research shares=1 prio=50\n"
            "  vision parent=research shares=1 prio=50\n"
            "   vision/dave parent=vision shares=1 prio=50\n"
            "  nlp parent=research shares=1 prio=5\n"
            " ops parent=root shares=1 prio=-1\n"
            "  ops/carol parent=ops shares=1 prio=-1\n");
}

TEST(AssociationTreeTest, ParentsComeBeforeChildren) {
  ClusterConfig c;
  // A child listed before its parent is still walked under it.
  c.accounts = {account("leaf", "mid", {"u"}), account("mid", "top", {}), account("top", "", {})};
  const auto tree = associationTree(c);
  ASSERT_EQ(tree.size(), 6u);
  for (std::size_t i = 1; i < tree.size(); ++i) EXPECT_LT(tree[i].parent, static_cast<int>(i));
  // Ids number the walk from 1, users and accounts alike (sshare's, sacctmgr's, sacct's).
  for (std::size_t i = 0; i < tree.size(); ++i) EXPECT_EQ(tree[i].id, i + 1);
  EXPECT_EQ(tree.back().user, "u");
  EXPECT_EQ(tree.back().depth, 4);
}

TEST(AssociationTreeTest, DefaultAccountIsTheFirstListingTheUser) {
  ClusterConfig c;
  c.accounts = {account("a", "", {"bob"}), account("b", "", {"alice", "bob"})};
  EXPECT_EQ(defaultAccountOf(c, "bob"), "a");
  EXPECT_EQ(defaultAccountOf(c, "alice"), "b");
  EXPECT_EQ(defaultAccountOf(c, "nobody"), "");
}

}  // namespace
}  // namespace drover::config
