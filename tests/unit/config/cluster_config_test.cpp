// cluster.conf loading: a table of valid files with what they must produce, and a table of
// invalid files with the located error each must give.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/association_tree.h"
#include "drover/config.h"

namespace drover::config {
namespace {

// YAML from lines, so a case's line numbers are its index + 1.
std::string yaml(std::initializer_list<std::string_view> lines) {
  std::string out;
  for (auto l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

// The smallest valid file; cases append or replace lines.
//  1 cluster_name: c
//  2 nodes:
//  3   - names: n[1-2]
//  4     address: 10.0.0.1
//  5     port: 7001-7002
//  6 partitions:
//  7   - name: p
//  8     nodes: ALL
constexpr std::string_view kHead = "cluster_name: c\n";
constexpr std::string_view kGroup =
    "nodes:\n"
    "  - names: n[1-2]\n"
    "    address: 10.0.0.1\n"
    "    port: 7001-7002\n";
constexpr std::string_view kPartitions =
    "partitions:\n"
    "  - name: p\n"
    "    nodes: ALL\n";

// Minimal file with `group_extra` lines appended to the node group (from line 6 on) and
// `tail` after the partitions (from line 9 + group_extra lines).
std::string minimal(std::string_view group_extra = "", std::string_view tail = "") {
  return std::string(kHead) + std::string(kGroup) + std::string(group_extra) +
         std::string(kPartitions) + std::string(tail);
}

ParseOptions testOptions() {
  ParseOptions o;
  o.base_dir = "/etc/drover";
  return o;
}

Result<ClusterConfig> parse(const std::string& text) {
  return parseClusterConfig(text, "t.conf", testOptions());
}

struct ValidCase {
  std::string name;
  std::string text;
  std::function<void(const ClusterConfig&)> check;
};

TEST(ClusterConfig, ValidFiles) {
  const std::vector<ValidCase> cases = {
      {"minimal file gets Slurm's defaults", minimal(),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.cluster_name, "c");
         EXPECT_EQ(c.source_path, "t.conf");
         EXPECT_EQ(c.controller.host, "127.0.0.1");
         EXPECT_EQ(c.controller.port, 7817);
         EXPECT_EQ(c.controller.state_dir, "/var/lib/drover");
         EXPECT_EQ(c.munge_socket, "");
         ASSERT_EQ(c.nodes.size(), 2u);
         EXPECT_EQ(c.nodes[0].name, "n1");
         EXPECT_EQ(c.nodes[1].name, "n2");
         EXPECT_EQ(c.nodes[1].address, "10.0.0.1");
         EXPECT_EQ(c.nodes[0].port, 7001);
         EXPECT_EQ(c.nodes[1].port, 7002);
         EXPECT_EQ(c.nodes[0].cpus, 1u);
         EXPECT_EQ(c.nodes[0].real_memory_mb, 1u);
         EXPECT_EQ(c.nodes[0].gpus.count, 0u);
         EXPECT_EQ(c.nodes[0].weight, 1u);
         ASSERT_EQ(c.partitions.size(), 1u);
         const PartitionConfig& p = c.partitions[0];
         EXPECT_TRUE(p.is_default);  // the only (first) partition
         EXPECT_EQ(p.nodes, (std::vector<std::string>{"n1", "n2"}));
         EXPECT_EQ(p.max_time_min, kUnlimited);
         EXPECT_EQ(p.default_time_min, kUnlimited);
         EXPECT_EQ(p.max_nodes, kUnlimited);
         EXPECT_EQ(p.state, PartitionState::kUp);
         EXPECT_TRUE(p.allow_accounts.empty());
         EXPECT_EQ(c.timeouts.node_down_s, 60u);
         EXPECT_EQ(c.scheduler.policy, BackfillPolicy::kEasy);
         EXPECT_EQ(c.scheduler.estimate_depth, 500u);  // Slurm's bf_max_job_test default
         EXPECT_EQ(c.scheduler.default_mem_per_cpu_mb, 0u);
         EXPECT_TRUE(c.accounts.empty());
         EXPECT_EQ(c.defaultPartition(), &c.partitions[0]);
         EXPECT_EQ(c.findNode("n2"), &c.nodes[1]);
         EXPECT_EQ(c.findNode("n3"), nullptr);
         EXPECT_EQ(c.findPartition("p"), &c.partitions[0]);
         EXPECT_EQ(c.findPartition("q"), nullptr);
       }},
      {"jobs: requeue is Slurm's JobRequeue (default 1)", minimal() + "jobs:\n  requeue: false\n",
       [](const ClusterConfig& c) { EXPECT_FALSE(c.jobs.requeue); }},
      {"JobRequeue defaults to 1", minimal(),
       [](const ClusterConfig& c) { EXPECT_TRUE(c.jobs.requeue); }},
      {"jobs: requeue_wait is Slurm's cred_expire (default 120 s)", minimal(),
       [](const ClusterConfig& c) { EXPECT_EQ(c.jobs.requeue_wait_s, 120u); }},
      {"jobs: requeue_wait 0 starts requeued jobs at once", minimal() + "jobs:\n  requeue_wait: 0\n",
       [](const ClusterConfig& c) { EXPECT_EQ(c.jobs.requeue_wait_s, 0u); }},
      {"bcast: Slurm's BcastParameters and BcastExclude defaults", minimal(),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.bcast.dest_dir, "");
         EXPECT_EQ(c.bcast.compression, "none");
         EXPECT_FALSE(c.bcast.send_libs);
         EXPECT_EQ(bcastExcludeText(c.bcast), "/lib,/usr/lib,/lib64,/usr/lib64");
       }},
      {"bcast: every key", minimal() + "bcast:\n  dest_dir: /scratch/\n  compression: ZLIB\n"
                                       "  send_libs: true\n  exclude: [/opt/lib/, /usr/lib]\n",
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.bcast.dest_dir, "/scratch");
         EXPECT_EQ(c.bcast.compression, "zlib");
         EXPECT_TRUE(c.bcast.send_libs);
         EXPECT_EQ(bcastExcludeText(c.bcast), "/opt/lib,/usr/lib");
       }},
      {"bcast: an empty exclude list excludes nothing", minimal() + "bcast:\n  exclude: []\n",
       [](const ClusterConfig& c) { EXPECT_EQ(bcastExcludeText(c.bcast), "none"); }},
      {"cpus alone: one socket of that many cores", minimal("    cpus: 16\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].cpus, 16u);
         EXPECT_EQ(c.nodes[0].sockets, 1u);
         EXPECT_EQ(c.nodes[0].cores_per_socket, 16u);
         EXPECT_EQ(c.nodes[0].threads_per_core, 1u);
       }},
      {"topology alone gives cpus", minimal("    sockets: 2\n    cores_per_socket: 8\n    threads_per_core: 2\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].cpus, 32u);
         EXPECT_EQ(c.nodes[0].threads_per_core, 2u);
       }},
      {"cpus and sockets: cores derived", minimal("    cpus: 16\n    sockets: 2\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].cores_per_socket, 8u);
         EXPECT_EQ(c.nodes[0].sockets, 2u);
       }},
      {"memory sizes: suffix and plain MiB",
       minimal("    real_memory: 64G\n", "scheduler:\n  default_mem_per_cpu: 4000\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].real_memory_mb, 65536u);
         EXPECT_EQ(c.scheduler.default_mem_per_cpu_mb, 4000u);
       }},
      {"typed GPUs with device files", minimal("    gpus: {type: h100, files: \"/dev/nvidia[0-7]\"}\n"),
       [](const ClusterConfig& c) {
         const GpuConfig& g = c.nodes[1].gpus;
         EXPECT_EQ(g.type, "h100");
         EXPECT_EQ(g.count, 8u);
         ASSERT_EQ(g.files.size(), 8u);
         EXPECT_EQ(g.files[0], "/dev/nvidia0");
         EXPECT_EQ(g.files[7], "/dev/nvidia7");
         EXPECT_FALSE(g.autodetect_nvidia);
       }},
      {"GPU count with matching files (block style)",
       minimal("    gpus:\n      count: 2\n      files: /dev/nvidia[0-1]\n"),
       [](const ClusterConfig& c) { EXPECT_EQ(c.nodes[0].gpus.files.size(), 2u); }},
      {"GPU count shorthand", minimal("    gpus: 4\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].gpus.count, 4u);
         EXPECT_TRUE(c.nodes[0].gpus.files.empty());
       }},
      {"GPU autodetection", minimal("    gpus: {autodetect: nvidia}\n"),
       [](const ClusterConfig& c) {
         EXPECT_TRUE(c.nodes[0].gpus.autodetect_nvidia);
         EXPECT_EQ(c.nodes[0].gpus.count, 0u);
       }},
      {"features as list and as comma string, weight",
       minimal("    features: [h100, ib]\n    weight: 5\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].features, (std::vector<std::string>{"h100", "ib"}));
         EXPECT_EQ(c.nodes[1].weight, 5u);
       }},
      {"features as a comma string", minimal("    features: \"a, b\"\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].features, (std::vector<std::string>{"a", "b"}));
       }},
      {"address defaults to the node name, port to 7818",
       yaml({"cluster_name: c", "nodes:", "  - names: gpu[01-03]", "partitions:",
             "  - {name: p, nodes: ALL}"}),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.nodes.size(), 3u);
         EXPECT_EQ(c.nodes[2].name, "gpu03");
         EXPECT_EQ(c.nodes[2].address, "gpu03");
         EXPECT_EQ(c.nodes[2].port, kDefaultAgentPort);
       }},
      {"one address per node from a hostlist; one shared port",
       yaml({"cluster_name: c", "nodes:", "  - names: n[1-2]", "    address: 10.0.0.[5-6]",
             "    port: 9000", "partitions:", "  - {name: p, nodes: ALL}"}),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.nodes[0].address, "10.0.0.5");
         EXPECT_EQ(c.nodes[1].address, "10.0.0.6");
         EXPECT_EQ(c.nodes[1].port, 9000);
       }},
      {"IPv6 address taken literally",
       yaml({"cluster_name: c", "nodes:", "  - {names: n1, address: \"::1\", port: 9000}",
             "partitions:", "  - {name: p, nodes: ALL}"}),
       [](const ClusterConfig& c) { EXPECT_EQ(c.nodes[0].address, "::1"); }},
      {"several groups keep config order",
       yaml({"cluster_name: c", "nodes:", "  - {names: \"b[1-2]\", address: h, port: 1-2}",
             "  - {names: a1, address: h, port: 3}", "partitions:", "  - {name: p, nodes: ALL}"}),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.nodes.size(), 3u);
         EXPECT_EQ(c.nodes[2].name, "a1");
         EXPECT_EQ(c.partitions[0].nodes, (std::vector<std::string>{"b1", "b2", "a1"}));
       }},
      {"partition options; second partition default",
       minimal("", yaml({"  - name: q", "    nodes: [n2, \"n[1-2]\"]", "    default: yes",
                         "    max_time: 1-00:00:00", "    default_time: 1:00:00",
                         "    max_nodes: 2", "    priority_tier: 3", "    priority_job_factor: 10",
                         "    state: drain", "    allow_accounts: [research, ops]",
                         "    allow_groups: ALL", "    exclusive: true"})),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.partitions.size(), 2u);
         EXPECT_FALSE(c.partitions[0].is_default);
         const PartitionConfig& q = c.partitions[1];
         EXPECT_TRUE(q.is_default);
         EXPECT_EQ(c.defaultPartition(), &q);
         EXPECT_EQ(q.nodes, (std::vector<std::string>{"n2", "n1"}));  // deduplicated, in order
         EXPECT_EQ(q.max_time_min, 1440);
         EXPECT_EQ(q.default_time_min, 60);
         EXPECT_EQ(q.max_nodes, 2);
         EXPECT_EQ(q.priority_tier, 3u);
         EXPECT_EQ(q.priority_job_factor, 10u);
         EXPECT_EQ(q.state, PartitionState::kDrain);
         EXPECT_EQ(q.allow_accounts, (std::vector<std::string>{"research", "ops"}));
         EXPECT_TRUE(q.allow_groups.empty());
         EXPECT_TRUE(q.exclusive);
       }},
      {"M:S time limits, as Slurm's 30:00 = 30 minutes",
       minimal("", yaml({"  - {name: debug, nodes: n1, max_time: \"30:00\", default_time: \"10:00\"}"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.partitions[1].max_time_min, 30);
         EXPECT_EQ(c.partitions[1].default_time_min, 10);
       }},
      {"default_time without max_time", minimal("", yaml({"  - {name: q, nodes: n1, default_time: 5}"})),
       [](const ClusterConfig& c) { EXPECT_EQ(c.partitions[1].default_time_min, 5); }},
      {"relative paths resolve against the base directory",
       minimal("", yaml({"controller: {host: ctl, port: 7000, state_dir: state}",
                         "munge_socket: munge/../munge/munge.socket"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.controller.host, "ctl");
         EXPECT_EQ(c.controller.port, 7000);
         EXPECT_EQ(c.controller.state_dir, "/etc/drover/state");
         EXPECT_EQ(c.munge_socket, "/etc/drover/munge/munge.socket");
       }},
      {"absolute paths kept", minimal("", yaml({"controller: {state_dir: /srv/drover}",
                                                "munge_socket: /run/munge/munge.socket.2"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.controller.state_dir, "/srv/drover");
         EXPECT_EQ(c.munge_socket, "/run/munge/munge.socket.2");
       }},
      {"timeouts and operators",
       minimal("", yaml({"timeouts: {heartbeat_interval: 2, node_down: 10, kill_wait: 5, message: 7}",
                         "operators: [alice]"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.timeouts.heartbeat_interval_s, 2u);
         EXPECT_EQ(c.timeouts.node_down_s, 10u);
         EXPECT_EQ(c.timeouts.kill_wait_s, 5u);
         EXPECT_EQ(c.timeouts.message_s, 7u);
         EXPECT_EQ(c.operators, (std::vector<std::string>{"alice"}));
       }},
      {"preemption: partition_prio, a default mode, partitions' own modes and grace times",
       minimal("", yaml({"  - {name: low, nodes: n1, preempt_mode: CANCEL, grace_time: 30}",
                         "  - {name: off, nodes: n1, preempt_mode: \"off\"}",
                         "scheduler:", "  preempt_type: partition_prio", "  preempt_mode: requeue",
                         "  preempt_exempt_time: 10"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.scheduler.preempt_type, PreemptType::kPartitionPrio);
         EXPECT_EQ(c.scheduler.preempt_exempt_time_s, 600);  // minutes, as Slurm's
         EXPECT_EQ(c.scheduler.preempt_mode, PreemptMode::kRequeue);
         ASSERT_EQ(c.partitions.size(), 3u);
         EXPECT_EQ(effectivePreemptMode(c.scheduler, c.partitions[0]), PreemptMode::kRequeue);
         EXPECT_EQ(effectivePreemptMode(c.scheduler, c.partitions[1]), PreemptMode::kCancel);
         EXPECT_EQ(c.partitions[1].grace_time_s, 30u);
         EXPECT_EQ(effectivePreemptMode(c.scheduler, c.partitions[2]), PreemptMode::kOff);
         EXPECT_EQ(preemptModeName(PreemptMode::kRequeue), "REQUEUE");
       }},
      {"QOS table: normal first and implicit, names in lower case, preempt lists, modes",
       minimal("", yaml({"qos:", "  - {name: High, priority: 100, preempt: [LOW, scavenger]}",
                         "  - {name: low, preempt_mode: cancel, grace_time: 45}",
                         "  - name: scavenger", "    description: leftover cycles",
                         "scheduler: {preempt_type: qos, preempt_mode: requeue}"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.scheduler.preempt_type, PreemptType::kQos);
         ASSERT_EQ(c.qos.size(), 4u);
         EXPECT_EQ(c.qos[0].name, "normal");
         EXPECT_EQ(c.qos[0].id, 1u);
         EXPECT_EQ(c.qos[1].name, "high");
         EXPECT_EQ(c.qos[1].id, 2u);
         EXPECT_EQ(c.qos[1].priority, 100u);
         EXPECT_EQ(c.qos[1].preempt, (std::vector<std::string>{"low", "scavenger"}));
         EXPECT_EQ(c.qos[3].description, "leftover cycles");
         EXPECT_EQ(c.findQos("HIGH"), &c.qos[1]);
         EXPECT_EQ(c.findQos("nosuch"), nullptr);
         // Under preempt/qos a QOS's own mode wins, else the partition's, else the scheduler's.
         EXPECT_EQ(effectivePreemptMode(c.scheduler, c.partitions[0], &c.qos[2]), PreemptMode::kCancel);
         EXPECT_EQ(c.qos[2].grace_time_s, 45u);
         EXPECT_EQ(effectivePreemptMode(c.scheduler, c.partitions[0], &c.qos[3]), PreemptMode::kRequeue);
         EXPECT_EQ(preemptTypeName(c.scheduler.preempt_type), "preempt/qos");
       }},
      {"QOS limits: Slurm's MaxJobsPU, MaxSubmitJobsPU, MaxTRESPU, MaxWall, DenyOnLimit",
       minimal("", yaml({"qos:", "  - name: short", "    max_jobs_per_user: 1",
                         "    max_submit_jobs_per_user: 3",
                         "    max_tres_per_user: gpu=8,CPU=64,node=0", "    max_wall: 5",
                         "    deny_on_limit: true", "  - {name: long, max_wall: UNLIMITED}"})),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.qos.size(), 3u);
         const QosConfig& q = c.qos[1];
         EXPECT_EQ(q.max_jobs_per_user, 1u);
         EXPECT_EQ(q.max_submit_jobs_per_user, 3u);
         EXPECT_EQ(q.max_tres_per_user,
                   (std::map<std::string, std::uint64_t>{{"cpu", 64}, {"gres/gpu", 8}, {"node", 0}}));
         EXPECT_EQ(q.max_wall_min, 5);
         EXPECT_TRUE(q.deny_on_limit);
         EXPECT_TRUE(q.hasRunLimits());
         EXPECT_FALSE(c.qos[2].hasRunLimits());  // UNLIMITED is no limit
         EXPECT_FALSE(c.qos[0].hasRunLimits());
       }},
      {"QOS limits on the whole QOS, per account and per job: Slurm's GrpJobs, GrpSubmitJobs, GrpTRES, *PA, MaxTRES",
       minimal("", yaml({"qos:", "  - name: team", "    grp_jobs: 4", "    grp_submit_jobs: 10",
                         "    grp_tres: gres/gpu=16,cpu=32", "    max_tres_per_job: node=2,gpu=8",
                         "    max_jobs_per_account: 6", "    max_submit_jobs_per_account: 20",
                         "    max_tres_per_account: gpu=24"})),
       [](const ClusterConfig& c) {
         const QosConfig& q = c.qos[1];
         EXPECT_EQ(q.grp_jobs, 4u);
         EXPECT_EQ(q.grp_submit_jobs, 10u);
         EXPECT_EQ(q.grp_tres, (std::map<std::string, std::uint64_t>{{"cpu", 32}, {"gres/gpu", 16}}));
         EXPECT_EQ(q.max_tres_per_job,
                   (std::map<std::string, std::uint64_t>{{"gres/gpu", 8}, {"node", 2}}));
         EXPECT_EQ(q.max_jobs_per_account, 6u);
         EXPECT_EQ(q.max_submit_jobs_per_account, 20u);
         EXPECT_EQ(q.max_tres_per_account, (std::map<std::string, std::uint64_t>{{"gres/gpu", 24}}));
         EXPECT_TRUE(q.hasAccountLimits());
         EXPECT_TRUE(q.hasGroupLimits());
         EXPECT_TRUE(q.hasRunLimits());
       }},
      {"QOS table: normal listed keeps its place and id",
       minimal("", yaml({"qos:", "  - {name: urgent, priority: 10}", "  - {name: normal, priority: 5}"})),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.qos.size(), 2u);
         EXPECT_EQ(c.qos[0].name, "normal");
         EXPECT_EQ(c.qos[0].priority, 5u);
         EXPECT_EQ(c.qos[1].name, "urgent");
         EXPECT_EQ(c.qos[1].id, 2u);
       }},
      {"no QOS table: normal alone",
       minimal(),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.qos.size(), 1u);
         EXPECT_EQ(c.qos[0].name, "normal");
         EXPECT_EQ(c.qos[0].id, 1u);
       }},
      {"accounts' QOS lists and defaults, inherited down the tree",
       minimal("", yaml({"qos: [{name: high}, {name: low}]",
                         "accounts:", "  - {name: ml, qos: [normal, HIGH], default_qos: high, users: [alice]}",
                         "  - {name: vision, parent: ml, users: [bob]}",
                         "  - {name: ops, qos: [low], users: [carol]}",
                         "  - {name: free, users: [dave]}"})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(allowedQosOf(c.accounts, "ml"), (std::vector<std::string>{"normal", "high"}));
         EXPECT_EQ(allowedQosOf(c.accounts, "vision"), (std::vector<std::string>{"normal", "high"}));
         EXPECT_EQ(defaultQosOf(c.accounts, "vision"), "high");
         // Without a default: normal when allowed, else the first allowed.
         EXPECT_EQ(defaultQosOf(c.accounts, "ops"), "low");
         EXPECT_TRUE(allowedQosOf(c.accounts, "free").empty());  // every QOS
         EXPECT_EQ(defaultQosOf(c.accounts, "free"), "normal");
         EXPECT_EQ(ownDefaultQosOf(c.accounts, "ops"), "");
       }},
      {"preemption off by default, whatever the partitions say",
       minimal("", "  - {name: low, nodes: n1, preempt_mode: requeue}\n"),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.scheduler.preempt_type, PreemptType::kNone);
         EXPECT_EQ(c.partitions[0].grace_time_s, 0u);
         EXPECT_EQ(effectivePreemptMode(c.scheduler, c.partitions[1]), PreemptMode::kOff);
       }},
      {"scheduler and priority weights",
       minimal("", yaml({"scheduler:", "  policy: Conservative", "  coalesce_ms: 0",
                         "  estimate_depth: 0", "  enable_user_top: yes", "  priority:",
                         "    weight_age: 1", "    weight_fairshare: 2", "    weight_job_size: 3",
                         "    weight_partition: 4", "    weight_qos: 5", "    max_age: 1-0",
                         "    decay_half_life: 0", "    calc_period: \"0:30\""})),
       [](const ClusterConfig& c) {
         EXPECT_EQ(c.scheduler.policy, BackfillPolicy::kConservative);
         EXPECT_EQ(c.scheduler.coalesce_ms, 0u);
         EXPECT_EQ(c.scheduler.estimate_depth, 0u);
         EXPECT_TRUE(c.scheduler.enable_user_top);
         const PriorityWeights& w = c.scheduler.priority;
         EXPECT_EQ(w.age, 1u);
         EXPECT_EQ(w.fairshare, 2u);
         EXPECT_EQ(w.job_size, 3u);
         EXPECT_EQ(w.partition, 4u);
         EXPECT_EQ(w.qos, 5u);
         EXPECT_EQ(w.max_age_s, 86400);
         EXPECT_EQ(w.decay_half_life_s, 0);
         EXPECT_EQ(w.calc_period_s, 30);
       }},
      {"account tree below root",
       minimal("", yaml({"accounts:", "  - {name: research, parent: root, shares: 10, users: [alice, bob]}",
                         "  - {name: ml, parent: research, users: carol, description: vision team,",
                         "     organization: \"lab 7\"}", "  - {name: ops}"})),
       [](const ClusterConfig& c) {
         ASSERT_EQ(c.accounts.size(), 3u);
         EXPECT_EQ(c.accounts[0].parent, "");
         EXPECT_EQ(c.accounts[0].shares, 10u);
         EXPECT_EQ(c.accounts[0].users, (std::vector<std::string>{"alice", "bob"}));
         EXPECT_EQ(c.accounts[1].parent, "research");
         EXPECT_EQ(c.accounts[1].shares, 1u);
         EXPECT_EQ(c.accounts[1].users, (std::vector<std::string>{"carol"}));
         EXPECT_EQ(c.accounts[1].description, "vision team");
         EXPECT_EQ(c.accounts[1].organization, "lab 7");
         EXPECT_EQ(c.accounts[0].description, "");
         EXPECT_EQ(c.accounts[2].parent, "");
       }},
      {"comments, anchors and an explicit document start",
       "--- # drover\n" + minimal("    features: &f [x]  # anchor\n", "accounts: []\n"),
       [](const ClusterConfig& c) { EXPECT_EQ(c.nodes[0].features.size(), 1u); }},
  };
  for (const ValidCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto r = parse(tc.text);
    ASSERT_TRUE(r.ok()) << r.error() << "\n--- file:\n" << tc.text;
    tc.check(*r);
  }
}

