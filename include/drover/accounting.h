#pragma once
// Accounting: what `sacct` reports about every job and step. AccountingStore is the seam between
// the controller/CLI and the database: SQLite today (src/acct), PostgreSQL later, so nothing here
// mentions SQL. Times are Unix seconds (0 = unknown/not yet), memory in KiB unless named _mb.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::acct {

// Slurm's job/step states (sacct names them; short codes as squeue).
enum class JobState : std::uint8_t {
  kPending,
  kRunning,
  kSuspended,
  kCompleting,
  kCompleted,
  kCancelled,
  kFailed,
  kTimeout,
  kNodeFail,
  kPreempted,
  kOutOfMemory,
  kRequeued,
  kBootFail,
  kDeadline,
};
std::string_view jobStateName(JobState state);       // "COMPLETED"
std::string_view jobStateShortName(JobState state);  // "CD"
// Accepts full names and short codes, any case ("completed", "CD", "oom").
std::optional<JobState> parseJobState(std::string_view text);
// True once the job can no longer change (sacct's "end" states).
bool isFinalState(JobState state);

// Step ids: numbered steps are >= 0; Slurm's named steps sort before them (batch, extern, 0, 1).
inline constexpr std::int64_t kInteractiveStep = -6;
inline constexpr std::int64_t kBatchStep = -5;
inline constexpr std::int64_t kExternStep = -4;
// "batch", "extern", "interactive", "3". Inline: CLIs that link no accounting code name steps too.
inline std::string stepIdName(std::int64_t step_id) {
  switch (step_id) {
    case kBatchStep: return "batch";
    case kExternStep: return "extern";
    case kInteractiveStep: return "interactive";
    default: return std::to_string(step_id);
  }
}
Result<std::int64_t> parseStepId(std::string_view text);

// Time limits in minutes (Slurm's unit); unlimited and "not set" are distinct.
inline constexpr std::int64_t kTimeLimitUnlimited = -1;
inline constexpr std::int64_t kTimeLimitUnset = -2;

// ExitCode "code:signal": the exit status of the script/task, or the signal that ended it.
struct ExitStatus {
  std::int32_t code = 0;
  std::int32_t signal = 0;
  bool operator==(const ExitStatus&) const = default;
};

// Resource usage gathered by the agent for a step. Unset optionals print as blank in sacct
// (nothing was sampled), which differs from a sampled 0.
struct Usage {
  std::int64_t user_cpu_usec = 0;
  std::int64_t system_cpu_usec = 0;
  std::optional<std::int64_t> max_rss_kb;
  std::string max_rss_node;
  std::optional<std::int64_t> max_rss_task;
  std::optional<std::int64_t> ave_rss_kb;
  std::optional<std::int64_t> max_vmsize_kb;
  std::string max_vmsize_node;
  std::optional<std::int64_t> max_vmsize_task;
  std::optional<std::int64_t> ave_vmsize_kb;
  std::optional<std::int64_t> max_pages;
  std::string max_pages_node;
  std::optional<std::int64_t> max_pages_task;
  std::optional<std::int64_t> ave_pages;
  std::optional<std::int64_t> min_cpu_sec;
  std::string min_cpu_node;
  std::optional<std::int64_t> min_cpu_task;
  std::optional<std::int64_t> ave_cpu_sec;
  std::optional<std::int64_t> ave_cpu_freq_khz;
  std::optional<std::int64_t> consumed_energy;
  std::optional<double> max_disk_read_mb;
  std::string max_disk_read_node;
  std::optional<std::int64_t> max_disk_read_task;
  std::optional<double> ave_disk_read_mb;
  std::optional<double> max_disk_write_mb;
  std::string max_disk_write_node;
  std::optional<std::int64_t> max_disk_write_task;
  std::optional<double> ave_disk_write_mb;
  // TRES usage strings as Slurm prints them ("cpu=00:00:00,energy=0,fs/disk=0,mem=732K").
  std::string tres_usage_in_ave, tres_usage_in_max, tres_usage_in_max_node,
      tres_usage_in_max_task, tres_usage_in_min, tres_usage_in_min_node, tres_usage_in_min_task,
      tres_usage_in_tot, tres_usage_out_ave, tres_usage_out_max, tres_usage_out_max_node,
      tres_usage_out_max_task, tres_usage_out_tot;
  bool operator==(const Usage&) const = default;
};

