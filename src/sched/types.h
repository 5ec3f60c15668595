#pragma once
// Value types of the pure scheduling core: what the controller, the simulator and tests hand to
// schedule(), and the Plan it returns. No behaviour lives here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sched/reason.h"

namespace drover::sched {

using JobId = uint64_t;

// A node as configured, plus whether it may take new work now (up and not drained).
struct Node {
  std::string name;
  int index = 0;  // position in hostlist order; multi-node jobs prefer contiguous indices
  int cpus = 0;
  int64_t memoryMb = 0;
  std::vector<std::string> gpuTypes;  // gpuTypes[i] is the type of GPU index i ("" = untyped)
  std::vector<std::string> features;
  int weight = 1;  // lower weight is preferred, as Slurm's Weight
  std::vector<std::string> partitions;
  bool usable = true;
};

enum class PartitionState { Up, Down, Drain, Inactive };

struct Partition {
  std::string name;
  PartitionState state = PartitionState::Up;
  int64_t maxTimeS = 0;      // 0 = unlimited
  int64_t defaultTimeS = 0;  // 0 = use maxTimeS, else the scheduler's default
  int maxNodes = 0;          // 0 = unlimited
  int priorityTier = 1;
  int priorityJobFactor = 1;  // the partition factor of multifactor priority
  bool exclusive = false;  // OverSubscribe=EXCLUSIVE: every job gets whole nodes
  std::vector<std::string> allowedAccounts;  // empty = all
  // Its running jobs may be preempted by jobs of higher-tier partitions (preemption.h).
  bool preemptable = false;
};

enum class Hold { None, User, Admin };
enum class DependencyState { Satisfied, Pending, NeverSatisfied };

struct JobRequest {
  std::string user;
  std::string account;
  std::string partition;
  // A job of several partitions (`-p gpu,debug`): every one, in the order it tries them
  // (orderPartitions in sched/partition_order.h), `partition` being the first. Each pass starts
  // it in the first of them that can start it now, else it waits in the one offering the
  // earliest start (Pass::startInListedPartition). Empty for a job of one partition.
  std::vector<std::string> partitions;
  int minNodes = 0;  // 0 = as few as the tasks need
  int maxNodes = 0;  // 0 = no maximum
  int ntasks = 1;
  int ntasksPerNode = 0;  // 0 = spread as needed
  bool ntasksGiven = false;  // -n was given (else one task per node, or --ntasks-per-node)
  int cpusPerTask = 1;
  int cpusPerGpu = 0;  // --cpus-per-gpu: a node's CPUs are at least its GPUs times this
  int64_t memPerNodeMb = 0;  // at most one of the three memory forms is set
  int64_t memPerCpuMb = 0;
  int64_t memPerGpuMb = 0;
  // --mem=0: each node's whole memory, whatever its size (sbatch(1)); memPerNodeMb stays 0.
  bool allMemory = false;
  int gpusPerJob = 0;  // at most one of the three GPU forms is set
  int gpusPerNode = 0;
  int gpusPerTask = 0;
  std::string gpuType;  // "" = any type
  bool exclusive = false;
  std::vector<std::string> requiredNodes;
  std::vector<std::string> excludedNodes;
  std::string constraint;  // features joined by & and |, & binding tighter
  // --prefer: features (as `constraint`) a start now tries first, in place of `constraint`;
  // reservations and estimates plan with `constraint` alone.
  std::string prefer;
  int64_t timeLimitS = 0;  // 0 = partition default
  int64_t submitTime = 0;
  int64_t beginTime = 0;
  DependencyState dependency = DependencyState::Satisfied;
  Hold hold = Hold::None;
  // No node of its partitions could ever hold it: a job submitted held skips that check, as
  // Slurm's did, and once released waits with BadConstraints for ever (the reference's).
  bool unrunnable = false;
  std::string reservation;
  int nice = 0;
  std::string qos;
  // Ties of tier, priority and submit time are broken by this id, then by the job's own id
  // (0: the job's own id alone). The controller gives an array's pending tasks their array's
  // id here, so they rank as their array, ahead of later jobs, whatever internal ids they hold.
  JobId rankId = 0;
};

struct Job {
  JobId id = 0;
  JobRequest request;
  double priority = 0;  // computed by the priority factors (sched/priority.h) or given
};

struct NodeAllocation {
  std::string node;
  // Position of the node in Snapshot::nodes, a hint that spares a name lookup per allocation
  // on every pass; schedule() fills it in its starts and checks it against `node` when reading.
  int nodeIndex = -1;
  int cpus = 0;
  int64_t memoryMb = 0;
  std::vector<int> gpus;  // GPU indices on that node
  // The job's tasks on that node when the scheduler laid them out (sched/task_layout.h); 0 when
  // it did not, and the controller spreads them by its own rule.
  int tasks = 0;
};

struct Allocation {
  std::vector<NodeAllocation> nodes;
};

struct RunningJob {
  JobId id = 0;
  std::string partition;
  Allocation allocation;
  int64_t expectedEnd = 0;  // start + time limit; overdue jobs are treated as ending just after now
  std::string qos;  // read by preemption under preempt/qos only
};

// A named advance reservation: jobs naming it may run inside it; all other work is kept out.
struct AdvanceReservation {
  std::string name;
  std::vector<std::string> nodes;  // explicit nodes, or
  int nodeCount = 0;               // this many nodes picked by the scheduler
  std::vector<std::string> users;
  std::vector<std::string> accounts;
  int64_t start = 0;
  int64_t end = 0;
};

struct Snapshot {
  std::vector<Node> nodes;
  std::vector<Partition> partitions;
  std::vector<RunningJob> running;
  std::vector<Job> pending;
  std::vector<AdvanceReservation> reservations;
};

enum class Policy { Fcfs, Easy, Conservative };

struct SchedulerParams {
  Policy policy = Policy::Easy;
  // Reservations per partition for blocked jobs; <0 = derived from the policy (FCFS/EASY 1,
  // conservative unbounded).
  int reservationDepth = -1;
  int64_t defaultTimeLimitS = 365LL * 24 * 3600;  // when neither job nor partition sets one
  // Find reservation starts through per-shape FitIndexes (sched/fit_index.h) instead of asking
  // every eligible node; both give the same plan. Off only in tests that check exactly that.
  bool indexedReserveSearch = true;
  // Reservations are made only for starts within this many seconds of now (0 = no limit), as
  // Slurm's bf_window: a job that cannot start sooner gets no reservation and no expected
  // start. Bounds the work per blocked job on long conservative queues.
  int64_t reserveHorizonS = 0;
  // How many blocked jobs without a reservation get PendingInfo::estimatedStart, in priority
  // order (0 = none). Costs about what conservative backfill costs for that many jobs; the
  // estimates never constrain backfill.
  int estimateDepth = 1000;

