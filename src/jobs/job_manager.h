#pragma once
// The controller's job queue: submission with Slurm's checks and defaults, array expansion,
// dependencies, holds, the scheduling glue (snapshot in, plan applied), the lifecycle of a
// job from PENDING to its final state, cancel/signal/control/update with owner and admin rules,
// queries as squeue/scontrol ask them, and the accounting records of every change.
//
// No sockets, threads or clock reads: the daemon calls it from its one state thread, with an
// injected Clock. Every change is staged in the JobStore; the daemon calls commit() before it
// replies (durable before acknowledged), then drains takeAccounting() and takeSignals().
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "drover/accounting.h"
#include "drover/config.h"
#include "drover/result.h"
#include "drover/v1/jobs.pb.h"
#include "jobs/fair_share.h"
#include "jobs/job.h"
#include "jobs/job_store.h"
#include "jobs/lifecycle_counts.h"
#include "jobs/pending_description.h"
#include "jobs/reservations.h"
#include "jobs/time_index.h"
#include "launch/job_env.h"
#include "drover/v1/priority.pb.h"
#include "sched/incremental.h"
#include "sched/scheduler.h"

namespace drover::jobs {

struct QosLimitJob;
class QosLimits;

// Slurm's MinJobAge: finished jobs stay visible to squeue/scontrol this long.
inline constexpr std::int64_t kMinJobAgeS = 300;

// Who is asking, as authenticated by the daemon.
struct Caller {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string user;
  std::string group;
};

// A submission refused, in Slurm's words. The CLI prints each note as "sbatch: error: <note>",
// then "sbatch: error: Batch job submission failed: <message>" (or, when
// submission_failed_prefix is false, "sbatch: error: <message>" alone).
struct SubmitFailure {
  std::string message;              // "Invalid partition name specified"
  std::vector<std::string> notes;   // "invalid partition specified: nosuch"
  bool submission_failed_prefix = true;
  std::string detail;               // what exactly was wrong (for logs and -v)
};

struct Submitted {
  JobId job_id = 0;                 // the array job id for arrays
  std::int64_t expected_start = 0;  // --test-only
  std::string test_only_nodes;
  std::uint32_t test_only_cpus = 0;  // --test-only: "using N processors"
  std::string test_only_partition;   // --test-only: "in partition P"
  std::vector<std::string> warnings;
};

struct SubmitResult {
  std::optional<Submitted> ok;
  SubmitFailure failure;
  explicit operator bool() const { return ok.has_value(); }
};

// The daemon's view of a node for one pass.
struct NodeView {
  std::string name;
  std::uint32_t cpus = 0;
  std::uint64_t memory_mb = 0;
  std::vector<std::string> gpu_types;  // one entry per GPU index ("" = untyped)
  std::vector<std::string> features;
  std::uint32_t weight = 1;
  std::vector<std::string> partitions;
  bool usable = true;  // up, responding and not drained
};

// The scheduler's nodes for a pass, indexed in the order given.
std::vector<sched::Node> schedNodes(const std::vector<NodeView>& views);

// The job's environment context as seen from its allocation node `node_index` (the batch host
// is 0): what the batch step and every numbered step build their variables from.
launch::JobEnvContext jobEnvContext(const Job& job, const config::ClusterConfig& config,
                                    std::size_t node_index);

// Start the batch step of a job: send `request` to the agent of `node` (the batch host).
class UsageStore;
struct SchedulingState;
// Frees the scheduling state where its type is complete (scheduling_state.h).
struct SchedulingStateDeleter {
  void operator()(SchedulingState* state) const;
};

struct Launch {
  JobId job_id = 0;
  std::string node;
  v1::LaunchStepRequest request;
};

// Signal or kill a job's step: send `request` to the agent of every node in `nodes`.
struct SignalAction {
  JobId job_id = 0;
  std::vector<std::string> nodes;
  v1::SignalStepRequest request;
};

class JobManager {
 public:
  JobManager(const Clock& clock, const config::ClusterConfig& config, JobStore& store);

