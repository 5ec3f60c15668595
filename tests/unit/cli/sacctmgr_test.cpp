// sacctmgr's read-only reports, compared byte for byte with what Slurm 22.05's sacctmgr printed
// on the reference cluster (cluster "oracle", account research with alice and bob, below root).
#include <gtest/gtest.h>

#include "cli/sacctmgr.h"

namespace drover::cli {
namespace {

config::ClusterConfig referenceTree() {
  config::ClusterConfig c;
  c.cluster_name = "oracle";
  config::AccountConfig research;
  research.name = "research";
  research.users = {"bob", "alice"};
  c.accounts.push_back(research);
  return c;
}

// What `sacctmgr <args>` prints on stdout, or "error: <stderr>" when it refuses.
std::string run(const std::vector<std::string>& args,
                const config::ClusterConfig& c = referenceTree()) {
  auto cmd = parseSacctmgrArgs(args);
  if (!cmd.ok()) return "error: " + cmd.error();
  EXPECT_TRUE(cmd->list);
  return renderSacctmgr(c, cmd->query, cmd->output);
}

TEST(SacctmgrTest, SnakemakesAccountQueryMatchesSlurm) {
  // snakemake 7.21 --slurm checks slurm_account against this list.
  EXPECT_EQ(run({"-n", "-s", "list", "user", "alice", "format=account%20"}),
            "            research \n");
  EXPECT_EQ(run({"-n", "-s", "list", "user", "nosuch", "format=account%20"}), "");
}

TEST(SacctmgrTest, ListUserMatchesSlurm) {
  EXPECT_EQ(run({"list", "user"}),
            "      User   Def Acct     Admin \n"
            "---------- ---------- --------- \n"
            "     alice   research      None \n"
            "       bob   research      None \n"
            "      root       root Administ+ \n");
  EXPECT_EQ(run({"-p", "list", "user"}),
            "User|Def Acct|Admin|\nalice|research|None|\nbob|research|None|\nroot|root|Administrator|\n");
  EXPECT_EQ(run({"show", "user", "bob,alice"}), run({"list", "user", "where", "name=alice,bob"}));
  EXPECT_EQ(run({"list", "user", "nosuch"}),
            "      User   Def Acct     Admin \n---------- ---------- --------- \n");
}

TEST(SacctmgrTest, AssociationsMatchSlurm) {
  EXPECT_EQ(run({"-n", "list", "assoc", "format=cluster,account,user"}),
            "    oracle       root            \n"
            "    oracle       root       root \n"
            "    oracle   research            \n"
            "    oracle   research      alice \n"
            "    oracle   research        bob \n");
  EXPECT_EQ(run({"-n", "-P", "-s", "list", "user", "alice", "format=account,user,share,priority,qos"}),
            "research|alice|1||normal\n");
  EXPECT_EQ(run({"list", "user", "-s", "alice", "format=adm,defaultaccount,account,cluster,partition"}),
            "    Admin   Def Acct    Account    Cluster  Partition \n"
            "--------- ---------- ---------- ---------- ---------- \n"
            "     None   research   research     oracle            \n");
  EXPECT_EQ(run({"-n", "list", "assoc", "user=alice", "format=account"}), "  research \n");
  EXPECT_EQ(run({"-n", "list", "assoc", "cluster=other"}), "");
}

TEST(SacctmgrTest, WidthsAndSidesAsSlurms) {
  // Options after the command words, as Slurm's sacctmgr takes them.
  EXPECT_EQ(run({"list", "user", "format=User%-15,Account%5", "-s"}),
            "User            Accou \n"
            "--------------- ----- \n"
            "alice           rese+ \n"
            "bob             rese+ \n"
            "root             root \n");
  EXPECT_EQ(run({"list", "account", "format=Account%-4"}), "Acco \n---- \nres+ \nroot \n");
  EXPECT_EQ(run({"-P", "list", "account", "format=account"}), "Account\nresearch\nroot\n");
}

TEST(SacctmgrTest, RefusalsAsSlurms) {
  EXPECT_EQ(run({"list", "user", "format=bogus"}), "error: Unknown field 'bogus'");
  EXPECT_EQ(run({"list", "user", "format=def"}), "error: Unknown field 'def'");  // ambiguous
  EXPECT_EQ(run({"list", "user", "bogus=1"}),
            "error:  Unknown condition: bogus=1\n Use keyword 'set' to modify value");
  EXPECT_EQ(run({"list", "bogus"}).rfind("error: No valid entity in list command\n", 0), 0u);
  EXPECT_NE(run({"list", "qos"}).find("Drover keeps no qos records"), std::string::npos);
}

TEST(SacctmgrTest, ChangesAreRefusedNotListed) {
  auto cmd = parseSacctmgrArgs({"add", "account", "foo", "-i"});
  ASSERT_TRUE(cmd.ok());
  EXPECT_FALSE(cmd->list);
  EXPECT_EQ(cmd->refused_verb, "add");
}

TEST(SacctmgrTest, DefaultAccountIsTheControllers) {
  // The first account listing the user, as a job without -A is charged (src/jobs/submit.cpp);
  // operators are "Operator".
  auto c = referenceTree();
  config::AccountConfig physics;
  physics.name = "physics";
  physics.users = {"alice", "carol"};
  c.accounts.push_back(physics);
  c.operators = {"carol"};
  EXPECT_EQ(run({"-n", "-P", "list", "user"}, c),
            "alice|research|None\nbob|research|None\ncarol|physics|Operator\nroot|root|Administrator\n");
  EXPECT_EQ(run({"-n", "-P", "-s", "list", "user", "alice", "format=account"}, c),
            "physics\nresearch\n");
}

}  // namespace
}  // namespace drover::cli
