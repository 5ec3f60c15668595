#pragma once
// cluster.conf: the one file an admin edits. Loaded strictly: every error names
// file:line:column, what was wrong and what is accepted (see docs/configuration.md).
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drover/result.h"

namespace drover::config {

// Agent port when a node group gives none (controller 7817, agents 7818: Slurm's 6817/6818 + 1000).
inline constexpr std::uint16_t kDefaultAgentPort = 7818;

struct ControllerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 7817;
  // The CLIs' frame transport (src/wire); 0 = port + 2 (port + 1 is the default agent port,
  // as slurmd's 6818 beside slurmctld's 6817).
  std::uint16_t cli_port = 0;
  std::uint16_t cliPort() const {
    return cli_port != 0 ? cli_port : static_cast<std::uint16_t>(port + 2);
  }
  std::string state_dir = "/var/lib/drover";
  // Slurm's AccountingStoreFlags job_script / job_env: keep each batch job's script and
  // environment in accounting for sacct -B / --env-vars. Off by default, as Slurm's.
  bool store_job_script = false;
  bool store_job_env = false;
};

struct GpuConfig {
  std::string type;                 // "" = untyped
  std::uint32_t count = 0;
  std::vector<std::string> files;   // device files, one per GPU, index order
  bool autodetect_nvidia = false;   // `autodetect: nvidia`
};

// One node, expanded from its group.
struct NodeConfig {
  std::string name;
  std::string address;              // where its agent listens
  std::uint16_t port = 0;           // its agent port (groups sharing a host get a range)
  std::uint32_t cpus = 1;
  std::uint32_t sockets = 1;
  std::uint32_t cores_per_socket = 1;
  std::uint32_t threads_per_core = 1;
  std::uint64_t real_memory_mb = 0;
  GpuConfig gpus;
  std::vector<std::string> features;
  std::uint32_t weight = 1;
};

enum class PartitionState { kUp, kDown, kDrain, kInactive };

inline constexpr std::int64_t kUnlimited = -1;

// Slurm's PreemptMode: what happens to a job another one preempts. SUSPEND and GANG, which need
// Slurm's gang scheduler, are not offered.
enum class PreemptMode { kOff, kCancel, kRequeue };
inline constexpr std::uint32_t kMaxGraceTimeS = 365 * 86400;  // a partition's GraceTime bound

struct PartitionConfig {
  std::string name;
  std::vector<std::string> nodes;   // expanded, in config order
  bool is_default = false;
  std::int64_t max_time_min = kUnlimited;
  std::int64_t default_time_min = kUnlimited;   // kUnlimited = none: falls back to max_time
  std::int64_t max_nodes = kUnlimited;
  std::uint32_t priority_tier = 1;
  std::uint32_t priority_job_factor = 1;
  PartitionState state = PartitionState::kUp;
  std::vector<std::string> allow_accounts;      // empty = ALL
  std::vector<std::string> allow_groups;        // empty = ALL
  bool exclusive = false;                       // whole nodes per job (OverSubscribe=EXCLUSIVE)
  // How this partition's jobs are preempted (PreemptMode=); unset: the scheduler's preempt_mode.
  std::optional<PreemptMode> preempt_mode;
  // GraceTime=: seconds a preempted job goes on running after its steps got SIGTERM.
  std::uint32_t grace_time_s = 0;
};

enum class BackfillPolicy { kFcfs, kEasy, kConservative };

// Slurm's PreemptType: none, preempt/partition_prio (partitions' priority tiers decide who may
// preempt whom) or preempt/qos (each QOS's `preempt` list does).
enum class PreemptType { kNone, kPartitionPrio, kQos };

