// Jobs whose advance reservation ended: Slurm ends them once the reservation's end plus
// ResvOverRun has passed (slurm.conf ResvOverRun: "0 = kill the job immediately") with the
// state TIMEOUT, as a job that reached its time limit.
#include <csignal>

#include "jobs/job_manager.h"

namespace drover::jobs {

std::int64_t JobManager::endReservationJobs(std::int64_t over_run_s) {
  const std::int64_t now = clock_.now();
  std::int64_t next = 0;
  if (reservations_.size() == 0) return next;
  for (auto& [id, job] : jobs_) {
    const std::string& name = job.info.spec().reservation();
    if (name.empty() || !holdsResources(job.state()) || job.pending_end != PendingEnd::kNone) {
      continue;
    }
    const v1::ReservationInfo* info = reservations_.find(name);
    if (info == nullptr) continue;  // deleted: its jobs run on to their own limits
    const auto kill = reservationKillTime(*info, job.info.start_time(), over_run_s);
    if (!kill) continue;
    if (*kill > now) {
      if (next == 0 || *kill < next) next = *kill;
      continue;
    }
    job.info.set_reason("TimeLimit");
    job.info.set_state_reason_detail("reservation " + name + " ended");
    if (!job.info.batch()) {
      finish(job, v1::JOB_TIMEOUT, 0, 0, nullptr);  // no batch step to wait for
      changed();
      continue;
    }
    changed();
    // TIMEOUT once the batch step reports it was killed (lifecycle.cpp), as a cancel does;
    // squeue shows it COMPLETING and sacct TIMEOUT meanwhile, ended now (jobs::killedInto).
    job.pending_end = PendingEnd::kTimeout;
    job.info.set_end_time(now);
    stage(job);
    record(job);
    killBatchStep(job, nodesOf(job), v1::SignalStepRequest::TIME_LIMIT);
  }
  return next;
}

}  // namespace drover::jobs