  // After a restart: reload every unfinished job and the recently finished ones.
  Status recover();

  // cluster.conf was reloaded (scontrol reconfigure, SIGHUP): submissions are checked against
  // the new nodes (features, GPUs, sizes) and partitions from now on.
  void configChanged();

  // Validates, applies defaults, creates the job (or every task of an array) and stages it.
  // The daemon commits, then replies. --test-only creates nothing.
  SubmitResult submit(const Caller& caller, const v1::JobSpec& spec);

  // One transaction for everything staged since the last commit.
  // Fair-share usage changed since the last commit is written right after the job table.
  Status commit();

  // Scheduling glue. buildSnapshot also computes priorities and array task limits; the daemon
  // runs sched::schedule on it and hands the Plan back to applyPlan, which marks the started
  // jobs RUNNING and returns their launches.
  sched::Snapshot buildSnapshot(const std::vector<NodeView>& nodes);
  sched::SchedulerParams schedulerParams() const;
  std::vector<Launch> applyPlan(const sched::Plan& plan);

  // The controller's path (incremental_pass.cpp): a maintained sched::Scheduler fed with what
  // changed since the last pass (jobs staged, submitted, dependencies, array throttles, nodes,
  // partitions), so a submission costs an incremental pass, not a snapshot rebuild. Priorities
  // are computed when a job enters the queue or changes, and for all pending jobs every
  // priority calc period (which rebuilds the scheduler, as recovery does).
  std::vector<Launch> schedulePass(const std::vector<NodeView>& nodes);
  // schedulePass in two halves, for tests that compare the plan with a full schedule():
  // bring the scheduler up to date and run its pass; then apply that plan.
  const sched::Plan& planPass(const std::vector<NodeView>& nodes);
  std::vector<Launch> applyPass(const sched::Plan& plan);
  // The next pass rebuilds the scheduler from the job table (reconfigure, tests).
  void resetScheduler();
  // Null before the first schedulePass.
  const sched::Scheduler* maintainedScheduler() const;
  // The snapshot a full rebuild would hand the scheduler now, with the priorities jobs hold
  // (no recomputation): what the maintained scheduler must be equivalent to.
  sched::Snapshot tableSnapshot(const std::vector<NodeView>& nodes);
  // The earliest --begin time a pending job still waits for (0 = none): when the next pass
  // must run for it to start on time. O(1) (an ordered set the passes maintain).
  std::int64_t nextBeginTime() const;
  // The earliest time an `after:ID+minutes` dependency of a pending job will be met (0 =
  // none), as of the last evaluation: when a pass must run for that job to start on time (or,
  // for one that never can, to show the item met).
  std::int64_t nextDependencyTime() const {
    return dependency_wakes_.empty() ? 0 : dependency_wakes_.begin()->first;
  }
  // What applying plans cost: pending entries found equal to their job's last written entry
  // (SchedulingState::applied; the job is not looked up), entries looked at in the job table,
  // and entries whose reason, expected start or planned nodes were written (tests: an
  // unchanged entry is not rewritten).
  struct ApplyStats {
    std::uint64_t unchanged = 0;
    std::uint64_t examined = 0;
    std::uint64_t written = 0;
  };
  const ApplyStats& applyStats() const { return apply_stats_; }
  // Pending jobs' dependencies evaluated so far (tests: a pass evaluates only those that what
  // changed concerns).
  std::uint64_t dependencyEvaluations() const { return dependency_evaluations_; }
  // sdiag: jobs taken in, started and ended since this manager was made (lifecycle_counts.h).
  const LifecycleCounts& lifecycleCounts() const { return lifecycle_; }
  // sdiag's "Mean depth cycle" and "Last queue length" both: the size of the last
  // schedulePass's plan, the pending jobs it decided for (started ones included). The plan
  // covers every pending job, an incremental pass keeping the last plan's decisions for those
  // its change did not touch (sched::PlanStats::jobsConsidered accumulates over kept plans, so
  // it is no per-pass figure).
  std::uint32_t lastPlanSize() const { return last_plan_size_; }
  // sdiag's backfill block from the last schedulePass. Drover's backfill is the part of each
  // pass past a blocked job (a backfilling policy goes on starting what fits without delaying
  // it), so it `ran` when some job was blocked under EASY or conservative; `depth` counts the
  // jobs it looked at past a blocked one (those it started, and those left waiting behind one:
  // reason Priority), `tried` those of them not skipped for the shape of a failed job.
  struct BackfillFacts {
    bool ran = false;
    std::uint32_t started = 0, depth = 0, tried = 0;
  };
  const BackfillFacts& lastBackfill() const { return last_backfill_; }
  // sdiag's "Jobs pending" and "Jobs running" now (one walk of the table: an admin's query).
  struct StateCounts {
    std::uint32_t pending = 0;
    std::uint32_t running = 0;
  };
  StateCounts stateCounts() const;

