#pragma once
// One job (or one array task) as the controller's queue keeps it. Everything clients may see
// and everything that must survive a restart lives in `info` (v1::JobInfo, which the store
// persists as a blob); the script and the exported environment live only in the store.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "drover/v1/jobs.pb.h"
#include "jobstate/job_state.h"
#include "jobspec/dependency_spec.h"
#include "jobs/live_jobs.h"
#include "sched/types.h"

namespace drover::jobs {

using JobId = std::uint64_t;

// An array's tasks that have not started have no job id of their own (Slurm shows them as the
// array's id A, "A_[2-9%2]", sacct as one record): the table keys them by an internal key with
// this bit set, (A << kTaskKeyShift) + the task's position in the array, never shown and never
// handed out as an id. When such a task starts it takes a job id (the next one, or A for the
// last task to leave the pending remainder) and is re-keyed (JobManager::splitStarted).
inline constexpr JobId kTaskKeyBit = JobId{1} << 62;
inline constexpr int kTaskKeyShift = 22;  // room for 4M tasks per array
inline constexpr bool isTaskKey(JobId key) { return (key & kTaskKeyBit) != 0; }
inline constexpr JobId taskKey(JobId array_id, std::uint32_t position) {
  return kTaskKeyBit | (array_id << kTaskKeyShift) | position;
}

// What a running job is waiting for once its batch step ends (persisted with the job).
enum class PendingEnd : std::uint32_t {
  kNone = 0,
  kCancel = 1,        // scancel: CANCELLED when the step ends
  kRequeue = 2,       // scontrol requeue: back to PENDING
  kRequeueHold = 3,   // scontrol requeuehold: PENDING, held
  kNodeFail = 4,      // the node died: NODE_FAIL (or requeue)
  kTimeout = 5,       // its advance reservation ended (reservation_jobs.cpp): TIMEOUT
  kPreemptCancel = 6,   // preempted (preemption.cpp): PREEMPTED when the step ends
  kPreemptRequeue = 7,  // preempted: its run recorded PREEMPTED, then back to PENDING
  kRequeueCancel = 8,   // requeued, then scancel: its run REQUEUED, then CANCELLED as pending
};

struct Job {
  v1::JobInfo info;
  // The key of the job table and the job store: 0 = info.job_id(); a task key (above) for an
  // array task that has not started (info.job_id() is then the array's id).
  JobId key = 0;
  PendingEnd pending_end = PendingEnd::kNone;
  // Parsed info.dependency ("" = none); kept in step with the text.
  std::optional<jobspec::DependencySpec> dependency;
  // When an `after:ID+minutes` item it waits for will be met (0: none), as last evaluated;
  // also in JobManager::dependency_wakes_ under this key. 0 whenever its dependency is
  // satisfied, so before it starts (and an array task's key changes), and cleared as it ends.
  std::int64_t dependency_wake = 0;
  // The request in the scheduler's terms, derived from info.spec with defaults applied;
  // rebuilt on load and on update, so a pass does not re-parse hostlists.
  sched::JobRequest request;
  // How the job table indexes it among the jobs not ended (LiveJobs): set while not ended.
  std::optional<LiveKey> live;

  // The table's key (what every index holds); info.job_id() is the id users see.
  JobId id() const { return key != 0 ? key : info.job_id(); }
  // An array task that has not started yet: part of its array's pending remainder.
  bool unsplit() const { return isTaskKey(id()); }
  v1::JobState state() const { return info.state(); }
  bool isArrayTask() const { return info.array_job_id() != 0; }
};

// Names step `step_id` of the job's current run in a message to or from its nodes: the job's
// id, the step and the restart count, so that an agent or the controller can tell the message
// from one of the job's previous run (common/step_run.h). Built when the message is made: a
// kill sent as the job is requeued names the run it ends, not the next one.
inline void nameStep(v1::StepId* out, const Job& job, std::int64_t step_id) {
  out->set_job_id(job.info.job_id());
  out->set_step_id(step_id);
  out->set_restart_count(job.info.restart_count());
}

// COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, ... : the job can no longer change.
bool isFinal(v1::JobState state);
// PENDING and REQUEUED wait for the scheduler; RUNNING, SUSPENDED, COMPLETING hold nodes.
bool holdsResources(v1::JobState state);
// Chosen for preemption while it holds its nodes: within its partition's GraceTime (it runs on,
// info.preempt_kill_time() set) or being killed (COMPLETING, already PREEMPTED in accounting).
inline bool preempting(const Job& job) {
  return (job.pending_end == PendingEnd::kPreemptCancel ||
          job.pending_end == PendingEnd::kPreemptRequeue) &&
         holdsResources(job.state());
}
inline bool killedForPreemption(const Job& job) {
  return preempting(job) && job.info.preempt_kill_time() == 0;
}
// The state Slurm already gives a job whose processes are being killed while it keeps its
// nodes until its step reports: CANCELLED (scancel), TIMEOUT (its reservation ended),
// PREEMPTED, or PENDING (scontrol requeue); squeue shows it COMPLETING beside that state.
// Nothing while the job simply runs, or runs on within a preemption's GraceTime.
std::optional<v1::JobState> killedInto(const Job& job);
inline bool beingKilled(const Job& job) { return killedInto(job).has_value(); }
// Requeued while its processes are killed: pending again for scontrol (requeue: "Job is
// pending execution"; the keys only a pending job takes), COMPLETING in squeue.
inline bool requeueing(const Job& job) { return killedInto(job) == v1::JOB_PENDING; }
// Ended for every request that changes a job ("Job has already finished"), also while its
// processes are still being killed.
inline bool ended(const Job& job) {
  const auto into = killedInto(job);
  return isFinal(job.state()) || (into && isFinal(*into));
}

}  // namespace drover::jobs
