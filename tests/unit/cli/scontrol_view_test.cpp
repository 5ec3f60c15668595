#include "cli/scontrol_view.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "cli/config_show.h"
#include "drover/config.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;
using testing::kCaptureTime;
using testing::NodeBuilder;
using testing::referenceNodes;
using testing::referencePartitions;

class ScontrolViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(ScontrolViewTest, ShowNodeMatchesGolden093) {
  std::string out;
  for (const auto& n : referenceNodes()) out += formatNodeRecord(n, false);
  EXPECT_EQ(out, goldenStdout("093-scontrol-show-node.txt"));
}

TEST_F(ScontrolViewTest, ShowNodeOnelinerMatchesGolden094) {
  EXPECT_EQ(formatNodeRecord(referenceNodes().front(), true),
            goldenStdout("094-scontrol-show-node-oneliner.txt"));
}

TEST_F(ScontrolViewTest, ShowPartitionMatchesGolden095) {
  std::string out;
  for (const auto& p : referencePartitions()) out += formatPartitionRecord(p, false);
  EXPECT_EQ(out, goldenStdout("095-scontrol-show-partition.txt"));
}

TEST_F(ScontrolViewTest, DrainedNodeShowsStateFlagAndReason) {
  auto n = NodeBuilder("node03").state(v1::NODE_IDLE).partitions({"gpu"}).drain("bad dimm").build();
  const std::string text = formatNodeRecord(n, false);
  EXPECT_NE(text.find("   State=IDLE+DRAIN ThreadsPerCore=1 "), std::string::npos) << text;
  EXPECT_NE(text.find("\n   Reason=bad dimm [root@2026-11-30T12:29:05]\n\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   AllocTRES=\n"), std::string::npos) << text;
}

TEST_F(ScontrolViewTest, UnregisteredNodeShowsUnknownValuesAsSlurm) {
  v1::NodeInfo n;
  n.set_name("node09");
  n.set_address("127.0.0.1");
  n.set_port(7830);
  n.set_state(v1::NODE_UNKNOWN);
  n.set_not_responding(true);
  n.set_weight(1);
  auto* c = n.mutable_configured();
  c->set_cpus(4);
  c->set_sockets(1);
  c->set_cores_per_socket(4);
  c->set_threads_per_core(1);
  c->set_real_memory_mb(1000);
  const std::string text = formatNodeRecord(n, false);
  EXPECT_EQ(text.substr(0, text.find('\n')), "NodeName=node09 CoresPerSocket=4 ");
  EXPECT_NE(text.find("CPULoad=N/A"), std::string::npos);
  EXPECT_NE(text.find("FreeMem=N/A"), std::string::npos);
  EXPECT_NE(text.find("Gres=(null)"), std::string::npos);
  EXPECT_NE(text.find("State=UNKNOWN+NOT_RESPONDING"), std::string::npos);
  EXPECT_NE(text.find("BootTime=None SlurmdStartTime=None"), std::string::npos);
  EXPECT_NE(text.find("CfgTRES=cpu=4,mem=1000M,billing=4\n"), std::string::npos);
  EXPECT_EQ(text.find("OS="), std::string::npos);
  EXPECT_EQ(text.find("Partitions="), std::string::npos);  // in no partition: no line, as Slurm
}