  // Fair share (fair_share.h): the durable usage store, opened by the daemon; usage it holds is
  // loaded into the ledger.
  Status attachUsageStore(std::unique_ptr<UsageStore> store);
  // sprio and sshare.
  v1::GetPrioritiesReply priorities(const v1::GetPrioritiesRequest& request);
  v1::GetSharesReply shares(const Caller& caller, const v1::GetSharesRequest& request);

  // A step supervisor's report. The batch step's FINISHED or FAILED_TO_START ends the job.
  // A report of another run than the job's current one (ofOtherRun) changes nothing.
  void stepEvent(const v1::StepEventRequest& event);
  // Whether `step` names a run of its job other than the current one (common/step_run.h): a
  // late report or launch outcome of the run before a requeue, which must not end this one.
  // False for an unknown job and for a step that names no run.
  bool ofOtherRun(const v1::StepId& step) const;
  // The batch step could not be sent to its node (agent unreachable): the job fails.
  void launchFailed(JobId id, const std::string& why);
  // The node is gone: its running jobs end NODE_FAIL, or go back to PENDING when requeueable.
  void nodeFailed(const std::string& node);
  // The job's node lost it (its agent re-registered without the batch step): as Slurm, back to
  // PENDING when it may be requeued (batch and --requeue, the default), else NODE_FAIL. The rest
  // of its allocation is told to stop, except `lost_on`, the node that reported it gone: there
  // is nothing to stop there (and the kill, naming the lost run, would be refused by a next run
  // the requeue started there meanwhile). `reason` is kept as the job's reason detail.
  void jobLost(JobId id, const std::string& reason, const std::string& lost_on = {});

  std::vector<v1::CancelResult> cancel(const Caller& caller, const v1::CancelJobsRequest& request);
  // hold, release, uhold, requeue, requeuehold, suspend, resume, top.
  std::vector<v1::CancelResult> control(const Caller& caller, const v1::JobControlRequest& request);
  // scontrol update job: Error::message is Slurm's text ("Access/permission denied", ...) when
  // the request is refused as a whole (a job that is no array, an id unknown or not the
  // caller's, a key no job takes); an array's tasks answer one by one in the reply.
  Result<v1::UpdateJobReply> update(const Caller& caller, const v1::UpdateJobRequest& request);

  std::vector<v1::JobInfo> query(const v1::GetJobsRequest& request) const;
  // The same rows appended to `out` (squeue's path: a reply on an arena, no copy per row).
  void query(const v1::GetJobsRequest& request,
             google::protobuf::RepeatedPtrField<v1::JobInfo>* out) const;
  const Job* find(JobId id) const;
  // scontrol write batch_script (job_script.cpp): errors are Slurm's texts ("Invalid job id
  // specified", "Invalid user id", "Job script not specified").
  Result<v1::GetJobScriptReply> jobScript(const Caller& caller, const std::string& job_id) const;