struct InvalidCase {
  std::string name;
  std::string text;
  std::string error;  // expected substring, starting with the location
};

TEST(ClusterConfig, InvalidFilesGiveLocatedErrors) {
  const std::string two_groups_head = "cluster_name: c\nnodes:\n  - {names: \"n[1-2]\", address: h, port: 1-2}\n";
  const std::vector<InvalidCase> cases = {
      // Document shape.
      {"empty file", "", "t.conf:1:1: the document: expected a mapping (keys: cluster_name, "},
      {"a list at the top", "- a\n", "t.conf:1:1: the document: expected a mapping"},
      {"YAML syntax error", "cluster_name: c\nnodes: [a\n",
       "t.conf:3:1: YAML syntax error: end of sequence flow not found"},
      {"bad indentation", "cluster_name: c\n nodes: x\n", "t.conf:2:7: YAML syntax error"},
      {"two documents", minimal() + "---\ncluster_name: d\n",
       "t.conf:9:1: a second YAML document"},
      {"a bare comma (yaml-cpp 0.7's LoadAll loops forever on it)", ",\n",
       "t.conf:1:1: the document: expected a mapping"},
      {"syntax error in a second document", minimal() + "---\n[:\n",
       "t.conf:11:1: YAML syntax error: end of sequence flow not found"},
      {"unknown top-level key with suggestion", "cluster_name: c\nnodez: []\n",
       "t.conf:2:1: unknown key 'nodez' in the document (did you mean 'nodes'?); accepted keys: "
       "cluster_name, controller, munge_socket, operators, timeouts, nodes, partitions, "
       "scheduler, accounts"},
      {"repeated key", minimal() + "cluster_name: d\n",
       "t.conf:9:1: the document: key 'cluster_name' appears twice (first at line 1)"},
      {"non-scalar key", "? [a, b]\n: c\n", "t.conf:1:3: the document: keys must be plain names"},
      {"missing cluster_name", std::string(kGroup) + std::string(kPartitions),
       "t.conf:1:1: the document: missing required key 'cluster_name'"},
      {"missing nodes", std::string(kHead) + std::string(kPartitions),
       "t.conf:1:1: the document: missing required key 'nodes'"},
      {"missing partitions", std::string(kHead) + std::string(kGroup),
       "t.conf:1:1: the document: missing required key 'partitions'"},
      {"cluster_name not a name", "cluster_name: a b\n" + minimal().substr(kHead.size()),
       "t.conf:1:15: cluster_name: 'a b' is not a valid name"},
      {"cluster_name empty", "cluster_name:\n" + minimal().substr(kHead.size()),
       "t.conf:1:1: the document: key 'cluster_name' has no value"},

      // Node groups.
      {"nodes empty", std::string(kHead) + "nodes: []\n" + std::string(kPartitions),
       "t.conf:2:8: nodes: expected a non-empty list of node groups"},
      {"unknown node key", minimal("    cpu: 4\n"),
       "t.conf:6:5: unknown key 'cpu' in nodes[0] (did you mean 'cpus'?); accepted keys: names, "
       "address, port, cpus, sockets, cores_per_socket, threads_per_core, real_memory, gpus, "
       "features, weight"},
      {"group missing names", yaml({"cluster_name: c", "nodes:", "  - cpus: 4", "partitions:",
                                    "  - {name: p, nodes: ALL}"}),
       "t.conf:3:5: nodes[0]: missing required key 'names'"},
      {"bad hostlist", yaml({"cluster_name: c", "nodes:", "  - names: n[1-", "partitions:",
                             "  - {name: p, nodes: ALL}"}),
       "t.conf:3:12: nodes[0].names: invalid hostlist 'n[1-'"},
      {"hostlist naming a node twice", yaml({"cluster_name: c", "nodes:", "  - names: n[1-2],n1",
                                             "partitions:", "  - {name: p, nodes: ALL}"}),
       "t.conf:3:12: nodes[0].names: 'n[1-2],n1' names n1 twice"},
      {"cpus not an integer", minimal("    cpus: [1]\n"),
       "t.conf:6:11: nodes[0].cpus: expected an integer from 1 to 1048576, got a sequence"},
      {"negative cpus", minimal("    cpus: -4\n"),
       "t.conf:6:11: nodes[0].cpus: expected an integer from 1 to 1048576, got '-4'"},
      {"zero cpus", minimal("    cpus: 0\n"), "t.conf:6:11: nodes[0].cpus: expected an integer from 1"},
      {"fractional cpus", minimal("    cpus: 1.5\n"), "t.conf:6:11: nodes[0].cpus: expected an integer"},
      {"zero sockets", minimal("    sockets: 0\n"),
       "t.conf:6:14: nodes[0].sockets: expected an integer from 1 to 65535, got '0'"},
      {"cpus disagree with topology", minimal("    cpus: 10\n    sockets: 2\n    cores_per_socket: 4\n"),
       "t.conf:6:11: nodes[0].cpus: cpus is 10 but sockets x cores_per_socket x threads_per_core "
       "= 2 x 4 x 1 = 8"},
      {"cpus not divisible by sockets", minimal("    cpus: 9\n    sockets: 2\n"),
       "t.conf:6:11: nodes[0].cpus: 9 CPUs cannot be split evenly over 2 socket(s)"},
      {"bad memory size", minimal("    real_memory: 64X\n"),
       "t.conf:6:18: nodes[0].real_memory: Invalid memory specification '64X'"},
      {"zero memory", minimal("    real_memory: 0\n"),
       "t.conf:6:18: nodes[0].real_memory: must be at least 1 MiB"},
      {"port range too short", yaml({"cluster_name: c", "nodes:", "  - names: n[1-3]",
                                     "    address: 127.0.0.1", "    port: 7831-7832", "partitions:",
                                     "  - {name: p, nodes: ALL}"}),
       "t.conf:5:11: nodes[0].port: range 7831-7832 holds 2 port(s) for 3 node(s)"},
      {"port range reversed", minimal().replace(minimal().find("7001-7002"), 9, "7002-7001"),
       "t.conf:5:11: nodes[0].port: expected a port (1-65535) or a range such as 7831-7834, got "
       "'7002-7001'"},
      {"port out of range", minimal().replace(minimal().find("7001-7002"), 9, "70000"),
       "t.conf:5:11: nodes[0].port: expected a port (1-65535)"},
      {"two agents on one address:port", minimal().replace(minimal().find("7001-7002"), 9, "7001"),
       "t.conf:5:11: nodes[0].port: nodes n1 and n2 would both listen on 10.0.0.1:7001"},
      {"agents of two groups on one address:port",
       two_groups_head + yaml({"  - {names: m1, address: h, port: 2}", "partitions:",
                               "  - {name: p, nodes: ALL}"}),
       "t.conf:4:35: nodes[1].port: nodes n2 and m1 would both listen on h:2"},
      {"agent on the controller's address",
       minimal("", "controller: {host: 10.0.0.1, port: 7002}\n"),
       "t.conf:5:11: nodes[0].port: node n2 would listen on 10.0.0.1:7002, the controller's"},
      {"node in two groups",
       two_groups_head + yaml({"  - {names: \"n[2-3]\", address: h, port: 3-4}", "partitions:",
                               "  - {name: p, nodes: ALL}"}),
       "t.conf:4:13: nodes[1].names: node n2 is already in nodes[0] (line 3); a node belongs to "
       "exactly one group"},
      {"address count mismatch", minimal().replace(minimal().find("10.0.0.1"), 8, "10.0.0.[1-3]"),
       "t.conf:4:14: nodes[0].address: 3 addresses for 2 nodes"},
      {"GPU count and files disagree", minimal("    gpus: {count: 4, files: \"/dev/nvidia[0-7]\"}\n"),
       "t.conf:6:19: nodes[0].gpus.count: count is 4 but files names 8 device(s)"},
      {"GPU file not a path", minimal("    gpus: {files: nvidia0}\n"),
       "t.conf:6:19: nodes[0].gpus.files: 'nvidia0' is not an absolute device path"},
      {"GPU autodetect with count", minimal("    gpus: {autodetect: nvidia, count: 2}\n"),
       "t.conf:6:24: nodes[0].gpus.autodetect: autodetect: nvidia finds the type, count"},
      {"GPU autodetect unknown", minimal("    gpus: {autodetect: amd}\n"),
       "t.conf:6:24: nodes[0].gpus.autodetect: unknown value 'amd'; accepted: nvidia, off"},
      {"GPU count zero", minimal("    gpus: {count: 0}\n"),
       "t.conf:6:19: nodes[0].gpus.count: expected an integer from 1 to 1024, got '0'"},
      {"GPU shorthand negative", minimal("    gpus: -1\n"),
       "t.conf:6:11: nodes[0].gpus: expected an integer from 1 to 1024, got '-1'"},
      {"GPUs with nothing", minimal("    gpus: {type: a100}\n"),
       "t.conf:6:11: nodes[0].gpus: give count, files, or autodetect: nvidia"},
      {"GPU unknown key", minimal("    gpus: {cnt: 2}\n"),
       "t.conf:6:12: unknown key 'cnt' in nodes[0].gpus (did you mean 'count'?); accepted keys: "
       "type, count, files, autodetect"},
      {"features not a list", minimal("    features: {a: 1}\n"),
       "t.conf:6:15: nodes[0].features: expected a list of names"},
      {"negative weight", minimal("    weight: -1\n"),
       "t.conf:6:13: nodes[0].weight: expected an integer from 0 to 4294967295, got '-1'"},

      // Partitions.
      {"partitions empty", std::string(kHead) + std::string(kGroup) + "partitions: []\n",
       "t.conf:6:13: partitions: expected a non-empty list of partitions"},
      {"partition missing name", std::string(kHead) + std::string(kGroup) + "partitions:\n  - nodes: ALL\n",
       "t.conf:7:5: partitions[0]: missing required key 'name'"},
      {"partition missing nodes", std::string(kHead) + std::string(kGroup) + "partitions:\n  - name: p\n",
       "t.conf:7:5: partitions[0]: missing required key 'nodes'"},
      {"partition naming unknown nodes", minimal("", "  - {name: q, nodes: \"n[1-4]\"}\n"),
       "t.conf:9:22: partitions[1].nodes: unknown node(s) n[3-4]; partitions may name only nodes "
       "configured under nodes (n[1-2]), or ALL"},
      {"unknown node in a list item", minimal("", "  - {name: q, nodes: [n1, x9]}\n"),
       "t.conf:9:27: partitions[1].nodes[1]: unknown node(s) x9"},
      {"duplicate partition names", minimal("", "  - {name: p, nodes: n1}\n"),
       "t.conf:9:12: partitions[1].name: partition 'p' is already defined at line 7"},
      {"two default partitions",
       minimal("", "  - {name: q, nodes: n1, default: true}\n  - {name: r, nodes: n1, default: true}\n"),
       "t.conf:10:35: partitions[2].default: partition 'r' is marked default, but so is 'q' "
       "(line 9); at most one partition may be the default"},
      {"default not a boolean", minimal("", "  - {name: q, nodes: n1, default: maybe}\n"),
       "t.conf:9:35: partitions[1].default: expected true or false (or yes/no), got 'maybe'"},
      {"default_time above max_time",
       minimal("", "  - {name: q, nodes: n1, max_time: \"30:00\", default_time: \"1:00:00\"}\n"),
       "t.conf:9:59: partitions[1].default_time: default_time (1:00:00) exceeds max_time (30:00)"},
      {"default_time unlimited under a max_time",
       minimal("", "  - {name: q, nodes: n1, max_time: 30, default_time: UNLIMITED}\n"),
       "t.conf:9:54: partitions[1].default_time: default_time (UNLIMITED) exceeds max_time (30)"},
      {"bad time spec", minimal("", "  - {name: q, nodes: n1, max_time: \"1:xx\"}\n"),
       "t.conf:9:36: partitions[1].max_time: Invalid time limit specification '1:xx'"},
      {"unknown partition state", minimal("", "  - {name: q, nodes: n1, state: OPEN}\n"),
       "t.conf:9:33: partitions[1].state: unknown value 'OPEN'; accepted: UP, DOWN, DRAIN, INACTIVE"},
      {"max_nodes zero", minimal("", "  - {name: q, nodes: n1, max_nodes: 0}\n"),
       "t.conf:9:37: partitions[1].max_nodes: expected UNLIMITED or an integer from 1"},
      {"priority_tier too large", minimal("", "  - {name: q, nodes: n1, priority_tier: 70000}\n"),
       "t.conf:9:41: partitions[1].priority_tier: expected an integer from 0 to 65533, got '70000'"},
      {"unknown partition key", minimal("", "  - {name: q, nodes: n1, maxtime: 5}\n"),
       "t.conf:9:26: unknown key 'maxtime' in partitions[1] (did you mean 'max_time'?)"},
      {"allow_accounts wrong type", minimal("", "  - {name: q, nodes: n1, allow_accounts: {a: b}}\n"),
       "t.conf:9:42: partitions[1].allow_accounts: expected a list of names"},

      // Controller, timeouts, scheduler.
      {"controller port zero", minimal("", "controller: {port: 0}\n"),
       "t.conf:9:20: controller.port: expected an integer from 1 to 65535, got '0'"},
      {"agent on the controller's CLI port",
       "cluster_name: c\ncontroller: {host: 127.0.0.1, port: 7817}\nnodes:\n  - names: n1\n    address: 127.0.0.1\n    port: 7819\npartitions:\n  - name: p\n    nodes: ALL\n",
       "node n1 would listen on 127.0.0.1:7819, the controller's address"},
      {"controller not a mapping", minimal("", "controller: 127.0.0.1:7817\n"),
       "t.conf:9:13: controller: expected a mapping (keys: host, port, cli_port, state_dir, accounting_store_flags), got "
       "'127.0.0.1:7817'"},
      {"timeout with a unit", minimal("", "timeouts: {node_down: 60s}\n"),
       "t.conf:9:23: timeouts.node_down: expected an integer from 1 to 65535, got '60s'"},
      {"zero kill_wait", minimal("", "timeouts: {kill_wait: 0}\n"),
       "t.conf:9:23: timeouts.kill_wait: expected an integer from 1 to 65535, got '0'"},
      {"node_down not above heartbeat", minimal("", "timeouts: {heartbeat_interval: 10, node_down: 10}\n"),
       "t.conf:9:47: timeouts: node_down (10 s) must be greater than heartbeat_interval (10 s)"},
      {"negative estimate_depth", minimal("", "scheduler: {estimate_depth: -1}\n"),
       "t.conf:9:29: scheduler.estimate_depth: expected an integer from 0 to 1000000, got '-1'"},
      {"unknown policy", minimal("", "scheduler: {policy: lifo}\n"),
       "t.conf:9:21: scheduler.policy: unknown value 'lifo'; accepted: fcfs, easy, conservative"},
      {"bad default_mem_per_cpu", minimal("", "scheduler: {default_mem_per_cpu: lots}\n"),
       "t.conf:9:34: scheduler.default_mem_per_cpu: Invalid memory specification 'lots'"},
      {"unlimited max_age", minimal("", "scheduler:\n  priority: {max_age: UNLIMITED}\n"),
       "t.conf:10:23: scheduler.priority.max_age: 'UNLIMITED' is not accepted here; give a finite duration"},
      {"preempt_type unknown", minimal("", "scheduler: {preempt_type: suspend}\n"),
       "t.conf:9:27: scheduler.preempt_type: unknown value 'suspend'; accepted: none, partition_prio, qos"},
      {"qos not a list", minimal("", "qos: high\n"),
       "t.conf:9:6: qos: expected a list of QOSes (each with name, priority, description, preempt, "
       "preempt_mode, grace_time and limits), got 'high'"},
      {"qos defined twice", minimal("", "qos: [{name: a}, {name: A}]\n"),
       "t.conf:9:25: qos[1].name: QOS 'a' is already defined as qos[0]"},
      {"qos preempts an unknown one", minimal("", "qos: [{name: a, preempt: [b]}]\n"),
       "t.conf:9:26: qos[0].preempt: unknown QOS 'b'; defined: normal, a"},
      {"qos preempts itself", minimal("", "qos: [{name: a, preempt: [a]}]\n"),
       "t.conf:9:26: qos[0].preempt: QOS 'a' cannot preempt itself"},
      {"qos unknown key", minimal("", "qos: [{name: a, max_jobs: 10}]\n"),
       "t.conf:9:17: unknown key 'max_jobs' in qos[0]"},
      {"qos TRES limit of something not counted", minimal("", "qos: [{name: a, max_tres_per_user: mem=10}]\n"),
       "qos[0].max_tres_per_user: 'mem=10' is not a TRES limit; give NAME=COUNT items separated "
       "by commas, NAME cpu, node or gres/gpu"},
      {"qos TRES limit without a count", minimal("", "qos: [{name: a, max_tres_per_user: \"cpu=\"}]\n"),
       "qos[0].max_tres_per_user: 'cpu=' is not a TRES limit"},
      {"qos group TRES limit of something not counted", minimal("", "qos: [{name: a, grp_tres: billing=10}]\n"),
       "qos[0].grp_tres: 'billing=10' is not a TRES limit"},
      {"qos per-job TRES limit without a name", minimal("", "qos: [{name: a, max_tres_per_job: \"=4\"}]\n"),
       "qos[0].max_tres_per_job: '=4' is not a TRES limit"},
      {"qos group jobs not a count", minimal("", "qos: [{name: a, grp_jobs: many}]\n"),
       "qos[0].grp_jobs: expected an integer"},
      {"account names an unknown qos", minimal("", "accounts: [{name: ml, qos: [fast]}]\n"),
       "t.conf:9:28: accounts[0].qos: unknown QOS 'fast'; defined: normal"},
      {"account default qos it may not use",
       minimal("", "qos: [{name: a}]\naccounts: [{name: ml, qos: [a], default_qos: normal}]\n"),
       "t.conf:10:46: accounts[0].default_qos: 'normal' is not among the QOSes the account may use (a)"},
      {"preempt_mode suspend", minimal("", "scheduler: {preempt_mode: suspend}\n"),
       "t.conf:9:27: scheduler.preempt_mode: 'suspend' is not supported: Drover has no gang "
       "scheduler to suspend jobs with; accepted: off, cancel, requeue"},
      {"partition preempt_mode unknown", minimal("", "  - {name: q, nodes: n1, preempt_mode: kill}\n"),
       "t.conf:9:40: partitions[1].preempt_mode: unknown value 'kill'; accepted: off, cancel, requeue"},
      {"grace_time negative", minimal("", "  - {name: q, nodes: n1, grace_time: -5}\n"),
       "t.conf:9:38: partitions[1].grace_time: expected an integer from 0 to 31536000, got '-5'"},
      {"enable_user_top not a boolean", minimal("", "scheduler: {enable_user_top: 2}\n"),
       "t.conf:9:30: scheduler.enable_user_top: expected true or false (or yes/no), got '2'"},
      {"zero calc_period", minimal("", "scheduler:\n  priority: {calc_period: 0}\n"),
       "t.conf:10:27: scheduler.priority.calc_period: must be at least one second"},
      {"negative weight", minimal("", "scheduler:\n  priority: {weight_age: -1}\n"),
       "t.conf:10:26: scheduler.priority.weight_age: expected an integer from 0 to 4294967295"},
      {"munge_socket not a string", minimal("", "munge_socket: [a]\n"),
       "t.conf:9:15: munge_socket: expected a non-empty string, got a sequence"},
      {"operators not names", minimal("", "operators: {a: 1}\n"),
       "t.conf:9:12: operators: expected a list of names"},

      // Accounts.
      {"account with unknown parent", minimal("", "accounts:\n  - {name: a, parent: nope}\n"),
       "t.conf:10:23: accounts[0].parent: unknown account 'nope'; accepted: root, a"},
      {"account cycle",
       minimal("", "accounts:\n  - {name: a, parent: b}\n  - {name: b, parent: a}\n"),
       "t.conf:10:23: accounts[0].parent: accounts form a cycle (a -> b -> a)"},
      {"account its own parent", minimal("", "accounts:\n  - {name: a, parent: a}\n"),
       "t.conf:10:23: accounts[0].parent: accounts form a cycle (a -> a)"},
      {"account named root", minimal("", "accounts:\n  - {name: root}\n"),
       "t.conf:10:12: accounts[0].name: 'root' is the implicit top of the account tree"},
      {"duplicate account", minimal("", "accounts:\n  - {name: a}\n  - {name: a}\n"),
       "t.conf:11:12: accounts[1].name: account 'a' is already defined as accounts[0]"},
      {"zero shares", minimal("", "accounts:\n  - {name: a, shares: 0}\n"),
       "t.conf:10:23: accounts[0].shares: expected an integer from 1 to 4294967295, got '0'"},
      {"accounts not a list", minimal("", "accounts: research\n"),
       "t.conf:9:11: accounts: expected a list of accounts"},
      {"negative requeue_wait", minimal() + "jobs:\n  requeue_wait: -5\n",
       "t.conf:10:17: jobs.requeue_wait: expected an integer from 0 to 65535, got '-5'"},
      {"bcast dest_dir not absolute", minimal() + "bcast:\n  dest_dir: tmp\n",
       "t.conf:10:13: bcast.dest_dir: expected an absolute path (starting with /), got 'tmp'"},
      {"bcast unknown compression", minimal() + "bcast:\n  compression: gzip\n",
       "t.conf:10:16: bcast.compression:"},
      {"bcast exclude as text", minimal() + "bcast:\n  exclude: /lib\n",
       "t.conf:10:12: bcast.exclude: expected a list of absolute directories ([] for none), got '/lib'"},
      {"bcast exclude entry relative", minimal() + "bcast:\n  exclude: [/lib, lib64]\n",
       "t.conf:10:19: bcast.exclude[1]: expected an absolute path"},
      {"bcast unknown key", minimal() + "bcast:\n  destdir: /x\n", "t.conf:10:3: unknown key 'destdir'"},
  };
  for (const InvalidCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto r = parse(tc.text);
    ASSERT_FALSE(r.ok()) << "accepted:\n" << tc.text;
    EXPECT_NE(r.error().find(tc.error), std::string::npos)
        << "expected: " << tc.error << "\n     got: " << r.error() << "\n--- file:\n" << tc.text;
    EXPECT_EQ(r.error().rfind("t.conf:", 0), 0u) << r.error();
  }
}

