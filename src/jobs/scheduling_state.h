#pragma once
// What JobManager keeps between scheduling passes for the incremental path
// (incremental_pass.cpp): the maintained sched::Scheduler, a record of what it holds for each
// job (so a change can be told from a no-op and usage charged when a run ends), the fair-share
// ledger and each pending job's priority factors (sprio shows those).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jobs/fair_share.h"
#include "jobs/job.h"
#include "jobs/job_priority.h"
#include "jobs/usage_store.h"
#include "sched/incremental.h"

namespace drover::jobs {

// A running job as the scheduler holds it: its nodes, CPUs, memory, GPU indices, expected end.
sched::RunningJob runningOf(const Job& job);

struct HeldJob;
// CPU-seconds a run the scheduler holds as running has used by `now`. The scheduler hears that a
// run ended only at its next pass, so a run that has ended counts to its recorded end, not to
// `now`: usage shown in between (sshare) is then what the pass will charge, never more.
double heldRunUsage(const HeldJob& held, const Job* job, std::int64_t now);

struct HeldJob {
  bool running = false;
  std::int64_t start = 0;   // running: when this run started
  std::int64_t end = 0;     // running: its expected end as the scheduler holds it
  std::uint32_t cpus = 0;   // running: CPUs allocated
  Association who;          // running: charged for the run
  sched::DependencyState dependency = sched::DependencyState::Satisfied;  // pending
};

// What an apply wrote from a pending job's plan entry (JobManager::writePending): the entry's
// reason, shown start and planned nodes, and whether the job names nodes (-w), whose reason
// also reads the entries ahead of it (claimNodesAhead).
struct AppliedEntry {
  sched::Reason reason = sched::Reason::None;
  std::int64_t start = 0;
  std::vector<std::string> nodes;
  bool names_nodes = false;

  // Writing `p` again would change nothing (a -w job's reason may, whatever its entry says).
  bool same(const sched::PendingInfo& p) const {
    return !names_nodes && reason == p.reason && start == p.shownStart() &&
           nodes == p.plannedNodes;
  }
};

struct SchedulingState {
  std::unique_ptr<sched::Scheduler> scheduler;
  std::unordered_map<JobId, HeldJob> held;
  std::set<JobId> running_held;       // the ids of `held` entries that run (fair-share usage)
  JobId watermark = 0;                // highest job id the scheduler has heard of
  // Pending jobs with a --begin time still ahead, by (begin time, id): a pass makes the ones
  // that came due eligible, and the controller's begin timer fires at the first. Held and
  // dependent jobs become eligible on the event that frees them (a touch, a dependency state
  // change), so no pass walks the jobs that wait. begin_of: each job's one entry.
  std::set<std::pair<std::int64_t, JobId>> begin_waits;
  std::unordered_map<JobId, std::int64_t> begin_of;
  // What applyPass must write: after incremental passes only the entries of the jobs they
  // added (nobody else's entry changed); after a full pass every entry that differs.
  std::vector<JobId> submitted_unapplied;
  bool full_unapplied = false;
  // Each pending job's last written entry, until the job changes: syncScheduler forgets every
  // job it replays (everything that changes a job touches it), a rebuild and a change in the
  // nodes' availability (which reason descriptions read) forget all. An entry equal to it is
  // not written again, so the apply after a start or an end costs a lookup here for each
  // unchanged entry instead of a walk through the job table.
  std::unordered_map<JobId, AppliedEntry> applied;
  std::set<JobId> throttled;          // array tasks kept out by the array's %N limit
  // Jobs kept out by their QOS's per-user limits (qos_limits.h), with the reason they show.
  std::map<JobId, std::string> qos_withheld;
  std::string qos_limits_key;  // qosLimitsKey of the limits they were held back under
  std::int64_t last_recalc = 0;       // when every priority was last computed
  bool keep_priorities = false;       // tableSnapshot: use the priorities jobs hold
  std::vector<sched::AdvanceReservation> reservations;  // as the scheduler holds them

  UsageLedger ledger;
  // Usage as of the last priority calculation (every scheduler.priority.calc_period, Slurm's
  // PriorityCalcPeriod; between, a job's priority is the one it got when it entered the queue
  // or last changed). New jobs' fair-share factors, sprio and sshare read this, as Slurm's
  // read what its priority thread last folded in: a run that ended a moment ago counts from
  // the next calculation on.
  std::map<Association, double> usage_at_calc;
  std::optional<std::int64_t> usage_calc_time;
  std::unique_ptr<UsageStore> usage_store;
  std::unordered_map<JobId, PriorityFactors> factors;
};

}  // namespace drover::jobs