struct PriorityWeights {
  std::uint32_t age = 1000;
  std::uint32_t fairshare = 10000;
  std::uint32_t job_size = 1000;
  std::uint32_t partition = 1000;
  std::uint32_t qos = 0;
  std::uint32_t assoc = 0;                      // PriorityWeightAssoc
  // PriorityWeightTRES: TRES name (cpu, mem, node, gres/gpu) -> weight; negative allowed.
  std::vector<std::pair<std::string, std::int64_t>> tres;
  bool favor_small = false;                     // PriorityFavorSmall
  std::int64_t max_age_s = 7 * 24 * 3600;       // PriorityMaxAge
  std::int64_t decay_half_life_s = 7 * 24 * 3600;
  // PriorityCalcPeriod: how often usage is folded into fair share and every pending job's
  // priority is computed again.
  std::int64_t calc_period_s = 5 * 60;
};

struct SchedulerConfig {
  BackfillPolicy policy = BackfillPolicy::kEasy;
  std::uint32_t coalesce_ms = 5;                // a pass runs this long after the first trigger
  // How many of the jobs left waiting, in priority order, each pass gives an expected start
  // (squeue --start, scontrol's StartTime=): Slurm's SchedulerParameters=bf_max_job_test, whose
  // default this is. Unlike Slurm's backfill, every pending job is still tried for a start.
  std::uint32_t estimate_depth = 500;
  std::uint64_t default_mem_per_cpu_mb = 0;     // 0 = whole node memory, as Slurm
  PriorityWeights priority;
  // Slurm's ResvOverRun: how long a job running in an advance reservation may go on after the
  // reservation's end (0 = it is ended at the end; -1 = UNLIMITED, never ended for that).
  std::int64_t resv_over_run_s = 0;
  // SchedulerParameters=enable_user_top: users may `scontrol top` their own jobs (else only
  // root and operators).
  bool enable_user_top = false;
  // PreemptType: with partition_prio a pending job may preempt running jobs of partitions of a
  // lower priority_tier, with qos running jobs of the QOSes its QOS lists in `preempt`; how
  // they are preempted is their QOS's preempt_mode (qos only), else their partition's.
  PreemptType preempt_type = PreemptType::kNone;
  PreemptMode preempt_mode = PreemptMode::kOff;  // PreemptMode=: partitions' and QOSes' default
  // PreemptExemptTime: a job runs at least this long before it may be preempted.
  std::int64_t preempt_exempt_time_s = 0;
};

struct Timeouts {
  std::uint32_t heartbeat_interval_s = 10;
  std::uint32_t node_down_s = 60;               // SlurmdTimeout
  std::uint32_t kill_wait_s = 30;               // KillWait
  std::uint32_t message_s = 10;                 // MessageTimeout
};

// Job steps (srun).
struct StepsConfig {
  // Export PyTorch's variables (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, LOCAL_WORLD_SIZE, RANK,
  // LOCAL_RANK, GROUP_RANK) to every step's tasks, unless the step opts out.
  bool pytorch_env = true;
  // srun's --mpi when neither it nor SLURM_MPI_TYPE is given: "none" or "pmi2" (Slurm's
  // MpiDefault). Read by srun from its cluster.conf.
  std::string mpi_default = "none";
};

// File broadcast defaults of sbcast and srun --bcast (Slurm's BcastParameters and BcastExclude),
// read by those CLIs from their cluster.conf; their options override each.
struct BcastConfig {
  std::string dest_dir;            // DestDir=: where a relative DEST goes; "" = the working directory
  std::string compression = "none";  // Compression=: lz4, zlib or none, used when -C is not given
  bool send_libs = false;          // send_libs: also send the executable's shared libraries
  // BcastExclude: directories whose libraries are never sent (absolute; empty = none).
  std::vector<std::string> exclude = {"/lib", "/usr/lib", "/lib64", "/usr/lib64"};
};

// Batch jobs.
struct JobsConfig {
  // Slurm's JobRequeue: whether a batch job that names neither --requeue nor --no-requeue may be
  // requeued (after a node failure, or by scontrol requeue). Slurm's default is 1.
  bool requeue = true;
  // How long a requeued job waits before it may start again: it is eligible this many seconds
  // and one more after the requeue, as Slurm's AuthInfo cred_expire (default 120 s) makes it
  // wait (slurm.conf(5)). 0 = eligible at once.
  std::uint32_t requeue_wait_s = 120;
};