TEST(ClusterConfig, HostileInputIsAnErrorNotACrash) {
  const std::string deep = "cluster_name: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  auto r = parse(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("t.conf:1:", 0), 0u) << r.error();

  ParseOptions small = testOptions();
  small.max_nodes = 100;
  auto big = parseClusterConfig(
      yaml({"cluster_name: c", "nodes:", "  - names: n[1-1000000000]", "partitions:",
            "  - {name: p, nodes: ALL}"}),
      "t.conf", small);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().rfind("t.conf:3:12: nodes[0].names: ", 0), 0u) << big.error();
}

TEST(ClusterConfig, RelativePathsResolveAgainstTheFilesDirectory) {
  auto r = parseClusterConfig(minimal("", "controller: {state_dir: state}\n"), "/srv/x/cluster.conf");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->controller.state_dir, "/srv/x/state");
  EXPECT_EQ(r->source_path, "/srv/x/cluster.conf");
}

TEST(ClusterConfig, LoadReportsUnreadableFiles) {
  auto r = loadClusterConfig("/nonexistent/drover/cluster.conf");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("/nonexistent/drover/cluster.conf: cannot open", 0), 0u) << r.error();
}

TEST(ClusterConfig, DefaultPathHonoursDroverConf) {
  ::setenv("DROVER_CONF", "/tmp/x.conf", 1);
  EXPECT_EQ(defaultConfigPath(), "/tmp/x.conf");
  ::unsetenv("DROVER_CONF");
  EXPECT_EQ(defaultConfigPath(), "/etc/drover/cluster.conf");
}

