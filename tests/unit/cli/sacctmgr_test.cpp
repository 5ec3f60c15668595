// sacctmgr: the listing commands compared byte for byte with Slurm 22.05's, captured on the
// reference cluster (golden/sacctmgr/NN.txt: "$ command", its output with stderr, "[exit N]"),
// whose association tree the config below mirrors; then what Drover does differently.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/sacctmgr.h"
#include "cli/sacctmgr_query.h"
#include "cli/sacctmgr_view.h"

namespace drover::cli {
namespace {

// The reference: cluster oracle, account research (under root, added with Description=oracle-tests
// Organization=oracle) with users alice and bob.
config::ClusterConfig referenceConfig(std::int64_t research_priority = -1,
                                      std::uint32_t research_shares = 1) {
  config::ClusterConfig c;
  c.cluster_name = "oracle";
  c.controller.host = "127.0.0.1";
  c.controller.port = 6817;
  config::AccountConfig research;
  research.name = "research";
  research.users = {"bob", "alice"};
  research.priority = research_priority;
  research.shares = research_shares;
  research.description = "oracle-tests";
  research.organization = "oracle";
  c.accounts.push_back(research);
  return c;
}

struct Outcome {
  std::string text;   // stdout, or the error line
  int exit_code = 0;
};

Outcome run(const std::vector<std::string>& args, const config::ClusterConfig& config) {
  auto cmd = parseSacctmgrArgs(args);
  if (!cmd.ok()) return {cmd.error() + "\n", 1};
  auto action = parseSacctmgrWords(cmd->words, cmd->with_assoc);
  if (!action.ok()) return {action.error() + "\n", 1};
  EXPECT_EQ(action->verb, SacctmgrVerb::kList);
  auto table = renderSacctmgrList(action->list, config, cmd->style);
  if (!table.ok()) return {table.error() + "\n", 1};
  return {*table, 0};
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

struct Capture {
  std::vector<std::string> args;   // after "sacctmgr"
  std::string output;
  int exit_code = 0;
};

Capture readCapture(const std::string& name) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/sacctmgr/" + name);
  EXPECT_TRUE(in) << name;
  Capture c;
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> words = split(line);
  auto at = std::find(words.begin(), words.end(), "sacctmgr");
  c.args.assign(at + 1, words.end());
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << name;
  std::sscanf(lines.back().c_str(), "[exit %d]", &c.exit_code);
  lines.pop_back();
  for (const auto& l : lines) c.output += l + "\n";
  return c;
}

TEST(SacctmgrTest, ListingsMatchSlurm) {
  for (const char* name :
       {"01.txt", "02.txt", "03.txt", "04.txt", "05.txt", "06.txt", "08.txt", "09.txt", "10.txt",
        "12.txt", "14.txt", "15.txt", "17.txt", "18.txt", "19.txt", "20.txt", "21.txt", "22.txt",
        "23.txt", "25.txt", "26.txt", "28.txt", "31.txt", "32.txt", "35.txt", "36.txt", "38.txt",
        "39.txt", "46.txt", "47.txt", "48.txt", "49.txt", "50.txt", "52.txt", "53.txt",
        "54.txt", "55.txt", "56.txt", "57.txt", "62.txt", "63.txt", "64.txt"}) {
    const Capture c = readCapture(name);
    const Outcome got = run(c.args, referenceConfig());
    EXPECT_EQ(got.text, c.output) << name;
    EXPECT_EQ(got.exit_code, c.exit_code) << name;
  }
}

TEST(SacctmgrTest, PriorityAndSharesMatchSlurm) {
  // Captured after `modify account research set priority=5 fairshare=10`: the account's
  // priority shows on its users' associations too.
  for (const char* name : {"42.txt", "44.txt"}) {
    const Capture c = readCapture(name);
    const Outcome got = run(c.args, referenceConfig(5, 10));
    EXPECT_EQ(got.text, c.output) << name;
    EXPECT_EQ(got.exit_code, c.exit_code) << name;
  }
}

TEST(SacctmgrTest, DeeperTreeAndDescriptions) {
  config::ClusterConfig c = referenceConfig();
  c.accounts[0].description.clear();
  c.accounts[0].organization.clear();
  config::AccountConfig vision;
  vision.name = "vision";
  vision.parent = "research";
  vision.users = {"carol", "alice"};
  vision.description = "computer vision";
  c.accounts.push_back(vision);
  c.operators = {"carol"};
  EXPECT_EQ(run({"-P", "show", "assoc", "tree", "format=account,user,parentname"}, c).text,
            "Account|User|ParentName\n"
            "root||\n"
            " root|root|\n"
            " research||root\n"
            "  research|alice|\n"
            "  research|bob|\n"
            "  vision||research\n"
            "   vision|alice|\n"
            "   vision|carol|\n");
  // Org defaults to the parent's name; Descr to the account's unless the file gives one.
  EXPECT_EQ(run({"-nP", "show", "account"}, c).text,
            "research|research|research\n"
            "root|default root account|root\n"
            "vision|computer vision|research\n");
  // alice's default account is the first in the file that lists her; carol is an operator.
  EXPECT_EQ(run({"-nP", "show", "user", "format=user,defacct,admin"}, c).text,
            "alice|research|None\n"
            "bob|research|None\n"
            "carol|vision|Operator\n"
            "root|root|Administrator\n");
  // withassoc: one row per association, the user's accounts in tree order.
  EXPECT_EQ(run({"-nP", "show", "user", "alice", "withassoc", "format=user,account"}, c).text,
            "alice|research\nalice|vision\n");
  // account filters: the accounts a user is in.
  EXPECT_EQ(run({"-nP", "show", "account", "user=carol", "format=account"}, c).text, "vision\n");
  EXPECT_EQ(run({"-nP", "-s", "show", "account", "vision", "format=account,user"}, c).text,
            "vision|\nvision|alice\nvision|carol\n");
  EXPECT_EQ(run({"-nP", "show", "assoc", "parent=research", "format=account"}, c).text, "vision\n");
}

TEST(SacctmgrTest, WhatDroverListsDifferently) {
  // Slurm 22.05 listed the account's users in its database's order (bob, alice); Drover by name.
  EXPECT_EQ(run({"show", "account", "research", "withassoc", "format=account,user"},
                referenceConfig())
                .text,
            "   Account       User \n"
            "---------- ---------- \n"
            "  research            \n"
            "  research      alice \n"
            "  research        bob \n");
  // The TRES Drover accounts (Slurm also lists energy, fs/disk, vmem and pages).
  EXPECT_EQ(run({"-nP", "show", "tres"}, referenceConfig()).text,
            "cpu||1\nmem||2\nnode||4\nbilling||5\ngres|gpu|1001\n");
  // No RPC version: Drover's controller does not speak Slurm's protocol.
  EXPECT_EQ(run({"-nP", "show", "cluster", "format=cluster,controlhost,controlport,rpc"},
                referenceConfig())
                .text,
            "oracle|127.0.0.1|6817|\n");
}

// The QOS table of cluster.conf and the associations' QOS lists, laid out as the reference
// listed its QOSes high (priority 100, preempt low) and low (GraceTime 20) and alice's granted
// list (`sacctmgr show qos format=...`, `show assoc format=user,account,qos,defaultqos`,
// 2026-12-04).
TEST(SacctmgrTest, QosTableAndAssociationQosAsTheReferenceListedThem) {
  config::ClusterConfig c = referenceConfig();
  config::QosConfig high;
  high.name = "high";
  high.priority = 100;
  high.preempt = {"low"};
  high.id = 2;
  config::QosConfig low;
  low.name = "low";
  low.grace_time_s = 20;
  low.id = 3;
  c.qos.push_back(high);
  c.qos.push_back(low);
  EXPECT_EQ(run({"show", "qos", "format=Name,Priority,Preempt,PreemptMode,GraceTime,UsageFactor"}, c).text,
            "      Name   Priority    Preempt PreemptMode  GraceTime UsageFactor \n"
            "---------- ---------- ---------- ----------- ---------- ----------- \n"
            "    normal          0                cluster   00:00:00    1.000000 \n"
            "      high        100        low     cluster   00:00:00    1.000000 \n"
            "       low          0                cluster   00:00:20    1.000000 \n");
  EXPECT_EQ(run({"-P", "show", "qos", "format=Name,Priority,GraceTime,Preempt,PreemptMode"}, c).text,
            "Name|Priority|GraceTime|Preempt|PreemptMode\n"
            "normal|0|00:00:00||cluster\n"
            "high|100|00:00:00|low|cluster\n"
            "low|0|00:00:20||cluster\n");
  // A mode of its own in lower case (the reference's `cancel` for preemptmode=cancel), 90 s
  // of grace as 00:01:30.
  c.qos[2].preempt_mode = config::PreemptMode::kCancel;
  c.qos[2].grace_time_s = 90;
  c.qos[2].description = "best effort";
  EXPECT_EQ(run({"-nP", "show", "qos", "low", "format=Name,GraceTime,PreemptMode,ID,Description"}, c).text,
            "low|00:01:30|cancel|3|best effort\n");
  EXPECT_EQ(run({"-nP", "show", "qos", "high", "format=Descr"}, c).text, "high\n");  // the name
  // research's own list, sorted by name as the reference printed alice's, 20 wide cut with
  // '+'; a default of its own.
  c.accounts[0].qos = {"normal", "low", "high"};
  c.accounts[0].default_qos = "high";
  EXPECT_EQ(run({"-P", "show", "assoc", "account=research", "format=user,account,qos,defaultqos"}, c).text,
            "User|Account|QOS|Def QOS\n"
            "|research|high,low,normal|high\n"
            "alice|research|high,low,normal|high\n"
            "bob|research|high,low,normal|high\n");
  config::QosConfig shorter;
  shorter.name = "short";
  c.qos.push_back(shorter);
  c.accounts[0].qos.push_back("short");
  EXPECT_EQ(run({"-n", "show", "assoc", "user=alice", "format=user,qos"}, c).text,
            "     alice high,low,normal,sho+ \n");
}

TEST(SacctmgrTest, WorkflowEngineQueriesAndWidths) {
  // Snakemake 7.21's --slurm checks slurm_account against this list.
  EXPECT_EQ(run({"-n", "-s", "list", "user", "alice", "format=account%20"}, referenceConfig()).text,
            "            research \n");
  EXPECT_EQ(run({"-n", "-s", "list", "user", "nosuch", "format=account%20"}, referenceConfig()).text,
            "");
  // Options after the command's words; a value longer than its column cut with '+'.
  EXPECT_EQ(run({"list", "user", "format=User%-15,Account%5", "-s"}, referenceConfig()).text,
            "User            Accou \n"
            "--------------- ----- \n"
            "alice           rese+ \n"
            "bob             rese+ \n"
            "root             root \n");
  EXPECT_EQ(run({"list", "account", "format=Account%-4"}, referenceConfig()).text,
            "Acco \n---- \nres+ \nroot \n");
  EXPECT_EQ(run({"show", "user", "bob,alice"}, referenceConfig()).text,
            run({"list", "user", "where", "name=alice,bob"}, referenceConfig()).text);
  // A beginning two fields share names neither, as Slurm's (Def Acct, Def QOS).
  EXPECT_EQ(run({"list", "user", "format=def"}, referenceConfig()).text, "Unknown field 'def'\n");
  EXPECT_EQ(run({"-nP", "list", "user", "alice", "format=adm"}, referenceConfig()).text, "None\n");
  // Users and accounts are what modify takes: Slurm's hint follows.
  EXPECT_EQ(run({"list", "user", "bogus=1"}, referenceConfig()).text,
            " Unknown condition: bogus=1\n Use keyword 'set' to modify value\n");
}

TEST(SacctmgrTest, RefusalsAndErrors) {
  auto words = [](std::vector<std::string> w) { return parseSacctmgrWords(w, false); };
  auto add = words({"add", "account", "foo"});
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->verb, SacctmgrVerb::kChange);
  EXPECT_EQ(add->change_verb, "add");
  for (const char* verb : {"modify", "delete", "remove", "create", "dump", "load"}) {
    auto a = words({verb, "user", "alice"});
    ASSERT_TRUE(a.ok()) << verb;
    EXPECT_EQ(a->verb, SacctmgrVerb::kChange) << verb;
  }
  auto bad = words({"frobnicate"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "Invalid keyword: frobnicate");
  auto stats = words({"show", "stats"});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("Drover keeps no stats records"), std::string::npos);
  auto no_entity = words({"show"});
  ASSERT_FALSE(no_entity.ok());
  EXPECT_EQ(no_entity.error().rfind("No valid entity in list command", 0), 0u);
  auto assoc_word = words({"show", "assoc", "alice"});
  ASSERT_FALSE(assoc_word.ok());
  EXPECT_EQ(assoc_word.error(), " Unknown condition: alice");
  auto width = words({"show", "assoc", "format=account%99999"});
  ASSERT_FALSE(width.ok());
  EXPECT_NE(width.error().find("at most 10000"), std::string::npos);
  EXPECT_EQ(words({})->verb, SacctmgrVerb::kNothing);
  EXPECT_EQ(words({"exit"})->verb, SacctmgrVerb::kQuit);
  auto opt = parseSacctmgrArgs({"--bogus"});
  ASSERT_FALSE(opt.ok());
  EXPECT_NE(opt.error().find("unrecognized option '--bogus'"), std::string::npos);
}

}  // namespace
}  // namespace drover::cli