struct AccountConfig {
  std::string name;
  std::string parent;                           // "" for top level (root)
  std::uint32_t shares = 1;
  std::vector<std::string> users;
  // The association's Priority (PriorityWeightAssoc's factor); -1 = its parent's.
  std::int64_t priority = -1;
  // What sacctmgr shows as Descr and Org; "" = Slurm's defaults (the account's name; the
  // parent's name, or the account's own for one directly under root).
  std::string description{};
  std::string organization{};
  // The QOSes its jobs (and its sub-accounts' without a list of their own) may ask for; empty:
  // its parent's, and at the top every QOS.
  std::vector<std::string> qos{};
  // The QOS its jobs get without -q; "": its parent's, at the top normal (or, when normal is
  // not allowed, the first QOS allowed).
  std::string default_qos{};
};

// The TRES a QOS's TRES limits (max_tres_per_user, grp_tres, max_tres_per_job,
// max_tres_per_account) may name: what Drover's QOS limits count. In Slurm's TRES order (by
// id); sacctmgr lists the limits by name instead (std::map's order).
inline constexpr std::array<std::string_view, 3> kQosLimitTres = {"cpu", "node", "gres/gpu"};

// A quality of service (Slurm's QOS, which sacctmgr keeps in its database; here cluster.conf's
// `qos` list). `normal` always exists, first (Slurm's default QOS, id 1).
struct QosConfig {
  std::string name;                             // lower case: Slurm's QOS names are
  std::string description;                      // sacctmgr's Descr; "" = the name, as Slurm's
  std::uint32_t priority = 0;                   // the QOS priority factor's numerator
  // preempt/qos: the QOSes whose running jobs this QOS's pending jobs may preempt.
  std::vector<std::string> preempt;
  // How this QOS's jobs are preempted under preempt/qos; unset: their partition's mode.
  std::optional<PreemptMode> preempt_mode;
  std::uint32_t grace_time_s = 0;               // GraceTime under preempt/qos
  std::uint32_t id = 0;                         // Slurm's QOS id: normal 1, the others in order
  // Per-user limits (Slurm's MaxJobsPU, MaxSubmitJobsPU, MaxTRESPU, MaxWall); unset: none.
  // A job over MaxJobsPU, MaxTRESPU or MaxWall waits (QOSMax... reasons); one that would pass
  // MaxSubmitJobsPU is refused at submission, as is one over MaxWall or MaxTRESPU by itself with
  // deny_on_limit (Flags=DenyOnLimit).
  std::optional<std::uint32_t> max_jobs_per_user;
  std::optional<std::uint32_t> max_submit_jobs_per_user;
  std::map<std::string, std::uint64_t> max_tres_per_user;  // names of kQosLimitTres
  std::optional<std::int64_t> max_wall_min;
  // Limits on the whole QOS and on each job (Slurm's GrpJobs, GrpTRES, MaxTRES): a job over
  // them waits (QOSGrp... and QOSMax...PerJob reasons).
  std::optional<std::uint32_t> grp_jobs;
  std::optional<std::uint32_t> grp_submit_jobs;            // GrpSubmitJobs: checked at submission
  std::map<std::string, std::uint64_t> grp_tres;           // names of kQosLimitTres
  std::map<std::string, std::uint64_t> max_tres_per_job;   // names of kQosLimitTres
  // Per-account limits (Slurm's MaxJobsPA, MaxSubmitJobsPA, MaxTRESPA): all users' jobs of
  // the QOS charged to one account together.
  std::optional<std::uint32_t> max_jobs_per_account;
  std::optional<std::uint32_t> max_submit_jobs_per_account;
  std::map<std::string, std::uint64_t> max_tres_per_account;  // names of kQosLimitTres
  bool deny_on_limit = false;
  bool hasGroupLimits() const { return grp_jobs || !grp_tres.empty(); }
  bool hasAccountLimits() const { return max_jobs_per_account || !max_tres_per_account.empty(); }
  bool hasRunLimits() const {
    return max_jobs_per_user || !max_tres_per_user.empty() || max_wall_min || hasGroupLimits() ||
           !max_tres_per_job.empty() || hasAccountLimits();
  }
};