  // Effects for the daemon to carry out.
  acct::AcctBatch takeAccounting();
  std::vector<SignalAction> takeSignals();
  // True once since anything changed that a scheduling pass could act on.
  bool takeScheduleRequest();
  // True once after a pass whose starts satisfied another job's dependency (`after:`): the
  // pass's own changes are no reason for another pass, but those jobs need one.
  bool takeReleasedByStarts() { return std::exchange(released_by_starts_, false); }
  // Drops jobs finished more than MinJobAge ago from memory and the store.
  void purgeFinished();

  // Job steps (srun) and interactive allocations (steps.cpp).
  // A step inside a running job: laid out on the job's resources, staged with the job, and its
  // LaunchStep requests (one per node) returned for the daemon to send after the commit.
  // Errors are Slurm's texts ("Invalid job id specified", "Access/permission denied",
  // "Job/step already completing or completed", layout errors of step_layout.h).
  struct CreatedStep {
    v1::CreateStepReply reply;
    std::vector<Launch> launches;
  };
  // `addresses`: node name -> address its agent registered with (MASTER_ADDR).
  Result<CreatedStep> createStep(const Caller& caller, const v1::StepSpec& spec,
                                 const std::map<std::string, std::string>& addresses);
  // srun --bcast: the job's next step id, kept for the step srun creates next
  // (StepSpec.reserved_step_id); the job is staged (its next_step_id moved). -1 for a job
  // this manager does not hold.
  std::int64_t reserveStepId(JobId id);
  // Whether node `node`'s launch of `step` (a numbered step) is still wanted: its job runs
  // that run and is not being cancelled or requeued, and the step is neither cancelled nor over
  // on that node. A launch whose agent did not answer is sent again only then.
  bool stepLaunchWanted(const v1::StepId& step, const std::string& node) const;
  // LaunchStep could not reach `node`: the step counts that node as failed to start.
  void stepLaunchFailed(JobId id, std::int64_t step_id, const std::string& node,
                        const std::string& why);
  // salloc/srun released their allocation: COMPLETED, or FAILED with the exit code; a pending
  // one is CANCELLED. Running steps are killed.
  Status completeAllocation(const Caller& caller, const v1::CompleteAllocationRequest& request);
  // Interactive allocations past their time limit end TIMEOUT (no supervisor enforces it);
  // pending jobs that can no longer end by their --deadline end DEADLINE (time_bounds.cpp).
  // Returns the earliest time either is due next (0 = none).
  std::int64_t enforceTimeBounds();
  // scontrol top: ahead of the owner's other pending jobs of its partition, account and QOS.
  void moveToTop(Job& job);
  // Partitions from the configuration, passed on to the scheduler when they changed.
  void adoptPartitions(std::vector<sched::Partition> parts);
  bool isAdmin(const Caller& caller) const;
  // Advance reservations: the controller's reservation RPCs change them; submissions and
  // scheduling passes read them.
  ReservationBook& reservations() { return reservations_; }
  // Running jobs whose advance reservation has ended (plus ResvOverRun, `over_run_s`; -1 =
  // UNLIMITED) are ended TIMEOUT, as Slurm: batch jobs are killed and end when their step
  // reports, interactive allocations end at once (reservation_jobs.cpp). Returns the next time
  // a running job is due for that (0 = none). Reads every job: called at reservation ends only.
  std::int64_t endReservationJobs(std::int64_t over_run_s);
  std::size_t size() const { return jobs_.size(); }

 private:
  friend struct Internals;