TEST(ClusterConfig, Names) {
  EXPECT_EQ(partitionStateName(PartitionState::kDrain), "DRAIN");
  EXPECT_EQ(partitionStateName(PartitionState::kInactive), "INACTIVE");
  EXPECT_EQ(backfillPolicyName(BackfillPolicy::kConservative), "conservative");
}

// The annotated example that the local cluster runs on must load and say what it documents.
TEST(ClusterConfig, ExampleFileLoads) {
  auto r = loadClusterConfig(DROVER_EXAMPLE_CONF);
  ASSERT_TRUE(r.ok()) << r.error();
  const ClusterConfig& c = *r;
  const std::string dir = std::string(DROVER_EXAMPLE_CONF).substr(
      0, std::string(DROVER_EXAMPLE_CONF).rfind('/'));
  EXPECT_EQ(c.cluster_name, "drover");
  EXPECT_EQ(c.controller.host, "127.0.0.1");
  EXPECT_EQ(c.controller.port, 7817);
  EXPECT_EQ(c.controller.state_dir, dir + "/state");
  EXPECT_EQ(c.munge_socket, dir + "/munge/munge.socket");
  EXPECT_EQ(c.timeouts.heartbeat_interval_s, 2u);
  EXPECT_EQ(c.timeouts.node_down_s, 10u);
  EXPECT_EQ(c.timeouts.kill_wait_s, 5u);
  EXPECT_EQ(c.timeouts.message_s, 10u);
  ASSERT_EQ(c.nodes.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const NodeConfig& n = c.nodes[i];
    EXPECT_EQ(n.name, "node" + std::to_string(i + 1));
    EXPECT_EQ(n.address, "127.0.0.1");
    EXPECT_EQ(n.port, 7831 + i);
    EXPECT_EQ(n.cpus, 16u);
    EXPECT_EQ(n.sockets, 2u);
    EXPECT_EQ(n.cores_per_socket, 8u);
    EXPECT_EQ(n.threads_per_core, 1u);
    EXPECT_EQ(n.real_memory_mb, 65536u);
    EXPECT_EQ(n.gpus.count, 8u);
    EXPECT_EQ(n.gpus.type, "");
    EXPECT_TRUE(n.gpus.files.empty());
  }
  ASSERT_EQ(c.partitions.size(), 2u);
  const PartitionConfig& gpu = c.partitions[0];
  EXPECT_EQ(gpu.name, "gpu");
  EXPECT_TRUE(gpu.is_default);
  EXPECT_EQ(gpu.nodes.size(), 4u);
  EXPECT_EQ(gpu.max_time_min, 1440);
  EXPECT_EQ(gpu.default_time_min, 60);
  const PartitionConfig& debug = c.partitions[1];
  EXPECT_EQ(debug.name, "debug");
  EXPECT_FALSE(debug.is_default);
  EXPECT_EQ(debug.nodes, (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(debug.max_time_min, 30);
  EXPECT_EQ(debug.default_time_min, 10);
  EXPECT_EQ(debug.priority_job_factor, 10u);
  EXPECT_EQ(c.scheduler.default_mem_per_cpu_mb, 4000u);
  ASSERT_EQ(c.accounts.size(), 1u);
  EXPECT_EQ(c.accounts[0].name, "research");
  EXPECT_EQ(c.accounts[0].users, (std::vector<std::string>{"alice", "bob"}));
}

}  // namespace
}  // namespace drover::config