TEST_F(ScontrolViewTest, PartitionLimitsAndLists) {
  auto p = testing::partition("long", "gpu[001-128]", false, -1, -1, 1, 128);
  p.set_max_nodes(16);
  p.set_exclusive(true);
  p.add_allow_accounts("physics");
  p.add_allow_accounts("chem");
  p.set_state("DRAIN");
  const std::string text = formatPartitionRecord(p, true);
  EXPECT_NE(text.find(" AllowAccounts=physics,chem "), std::string::npos) << text;
  EXPECT_NE(text.find(" DefaultTime=NONE "), std::string::npos) << text;
  EXPECT_NE(text.find(" MaxNodes=16 MaxTime=UNLIMITED "), std::string::npos) << text;
  EXPECT_NE(text.find(" OverSubscribe=EXCLUSIVE "), std::string::npos) << text;
  EXPECT_NE(text.find(" State=DRAIN TotalCPUs=2048 TotalNodes=128 "), std::string::npos) << text;
  EXPECT_NE(text.find(" TRES=cpu=2048,mem=8T,node=128,billing=2048,gres/gpu=1024\n"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find("\n\n"), std::string::npos);
}

TEST_F(ScontrolViewTest, ShowConfigNamesDroversSettingsAsSlurm) {
  auto config = config::parseClusterConfig(
      "cluster_name: lab\n"
      "controller: {host: ctl1, port: 7817, state_dir: /var/lib/drover}\n"
      "munge_socket: /run/munge/munge.socket.2\n"
      "timeouts: {heartbeat_interval: 10, node_down: 300, kill_wait: 30, message: 10}\n"
      "scheduler: {policy: easy, default_mem_per_cpu: 4000,\n"
      "            priority: {weight_fairshare: 10000, weight_tres: 'cpu=1000,gres/gpu=3000'}}\n"
      "nodes:\n"
      "  - {names: 'gpu[1-2]', address: 127.0.0.1, port: 7830-7831, cpus: 16, real_memory: 64G,\n"
      "     gpus: {count: 8}}\n"
      "partitions:\n"
      "  - {name: gpu, nodes: ALL, default: true}\n",
      "cluster.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  v1::PingReply ping;
  ping.set_start_time(kCaptureTime - 3600);
  ping.set_debug_level("debug2");
  const std::string text = renderConfig(*config, "/etc/drover/cluster.conf", kCaptureTime, ping);
  // Lines as the reference Slurm 22.05 laid out its own (name padded to 23, " = ").
  for (const std::string line : {"Configuration data as of 2026-11-30T12:29:05\n",
                                 "\nAuthInfo                = socket=/run/munge/munge.socket.2\n",
                                 "\nBcastExclude            = /lib,/usr/lib,/lib64,/usr/lib64\n",
                                 "\nBcastParameters         = (null)\n",
                                 "\nBOOT_TIME               = 2026-11-30T11:29:05\n",
                                 "\nClusterName             = lab\n",
                                 "\nDefMemPerCPU            = 4000\n",
                                 "\nGresTypes               = gpu\n",
                                 "\nKillWait                = 30 sec\n",
                                 "\nPriorityDecayHalfLife   = 7-00:00:00\n",
                                 "\nPriorityCalcPeriod      = 00:05:00\n",
                                 "\nPriorityWeightFairShare = 10000\n",
                                 "\nPriorityWeightTRES      = cpu=1000,gres/gpu=3000\n",
                                 "\nResvOverRun             = 0 min\n",
                                 "\nSchedulerType           = sched/backfill\n",
                                 "\nSlurmctldDebug          = debug2\n",
                                 "\nSlurmctldHost[0]        = ctl1\n",
                                 "\nSlurmctldPort           = 7817\n",
                                 "\nSlurmdTimeout           = 300 sec\n",
                                 "\nSLURM_CONF              = /etc/drover/cluster.conf\n",
                                 "\nStateSaveLocation       = /var/lib/drover\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  EXPECT_TRUE(text.ends_with("\n\nSlurmctld(primary) at ctl1 is UP\n")) << text;
  const std::string down = renderConfig(*config, "/etc/drover/cluster.conf", kCaptureTime, std::nullopt);
  EXPECT_TRUE(down.ends_with("\n\nSlurmctld(primary) at ctl1 is DOWN\n")) << down;
  EXPECT_NE(down.find("\nBOOT_TIME               = (null)\n"), std::string::npos) << down;
  EXPECT_NE(down.find("\nSlurmctldDebug          = info\n"), std::string::npos) << down;
}

TEST_F(ScontrolViewTest, ShowConfigWritesTheBcastSectionAsSlurmsBcastParameters) {
  auto config = config::parseClusterConfig(
      "cluster_name: lab\n"
      "nodes:\n"
      "  - {names: n1, address: 127.0.0.1, port: 7830, cpus: 4, real_memory: 4G}\n"
      "partitions:\n"
      "  - {name: p, nodes: ALL}\n"
      "bcast:\n"
      "  dest_dir: /scratch/bcast/\n"
      "  compression: LZ4\n"
      "  send_libs: true\n"
      "  exclude: []\n",
      "cluster.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  const std::string text = renderConfig(*config, "/etc/drover/cluster.conf", kCaptureTime, std::nullopt);
  EXPECT_NE(text.find("\nBcastExclude            = none\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nBcastParameters         = DestDir=/scratch/bcast,Compression=lz4,send_libs\n"),
            std::string::npos)
      << text;
}

// controller.accounting_store_flags is Slurm's AccountingStoreFlags, named as the reference
// printed them (job_env,job_script; (null) without); an unknown flag is refused.
TEST_F(ScontrolViewTest, ShowConfigWritesTheAccountingStoreFlags) {
  const std::string base =
      "cluster_name: lab\n"
      "nodes:\n"
      "  - {names: n1, address: 127.0.0.1, port: 7830, cpus: 4, real_memory: 4G}\n"
      "partitions:\n"
      "  - {name: p, nodes: ALL}\n";
  auto plain = config::parseClusterConfig(base, "cluster.conf");
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_NE(renderConfig(*plain, "c", kCaptureTime, std::nullopt).find("\nAccountingStoreFlags    = (null)\n"),
            std::string::npos);
  auto both = config::parseClusterConfig(base + "controller:\n  accounting_store_flags: job_script,JOB_ENV\n",
                                         "cluster.conf");
  ASSERT_TRUE(both.ok()) << both.error();
  EXPECT_TRUE(both->controller.store_job_script && both->controller.store_job_env);
  EXPECT_NE(renderConfig(*both, "c", kCaptureTime, std::nullopt)
                .find("\nAccountingStoreFlags    = job_env,job_script\n"),
            std::string::npos);
  auto bad = config::parseClusterConfig(base + "controller:\n  accounting_store_flags: job_comment\n",
                                        "cluster.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("unknown flag 'job_comment' (accepted: job_script, job_env)"), std::string::npos)
      << bad.error();
}

// jobs.requeue_wait is Slurm's AuthInfo cred_expire: written there when not its default.
TEST_F(ScontrolViewTest, ShowConfigWritesRequeueWaitAsAuthInfosCredExpire) {
  auto config = config::parseClusterConfig(
      "cluster_name: lab\n"
      "munge_socket: /run/munge/munge.socket.2\n"
      "nodes:\n"
      "  - {names: n1, address: 127.0.0.1, port: 7830, cpus: 4, real_memory: 4G}\n"
      "partitions:\n"
      "  - {name: p, nodes: ALL}\n"
      "jobs:\n"
      "  requeue_wait: 30\n",
      "cluster.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  std::string text = renderConfig(*config, "/etc/drover/cluster.conf", kCaptureTime, std::nullopt);
  EXPECT_NE(text.find("\nAuthInfo                = socket=/run/munge/munge.socket.2,cred_expire=30\n"),
            std::string::npos)
      << text;
  config->munge_socket.clear();
  text = renderConfig(*config, "/etc/drover/cluster.conf", kCaptureTime, std::nullopt);
  EXPECT_NE(text.find("\nAuthInfo                = cred_expire=30\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace drover::cli
