// Times the controller itself enforces, acted on at each commit: interactive allocations
// (srun/salloc outside a job) past their time limit, which no supervisor ends, pending jobs
// past the last moment they could start and still end by their --deadline, and preempted jobs
// at the end of their partition's GraceTime.
#include <algorithm>

#include "jobs/deadline.h"
#include "jobs/job_manager.h"

namespace drover::jobs {

void JobManager::noteTimeBounds(JobId id) {
  const Job* job = find(id);
  std::int64_t end = 0;
  std::int64_t expiry = 0;
  if (job && !job->info.batch() && holdsResources(job->state()) &&
      job->info.time_limit_min() >= 0) {
    end = std::max<std::int64_t>(0, job->info.end_time());
  }
  // A held job waits for its release, deadline or not, as the reference's did; released, it
  // is touched and comes back here.
  if (job && job->state() == v1::JOB_PENDING && job->request.hold == sched::Hold::None) {
    if (auto by = latestStart(job->info)) expiry = std::max<std::int64_t>(1, *by + 1);
  }
  allocation_ends_.set(id, end);
  deadline_expiries_.set(id, expiry);
  preempt_kills_.set(id, job && preempting(*job) ? job->info.preempt_kill_time() : 0);
}

void JobManager::endPastDeadline(Job& job) {
  job.info.set_reason(std::string(kDeadlineReason));
  // The reference showed ExitCode=0:1 for such a job in scontrol and recorded 1:0 in sacct
  // (jobRecord turns the one into the other).
  finish(job, v1::JOB_DEADLINE, 0, 1, nullptr);
}

std::int64_t JobManager::enforceTimeBounds() {
  const std::int64_t now = clock_.now();
  // Called on every commit: the indexes follow the jobs touched since the last call (a start,
  // an update of the limit, a release, an end), so a commit does not walk the job table.
  std::vector<JobId> touched = std::move(time_bounds_touched_);
  time_bounds_touched_.clear();
  if (!time_bounds_built_) {
    time_bounds_built_ = true;
    for (const auto& [id, job] : jobs_) noteTimeBounds(id);
  } else {
    for (JobId id : touched) noteTimeBounds(id);
  }
  while (auto id = allocation_ends_.takeDue(now)) {
    Job* job = mutableJob(*id);
    if (!job || job->info.batch() || !holdsResources(job->state()) ||
        job->info.time_limit_min() < 0 || job->info.end_time() <= 0) {
      continue;
    }
    if (job->info.end_time() > now) {  // not touched since its limit grew: keep it, later
      noteTimeBounds(*id);
      continue;
    }
    job->info.set_reason("TimeLimit");
    finish(*job, v1::JOB_TIMEOUT, 0, 0, nullptr);
  }
  while (auto id = deadline_expiries_.takeDue(now)) {
    Job* job = mutableJob(*id);
    if (!job || job->state() != v1::JOB_PENDING || job->request.hold != sched::Hold::None) continue;
    const auto by = latestStart(job->info);
    if (!by || *by >= now) {  // its deadline or limits changed since: due later, if at all
      noteTimeBounds(*id);
      continue;
    }
    endPastDeadline(*job);
  }
  while (auto id = preempt_kills_.takeDue(now)) {
    Job* job = mutableJob(*id);
    if (!job || !preempting(*job) || job->info.preempt_kill_time() == 0) continue;
    killPreempted(*job);  // its GraceTime is over
  }
  std::int64_t next = 0;
  for (std::int64_t t : {allocation_ends_.next(), deadline_expiries_.next(), preempt_kills_.next()}) {
    if (t != 0 && (next == 0 || t < next)) next = t;
  }
  return next;
}

}  // namespace drover::jobs
