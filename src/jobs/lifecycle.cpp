// From RUNNING to a final state: step reports, launch failures and node failures.
#include <csignal>

#include "common/step_run.h"
#include "jobs/job_manager.h"

namespace drover::jobs {

bool JobManager::ofOtherRun(const v1::StepId& step) const {
  const Job* job = find(step.job_id());
  if (job == nullptr || !step.has_restart_count()) return false;
  return isOtherRun(step.restart_count(), job->info.restart_count());
}

void JobManager::stepEvent(const v1::StepEventRequest& event) {
  if (ofOtherRun(event.step())) return;   // the daemon logged it
  Job* job = mutableJob(event.step().job_id());
  if (job && isFinal(job->state()) && event.step().step_id() >= 0) {
    numberedStepEvent(*job, event);  // steps.cpp: a step that ended just before its job
    return;
  }
  if (!job || !holdsResources(job->state())) return;  // late or duplicate report
  if (event.step().step_id() >= 0) {
    numberedStepEvent(*job, event);  // steps.cpp
    return;
  }
  if (event.step().step_id() != acct::kBatchStep) return;
  if (event.kind() == v1::StepEventRequest::STARTED) return;

  if (event.kind() == v1::StepEventRequest::FAILED_TO_START) {
    job->info.set_reason(kLaunchFailure);
    job->info.set_state_reason_detail(event.error());
    finish(*job, v1::JOB_FAILED, 0, kLaunchFailureSignal, &event);
    return;
  }
  switch (job->pending_end) {
    case PendingEnd::kCancel:
      // scontrol shows the batch step's end (0:15 for scancel's SIGTERM), as the reference's;
      // accounting keeps 0:0 for the job (job_table.cpp).
      finish(*job, v1::JOB_CANCELLED, event.exit_code(), event.exit_signal(), &event);
      return;
    case PendingEnd::kRequeue:
    case PendingEnd::kRequeueHold:
    case PendingEnd::kPreemptRequeue:  // requeue() records the run PREEMPTED
      recordBatchStep(*job, &event);
      requeue(*job, job->pending_end == PendingEnd::kRequeueHold);
      return;
    case PendingEnd::kRequeueCancel:
      // The reference's: the run stays REQUEUED, the job it went back to is cancelled.
      recordBatchStep(*job, &event);
      {
        const std::string cancelled_by = job->info.cancelled_by();
        requeue(*job, false);
        job->info.set_cancelled_by(cancelled_by);
      }
      finish(*job, v1::JOB_CANCELLED, 0, 0, nullptr);
      return;
    case PendingEnd::kNodeFail:
      finish(*job, v1::JOB_NODE_FAIL, 0, 0, &event);
      return;
    case PendingEnd::kTimeout:
      finish(*job, v1::JOB_TIMEOUT, 0, 0, &event);
      return;
    case PendingEnd::kPreemptCancel:
      finish(*job, v1::JOB_PREEMPTED, event.exit_code(), event.exit_signal(), &event);
      return;
    case PendingEnd::kNone:
      break;
  }
  if (event.timed_out()) {
    // scontrol shows how the script ended (0:15 after SIGTERM) and why; sacct's job record
    // keeps 0:0 (record(), goldens 108 and 114).
    job->info.set_reason("TimeLimit");
    finish(*job, v1::JOB_TIMEOUT, event.exit_code(), event.exit_signal(), &event);
  } else if (event.out_of_memory()) {
    // Slurm records an OOM-killed job as ExitCode 0:125.
    finish(*job, v1::JOB_OUT_OF_MEMORY, 0, 125, &event);
  } else if (event.exit_signal() != 0 || event.exit_code() != 0) {
    finish(*job, v1::JOB_FAILED, event.exit_code(), event.exit_signal(), &event);
  } else {
    finish(*job, v1::JOB_COMPLETED, 0, 0, &event);
  }
}

void JobManager::launchFailed(JobId id, const std::string& why) {
  Job* job = mutableJob(id);
  if (!job || !holdsResources(job->state())) return;
  job->info.set_reason(kLaunchFailure);
  job->info.set_state_reason_detail(why);
  finish(*job, v1::JOB_FAILED, 1, 0, nullptr);
}

void JobManager::nodeFailed(const std::string& node) {
  for (auto& [id, job] : jobs_) {
    if (!holdsResources(job.state())) continue;
    std::vector<std::string> nodes = nodesOf(job);
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) continue;
    // The rest of the allocation is told to stop; the dead node cannot report.
    std::vector<std::string> others;
    for (const auto& n : nodes)
      if (n != node) others.push_back(n);
    lose(job, others, "node " + node + " failed");
  }
}

void JobManager::jobLost(JobId id, const std::string& reason, const std::string& lost_on) {
  Job* job = mutableJob(id);
  if (!job || !holdsResources(job->state())) return;
  // Its batch host no longer runs it; any other node of the allocation may still run steps.
  std::vector<std::string> kill_nodes = nodesOf(*job);
  std::erase(kill_nodes, lost_on);
  lose(*job, kill_nodes, reason);
}

void JobManager::lose(Job& job, const std::vector<std::string>& kill_nodes,
                      const std::string& detail) {
  if (!kill_nodes.empty()) killBatchStep(job, kill_nodes, v1::SignalStepRequest::QUIET);
  job.info.set_state_reason_detail(detail);
  // A job being cancelled ends CANCELLED: the user asked for that, not the node.
  if (killedInto(job) == v1::JOB_CANCELLED) {
    finish(job, v1::JOB_CANCELLED, 0, 0, nullptr);
  } else if (job.pending_end == PendingEnd::kPreemptCancel) {
    finish(job, v1::JOB_PREEMPTED, 0, 0, nullptr);
  } else if (job.info.requeue() && job.info.batch()) {
    job.info.set_state(v1::JOB_NODE_FAIL);
    job.info.set_end_time(clock_.now());
    record(job);
    requeue(job, false);
  } else {
    job.info.set_reason("NodeDown");
    finish(job, v1::JOB_NODE_FAIL, 0, 0, nullptr);
  }
}

}  // namespace drover::jobs