// The table without a `qos` list: normal alone.
inline std::vector<QosConfig> defaultQosTable() {
  QosConfig normal;
  normal.name = "normal";
  normal.id = 1;
  return {normal};
}

struct ClusterConfig {
  std::string source_path;
  std::string cluster_name;
  ControllerConfig controller;
  std::string munge_socket;                     // "" = libmunge default
  std::vector<std::string> operators;           // user names allowed to administer (besides root)
  std::vector<NodeConfig> nodes;                // all nodes, config order
  std::vector<PartitionConfig> partitions;
  SchedulerConfig scheduler;
  Timeouts timeouts;
  StepsConfig steps;
  JobsConfig jobs;
  BcastConfig bcast;
  std::vector<AccountConfig> accounts;
  std::vector<QosConfig> qos = defaultQosTable();  // normal first, always

  const NodeConfig* findNode(std::string_view name) const;
  const PartitionConfig* findPartition(std::string_view name) const;
  // The one marked default (loading marks the first when the file marks none); null once
  // `scontrol update PartitionName=X Default=NO` took it away.
  const PartitionConfig* defaultPartition() const;
  // In any case (`-q HIGH` is the QOS high), as Slurm's.
  const QosConfig* findQos(std::string_view name) const;
  // Root, or a user whose name `operators` lists: who may administer.
  bool isOperator(std::uint32_t uid, std::string_view user) const;
};

Result<ClusterConfig> parseClusterConfig(std::string_view yaml_text, std::string_view file_name);
Result<ClusterConfig> loadClusterConfig(const std::string& path);

struct ParseOptions {
  std::size_t max_nodes = 100'000;  // bounds hostlist expansion of hostile input (fuzzing)
  std::string base_dir;             // relative paths resolve here; "" = directory of file_name
};
Result<ClusterConfig> parseClusterConfig(std::string_view yaml_text, std::string_view file_name,
                                         const ParseOptions& options);

// BcastExclude as Slurm writes it: "/lib,/usr/lib,/lib64,/usr/lib64", or "none" for no directory.
std::string bcastExcludeText(const BcastConfig& bcast);

// Names as scontrol prints them: "UP", "DRAIN"; "fcfs", "easy", "conservative".
std::string_view partitionStateName(PartitionState state);
// Slurm's upper-case name: OFF, CANCEL, REQUEUE.
std::string_view preemptModeName(PreemptMode mode);
// The mode of that name in any case ("off", "REQUEUE"); nullopt for another word.
std::optional<PreemptMode> preemptModeNamed(std::string_view name);
// A Slurm PreemptMode value that asks for its gang scheduler, which Drover has not: SUSPEND or
// GANG among its comma-separated items (Slurm's "REQUEUE,GANG"), in any case.
bool needsGangScheduler(std::string_view modes);
// The mode a job of that partition and QOS is preempted by: under preempt/qos its QOS's own,
// then under either type its partition's, else the scheduler's; OFF when the type is none.
PreemptMode effectivePreemptMode(const SchedulerConfig& scheduler, const PartitionConfig& p,
                                 const QosConfig* qos = nullptr);
std::string_view preemptTypeName(PreemptType type);  // preempt/none, preempt/partition_prio, ...
std::string_view backfillPolicyName(BackfillPolicy policy);

// Where clients and daemons find the file: $DROVER_CONF, else the installed default.
std::string defaultConfigPath();

}  // namespace drover::config