// One job (or one array task, or an array's not-yet-split remainder).
struct JobRecord {
  std::uint64_t job_id = 0;        // JobIDRaw
  std::uint64_t array_job_id = 0;  // 0: not part of an array
  std::optional<std::uint32_t> array_task_id;  // unset on the array's remainder record
  std::string array_task_str;      // remainder record: "0-9%2" (printed as 29_[0-9%2])
  std::uint32_t array_max_running = 0;
  std::string name;
  std::uint32_t uid = 0;
  std::string user;
  std::uint32_t gid = 0;
  std::string group;
  std::string account, partition, qos, cluster, reservation, wckey;
  std::int64_t submit = 0, eligible = 0, start = 0, end = 0;
  std::int64_t suspended_sec = 0;
  std::int64_t time_limit_min = kTimeLimitUnset;
  JobState state = JobState::kPending;
  std::optional<std::uint32_t> cancelled_by;  // "CANCELLED by <uid>"
  std::string reason;                         // pending/end reason; "" = None
  ExitStatus exit, derived_exit;
  std::uint32_t nnodes = 0;
  std::string node_list;  // hostlist expression; "" = "None assigned"
  std::uint32_t ncpus = 0, req_cpus = 0, req_nodes = 0;
  std::uint64_t req_mem_mb = 0;
  bool req_mem_per_cpu = false;
  std::string req_tres, alloc_tres;  // "billing=4,cpu=4,gres/gpu=4,mem=16000M,node=2"
  std::string work_dir, submit_line, comment, admin_comment, system_comment, constraints;
  std::vector<std::string> flags;  // "CLEAR_SCHEDULING", ...
  std::uint32_t restart_count = 0;
  std::uint32_t priority = 0;
  // The id of the job's association (account and user) as sshare and sacctmgr number them now;
  // set by the controller when it answers a query (not stored), 0 for one no longer configured.
  std::uint32_t assoc_id = 0;
  // The id of the job's QOS in the configured table (sacct's QOSRAW; normal is 1); set by sacct
  // from cluster.conf (not stored), 0 for a QOS no longer configured.
  std::uint32_t qos_id = 0;
  bool operator==(const JobRecord&) const = default;
};

struct StepRecord {
  std::uint64_t job_id = 0;
  std::int64_t step_id = 0;  // >= 0, or kBatchStep / kExternStep / kInteractiveStep
  // The job's restart count when the step ran: the run (sacct -D row) it is listed under.
  std::uint32_t run = 0;
  std::string name;
  JobState state = JobState::kRunning;
  ExitStatus exit;
  std::int64_t start = 0, end = 0;
  std::int64_t suspended_sec = 0;
  std::uint32_t nnodes = 0, ntasks = 0, ncpus = 0;
  std::string node_list;
  std::string req_tres, alloc_tres;
  std::string layout;  // task distribution: "Block", "Cyclic", "Unknown"
  std::optional<std::uint32_t> req_cpu_freq_min, req_cpu_freq_max, req_cpu_freq_gov;
  std::string submit_line;
  Usage usage;
  bool operator==(const StepRecord&) const = default;
};

struct JobWithSteps {
  JobRecord job;
  std::vector<StepRecord> steps;  // ordered by step id (batch, extern, 0, 1, ...)
  // False when the query named only some of this job's steps ("sacct -j 16.1"): sacct then
  // prints those step rows without the job's own row.
  bool show_job = true;
  // sacct -B / --env-vars: the batch script and the environment ("NAME=value" lines) the job
  // was submitted with, when asked for and kept (AccountingStoreFlags); unset otherwise.
  std::optional<std::string> batch_script = std::nullopt, environment = std::nullopt;
};

// A `sacct -j` item: "123", "123_4", "123.batch", "123_4.0".
struct JobSelector {
  std::uint64_t job_id = 0;  // the raw id, or the array's id when array_task is set
  std::optional<std::uint32_t> array_task;
  std::optional<std::int64_t> step_id;
  bool operator==(const JobSelector&) const = default;
};
Result<JobSelector> parseJobSelector(std::string_view text);