  bool operator==(const SchedulerParams&) const = default;
};

struct Start {
  JobId id = 0;
  Allocation allocation;
  int64_t endTime = 0;  // now + time limit
  // Started ahead of a higher-ranked job of its partition that could not start: what Slurm's
  // backfill scheduler starts (its job flag SchedBackfill, PlanStats::backfilled).
  bool backfill = false;
  // The partition it starts in, for a job of several (JobRequest::partitions); else empty.
  std::string partition;
  // It starts on nodes with its preferred features (JobRequest::prefer).
  bool preferred = false;
};

struct PendingInfo {
  JobId id = 0;
  Reason reason = Reason::None;
  std::optional<int64_t> expectedStart;  // set for jobs holding a reservation in the profile
  // Nodes reserved for it when expectedStart is set; when estimatedStart is, the nodes its
  // estimate found (squeue --start SCHEDNODES, scontrol's SchedNodeList=).
  std::vector<std::string> plannedNodes;
  // A non-binding estimate for jobs without a reservation (squeue --start), from a second,
  // bounded pass that reserves nothing in the real profile (SchedulerParams::estimateDepth).
  std::optional<int64_t> estimatedStart;

  // The start squeue --start shows: the reservation's, else the estimate's, 0 for none.
  int64_t shownStart() const { return expectedStart ? *expectedStart : estimatedStart.value_or(0); }
};

struct PlanStats {
  int jobsConsidered = 0;
  int skippedSameShape = 0;
  int reservationsMade = 0;
  // Starts of jobs ranked behind a blocked job of their partition: what Slurm's backfill
  // scheduler would have started (sdiag's "Total backfilled jobs").
  int backfilled = 0;
  // Pending entries waiting for Priority (behind a blocked job of their partition) and for
  // Resources (a partition's first blocked job): sdiag's backfill depth reads them once a pass,
  // so every way the plan changes keeps them (tallyReason) instead of a walk of the queue.
  int waitingOnPriority = 0;
  int waitingOnResources = 0;
};

// Counts (by = +1) or uncounts (by = -1) one pending entry's reason in `stats`.
inline void tallyReason(PlanStats& stats, Reason reason, int by) {
  if (reason == Reason::Priority) stats.waitingOnPriority += by;
  if (reason == Reason::Resources) stats.waitingOnResources += by;
}

struct Plan {
  std::vector<Start> starts;
  std::vector<PendingInfo> pending;  // one per pending job not started, in priority order
  PlanStats stats;
};

}  // namespace drover::sched