  Job* mutableJob(JobId id);
  void stage(Job& job);
  // The job's accounting record into the batch; an array task that has not started only marks
  // its array's pending remainder (one record, `A_[2-9%2]`), written once per batch
  // (recordRemainder, from takeAccounting).
  void record(const Job& job);
  acct::JobRecord jobRecord(const Job& job) const;
  void putRecord(acct::JobRecord r);
  void recordRemainder(JobId array_id);
  // A task leaving its array's pending remainder to start: it takes its job id (the next id,
  // or the array's own for the last one) and is re-keyed everywhere the table indexes it; the
  // maintained scheduler hears of the rename at the next sync (renamed_).
  void splitStarted(Job& job);
  void recordBatchStep(const Job& job, const v1::StepEventRequest* event);
  // Adds a step's record to the accounting batch, replacing one of the same step and run.
  void stageStepRecord(acct::StepRecord s);
  void changed() { schedule_requested_ = true; }
  // Every staged change passes here, so the maintained scheduler hears of it (stage()).
  void touch(JobId id) {
    touched_.push_back(id);
    time_bounds_touched_.push_back(id);
  }
  SchedulingState& schedState();
  // `kept_out`: pending jobs kept out of the snapshot (an array's %N, a QOS limit, a hold,
  // dependency or begin time), given a priority too (shown by scontrol and squeue, as the
  // reference showed a throttled task's).
  void assignPriorities(sched::Snapshot& snap, std::int64_t now,
                        const std::vector<JobId>& kept_out = {});
  // Fair-share usage as of the last priority calculation, calculated again at `now` when the
  // calc period has passed (or when `recalculate`).
  const std::map<Association, double>& usageForFactors(std::int64_t now, bool recalculate = false);
  void rebuildScheduler(const std::vector<NodeView>& nodes, std::int64_t now);
  // The highest job id in the table (task keys aside; 0 = none).
  JobId highestId() const;
  void syncScheduler(std::int64_t now);
  // QOS limits (qos_admission.cpp, jobs/qos_limits.h). The jobs of limited QOSes that count
  // (running, or pending only for the scheduler), of the (QOS, user) pairs of `groups` (null:
  // all; a user "": every user of that QOS), in one walk of the table.
  using QosGroups = std::set<std::pair<std::string, std::string>>;
  std::vector<QosLimitJob> qosLimitJobs(const QosLimits& limits, const QosGroups* groups) const;
  // The refusal note of a submission of `tasks` jobs like `base` over its QOS's submit limit
  // (or, with deny_on_limit, over MaxWall or MaxTRESPU by itself); nullopt when it may go in.
  std::optional<std::string_view> qosSubmitRefusal(const v1::JobInfo& base,
                                                   const sched::JobRequest& request,
                                                   std::uint32_t tasks) const;
  // A pending job's entry in the scheduling state's begin-time set (incremental_pass.cpp).
  void noteBeginWait(JobId id, const Job* job, std::int64_t now);
  // One entry of a plan onto its pending job, written only where it differs (scheduling.cpp).
  // `claimed_ahead`: the job's -w nodes that a job ahead of it in the plan requires and waits
  // for too (claimNodesAhead); said as ReqNodeNotAvail, as the reference did.
  void writePending(Job& job, const sched::PendingInfo& p, std::int64_t now,
                    const std::vector<std::string>& claimed_ahead = {});
  // A pending job kept out of the scheduler for `why` (waitingReason): its reason, start time
  // and planned nodes as a plan entry of that reason would write them.
  void writeWaitingReason(Job& job, sched::Reason why, std::int64_t now);
  // The nodes that jobs of `plan.pending` before `index` require while they wait for resources
  // (-w): a -w job behind them for Priority that names one of them was told
  // `ReqNodeNotAvail, UnavailableNodes:node02` by the reference. `claimed` grows as `scanned`
  // moves on, so one apply of a plan looks each entry up once at most, and only once such a
  // job comes.
  void claimNodesAhead(const sched::Plan& plan, std::size_t index, std::size_t& scanned,
                       std::unordered_set<std::string>& claimed) const;
  // The scheduler's latest view of the nodes, and what pending jobs' descriptions read of it.
  void setLastNodes(const std::vector<sched::Node>& nodes);
  // applyPlan with the pending entries limited to the jobs in `only` (null: all of them).
  // `skip_unchanged`: the plan is the maintained scheduler's, so an entry equal to its job's
  // last written one (SchedulingState::applied) is left; applyPlan's may come from anywhere and
  // is written whole.
  std::vector<Launch> applyPlanEntries(const sched::Plan& plan, const std::vector<JobId>* only,
                                       bool skip_unchanged);
  // The highest job id when a plan was last applied or the table recovered: a job above it
  // was submitted since, and a start of it now is Slurm's SchedSubmit (startedBy).
  JobId applied_through_ = 0;
  ApplyStats apply_stats_;
  LifecycleCounts lifecycle_;
  std::uint32_t last_plan_size_ = 0;
  BackfillFacts last_backfill_;
  // For enforceTimeBounds: interactive allocations by their end, pending jobs with a deadline
  // by the second after the last one they can start in; kept from the ids touched since its
  // last call, built from the whole table on its first call.
  TimeIndex allocation_ends_;
  TimeIndex deadline_expiries_;
  TimeIndex preempt_kills_;  // preempted jobs by the end of their GraceTime
  std::vector<JobId> time_bounds_touched_;
  bool time_bounds_built_ = false;
  void noteTimeBounds(JobId id);
  void endPastDeadline(Job& job);