// What `sacct` asks for. Empty lists mean "no restriction". The caller (sacct) turns its options
// into this, including its defaults: Slurm's -S defaults to midnight today unless -j or -s is
// given, and a non-root user sees only their own jobs unless -a/-u.
struct AcctFilter {
  std::vector<JobSelector> jobs;
  std::vector<std::uint32_t> uids;
  std::vector<std::string> users;
  std::vector<std::uint32_t> gids;  // the job's group id (sreport GID=)
  std::vector<std::string> accounts, partitions, names;
  std::vector<JobState> states;
  std::vector<std::string> nodes;  // host names; a job matches if it ran on any of them
  // The window [window_start, window_end]. Without states, a job matches when it was eligible
  // before the end and had not ended before the start (still running, or pending but eligible,
  // counts). With states, a job matches when it was in one of them during the window:
  // PENDING: eligible before the end and not started before the start; RUNNING/SUSPENDED/
  // COMPLETING: started before the end and not ended before the start; any end state: the job is
  // in it now and ended inside the window.
  std::optional<std::int64_t> window_start, window_end;
  bool include_steps = true;  // false = sacct -X
  // sacct -D: also the earlier runs of requeued jobs (AcctBatch::runs), each its own row before
  // the job's current record, as Slurm keeps one record per run (REQUEUED, then the next run).
  bool duplicates = false;
};

// Node and cluster events, as slurmdbd keeps them (sacctmgr show event; sreport's Down). A
// node event spans the time a node was down or drained; a cluster event the time the cluster
// had one set of TRES. The numbers are sacctmgr's EventRaw.
enum class EventKind : std::uint8_t { kCluster = 1, kNode = 2 };

struct EventRecord {
  EventKind kind = EventKind::kNode;
  std::string cluster;
  std::string node_name;      // "" for a cluster event
  std::string cluster_nodes;  // cluster event: hostlist of the cluster's nodes
  std::int64_t time_start = 0;
  std::int64_t time_end = 0;  // 0: still open
  std::string state;          // node event: "DOWN", "DRAIN"
  std::uint32_t state_raw = 0;
  std::string reason;
  std::uint32_t reason_uid = 0;
  std::string reason_user;
  std::string tres;           // "cpu=4,mem=16000M,gres/gpu=2"
  bool operator==(const EventRecord&) const = default;
};

// One change to the events, applied in order with the batch. kOpen: the record's node (or the
// cluster) has this event from time_start on; an open event of the same node (cluster) with
// another state, reason or TRES is closed at that time, and an identical open one is kept as it
// is (so a controller that restarts and sees the same state again never duplicates it).
// kClose: the open event of the record's node (cluster), if any, ends at time_end.
struct EventChange {
  enum class Op : std::uint8_t { kOpen, kClose } op = Op::kOpen;
  EventRecord record;
  bool operator==(const EventChange&) const = default;
};

// What `sacctmgr show event` asks. Empty lists mean no restriction.
struct EventFilter {
  std::optional<EventKind> kind;   // unset: both
  std::vector<std::string> nodes, states, reasons, users;
  // Events that overlap [window_start, window_end] (an open one lasts until now).
  std::optional<std::int64_t> window_start, window_end;
  bool open_only = false;          // CondFlags=Open
  std::optional<std::uint32_t> min_cpus, max_cpus;
};

// What a job was submitted with, kept when cluster.conf asks (Slurm's AccountingStoreFlags
// job_script / job_env); one per array (its first job id).
struct JobScript {
  std::uint64_t job_id = 0;
  std::optional<std::string> script, environment;
  bool operator==(const JobScript&) const = default;
};

// A group of changes written in one transaction (group commit): jobs first, then steps, then
// events, then kept scripts.
struct AcctBatch {
  std::vector<JobRecord> jobs;
  std::vector<StepRecord> steps;
  // Runs that ended in a requeue, keyed by (job id, restart count): the job's record moves on to
  // its next run, these stay (sacct -D).
  std::vector<JobRecord> runs;
  std::vector<EventChange> events;
  std::vector<JobScript> scripts;
  bool empty() const {
    return jobs.empty() && steps.empty() && runs.empty() && events.empty() && scripts.empty();
  }
};

class AccountingStore {
 public:
  virtual ~AccountingStore() = default;
  // Idempotent upserts keyed by job id and (job id, step id); a later write replaces every field.
  // Returns the number of records written.
  virtual Result<std::size_t> apply(const AcctBatch& batch) = 0;
  Result<std::size_t> upsertJob(const JobRecord& job) {
    AcctBatch batch;
    batch.jobs.push_back(job);
    return apply(batch);
  }
  Result<std::size_t> upsertStep(const StepRecord& step) {
    AcctBatch batch;
    batch.steps.push_back(step);
    return apply(batch);
  }
  // Jobs ordered by submit time (then array remainder last, then job id); steps per job.
  virtual Result<std::vector<JobWithSteps>> query(const AcctFilter& filter) = 0;
  // What job `job_id` (an array's first id for its tasks) was submitted with, if kept.
  virtual Result<std::optional<JobScript>> jobScript(std::uint64_t job_id) = 0;
};

}  // namespace drover::acct