  // Preemption (preemption.cpp; PreemptType=preempt/partition_prio or preempt/qos). After each
  // pass, the jobs it could not start (in plan order) may preempt lower-tier jobs, or jobs of
  // the QOSes theirs lists (sched/preemption.h).
  bool preemptionConfigured() const;
  void preemptFor(const std::vector<JobId>& blocked);
  // Its QOS's PreemptMode (preempt/qos), else its partition's, else the scheduler's.
  config::PreemptMode preemptModeOf(const Job& job) const;
  // From when a job that has started may be preempted (its start plus PreemptExemptTime), as
  // scontrol show job prints it; 0 for one not started or whose mode is OFF.
  std::int64_t preemptEligibleTime(const Job& job) const;
  // Ends `job` for `preemptor` as preemptModeOf says: requeue (a batch job that may be
  // requeued) or cancel, after its partition's GraceTime (its QOS's under preempt/qos; its
  // steps get SIGCONT and SIGTERM at once), else now.
  void preempt(Job& job, JobId preemptor);
  // The kill: SIGCONT, SIGTERM, SIGKILL after KillWait, "DUE TO PREEMPTION".
  void killPreempted(Job& job);
  // Victim -> the job it was preempted for (0 when recovered after a restart), while it ends.
  std::map<JobId, JobId> preempted_for_;
  // The state (running, blocked and ending jobs, hashed) of the last preemption attempt that
  // chose nobody; 0 after one that chose someone.
  std::uint64_t fruitless_preemption_ = 0;
  std::vector<JobId> touched_;
  std::unique_ptr<SchedulingState, SchedulingStateDeleter> scheduling_;
  // Every pending job with a dependency, against the table as it is now: after a recovery and
  // an update, which may change what any of them waits for. True when some pending job's
  // dependency state changed.
  bool reevaluateDependencies();
  // Only the pending jobs whose dependency may have changed since they were last evaluated:
  // those marked due (dependentsDue) and those whose `after:ID+minutes` wait has run out. At the
  // start of each scheduling pass and after a plan's starts, so a pass costs what changed, not
  // the whole queue of dependents (DESIGN.md, "Scale"). True as reevaluateDependencies.
  bool reevaluateDueDependencies();
  // The same as reevaluateDependencies for the jobs `ids` (those without a dependency are
  // skipped): just-submitted ones, so each starts out with its true reason, and a requeued one.
  void reevaluateDependenciesOf(const std::vector<JobId>& ids);
  // The jobs whose dependency names `target` (by its id or its array's) and the user's
  // singleton jobs of its name: those its start, end, requeue or purge may release or block.
  std::vector<JobId> dependentsOf(const Job& target) const;
  // Re-evaluates them at once (an end, a requeue), or marks them due for the next
  // reevaluateDueDependencies (a start, a purge: many at a time, evaluated once).
  void evaluateDependentsOf(const Job& target);
  void dependentsDue(const Job& target);
  // Adds `job`'s dependency targets to dependents_, or takes them out (before its id or its
  // dependency changes, or it leaves the table).
  void indexDependents(const Job& job);
  void unindexDependents(const Job& job);
  // Keeps dependency_wakes_: `wake` is when the job's `after:ID+minutes` wait runs out (0:
  // none); 0 once its dependency is satisfied and when it ends (Job::dependency_wake).
  void setDependencyWake(Job& job, std::int64_t wake);
  void clearDependencyWake(Job& job) { setDependencyWake(job, 0); }
  // One pending job's; true when its dependency state changed.
  bool reevaluateDependency(Job& job, std::int64_t now);
  void refreshEligibility(Job& job, std::int64_t now);
  void finish(Job& job, v1::JobState state, std::int32_t code, std::int32_t signal,
              const v1::StepEventRequest* event);
  void requeue(Job& job, bool hold);
  // nodeFailed and jobLost: stop the job on `kill_nodes`, then requeue it or end it NODE_FAIL.
  void lose(Job& job, const std::vector<std::string>& kill_nodes, const std::string& detail);
  void index(Job& job);
  void rebuildRequest(Job& job);
  // buildRequest, with a job of several partitions ordered as it tries them, and a job
  // submitted held checked for nodes that could hold it (JobRequest::unrunnable).
  sched::JobRequest requestOf(const v1::JobInfo& info) const;
  // sched::validateRequest for every partition the request may run in: each must let its
  // account in and one must have nodes for it; else the first one's refusal.
  sched::Validation validateListed(const sched::JobRequest& request) const;
  // The configured partitions the job is in, or may run in while it waits for several.
  std::vector<const config::PartitionConfig*> partitionsOf(const v1::JobInfo& info) const;
  // Its ReqTRES (reqTres, with the largest node memory of those partitions for --mem=0).
  std::string requestedTres(const v1::JobInfo& info, const sched::JobRequest& request) const;
  // scontrol update's keys on one job: checked only, or (`apply`, after a check passed) set.
  Status updateJob(Job& job, const v1::UpdateJobRequest& request, bool admin, bool apply);
  Result<std::vector<JobId>> resolveIds(const std::string& text) const;
  bool owns(const Caller& caller, const Job& job) const;
  Result<v1::LaunchStepRequest> launchRequest(const Job& job);
  // steps.cpp
  void numberedStepEvent(Job& job, const v1::StepEventRequest& event);
  // Kills the job's running steps, for `reason` (their supervisors say why, see
  // SignalStepRequest.kill_reason), and records them CANCELLED.
  void endSteps(Job& job, v1::SignalStepRequest::KillReason reason);
  void signalSteps(const Job& job, int signal);
  // Terminates the job's current run on `nodes` (SIGTERM, SIGKILL after KillWait, through its
  // batch step's supervisors), their line saying `reason`; with `batch_shell_only` the batch
  // shell alone (scancel --batch).
  void killBatchStep(const Job& job, std::vector<std::string> nodes,
                     v1::SignalStepRequest::KillReason reason, bool batch_shell_only = false);
  v1::CancelResult cancelStep(const Caller& caller, const std::string& text, int signal);
  void finishStep(Job& job, int index);
  void recordStep(const Job& job, const v1::JobStep& step, bool final);

  const Clock& clock_;
  const config::ClusterConfig& config_;
  JobStore& store_;
  std::vector<sched::Node> config_nodes_;
  std::vector<sched::Partition> partitions_;
  std::vector<sched::Node> last_nodes_;
  NodeAvailability availability_;  // of last_nodes_, for pending jobs' reason descriptions
  std::map<JobId, Job> jobs_;
  // jobs_ by key, for lookups in O(1): a pass's apply step looks up every pending entry after
  // each start or end, where the map's walk through nodes spread over megabytes dominated.
  std::unordered_map<JobId, Job*> by_key_;
  LiveJobs live_;  // jobs_ not ended, by QOS, account, user and name (live_jobs.h)
  std::map<JobId, std::vector<JobId>> arrays_;  // array job id -> task keys (ascending)
  // Array job id -> its tasks still pending without an id of their own (Job::unsplit): the
  // task that starts when this is 1 takes the array's id.
  std::unordered_map<JobId, std::uint32_t> unsplit_pending_;
  std::set<JobId> dirty_remainders_;               // arrays whose remainder record is due
  std::vector<std::pair<JobId, JobId>> renamed_;   // (task key, job id) since the last sync
  std::set<JobId> with_dependencies_;
  // (when, job key) of each pending job's `after:ID+minutes` wait still running (Job::
  // dependency_wake), earliest first, and the keys of jobs whose dependency is due to be
  // evaluated again (dependentsDue): reevaluateDueDependencies takes both.
  std::set<std::pair<std::int64_t, JobId>> dependency_wakes_;
  std::set<JobId> dependency_due_;
  std::uint64_t dependency_evaluations_ = 0;
  // Target job id (a job's or an array's, as --dependency names it) -> the table keys of the
  // jobs whose dependency names it, kept as jobs enter the table, take their own id (array
  // tasks), change their dependency and are purged.
  std::multimap<JobId, JobId> dependents_;
  // The table keys of the jobs whose dependency has a `singleton` item, kept with dependents_.
  std::set<JobId> singletons_;
  acct::AcctBatch accounting_;
  std::unordered_map<JobId, std::size_t> accounting_index_;  // job id -> its record in the batch
  std::vector<SignalAction> signals_;
  bool schedule_requested_ = false;
  bool released_by_starts_ = false;
  ReservationBook reservations_{config_};
};

// Why a pending job cannot start at `now` whatever the nodes hold: a hold, a dependency, a
// begin time still ahead (the order of sched's Pass::waitReason). None when it waits only for
// the scheduler. Such jobs are kept out of the maintained scheduler (scheduling.cpp).
sched::Reason waitingReason(const Job& job, std::int64_t now);
// The same at submission, before the scheduler has looked at the job.
sched::Reason initialReason(const Job& job);

// Keeps a pending job's reason as its wait_reason (sacct's Reason) unless it is None, Priority
// or Resources, as Slurm's accounting keeps state_reason_prev_db. Submission, stage(), a
// dependency's change and the scheduler's writePending() call it: every reason a pending job is
// given passes one of them. True when the wait_reason changed.
bool noteWaitReason(v1::JobInfo& info);
// sacct's Reason for the job as it stands: its reason now if that is one noteWaitReason keeps
// (a record written before the job is staged) or JobLaunchFailure, else its wait_reason.
const std::string& accountingReason(const v1::JobInfo& info);

// The reason of a batch job that could not be launched.
inline const std::string kLaunchFailure = "JobLaunchFailure";
// The exit signal Slurm records for a batch script that could not be started (its --output
// could not be opened, ...): the reference's job FAILED with ExitCode 0:53, its batch step
// CANCELLED 0:53.
inline constexpr int kLaunchFailureSignal = 53;
// A job that could no longer end by its --deadline (Slurm's spelling).
inline constexpr const char* kDeadlineReason = "DeadLine";

// The reason description (JobInfo.reason_description) of a job requeued held, Slurm's words.
inline constexpr std::string_view kRequeuedHeld = "job requeued in held state";

// The nodes of a job's allocation, in allocation order (the batch host first).
std::vector<std::string> nodesOf(const Job& job);

}  // namespace drover::jobs
