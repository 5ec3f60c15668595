// Preemption, Slurm's PreemptType=preempt/partition_prio or preempt/qos: a job that cannot
// start may end running jobs of lower-tier partitions, or of the QOSes its QOS may preempt,
// whose PreemptMode allows it (sched/preemption.h picks them). As the reference Slurm 22.05
// did (2026-12-04): the preempted job gets SIGCONT and SIGTERM, SIGKILL after KillWait, its
// stderr says "*** JOB N ON node CANCELLED AT T DUE TO PREEMPTION ***", and it shows
// COMPLETING meanwhile and PREEMPTED in accounting, ended at the preemption; with REQUEUE it is
// then requeued (its run's record stays PREEMPTED), with CANCEL it ends PREEMPTED with its
// script's exit code. A partition's GraceTime (under preempt/qos its QOS's) first lets it run
// on that long, its end time moved there and its steps sent SIGCONT and SIGTERM at once. The
// preemptor waits with reason Resources until the nodes are free, and its higher tier (or its
// rank) puts it first in the pass that follows.
#include <algorithm>
#include <csignal>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/log.h"
#include "jobs/job_manager.h"
#include "jobs/scheduling_state.h"
#include "sched/preemption.h"

namespace drover::jobs {

namespace {

// preempt/qos: who may preempt whom, by QOS name.
std::unordered_map<std::string, std::unordered_set<std::string>> qosPreempts(
    const config::ClusterConfig& config) {
  std::unordered_map<std::string, std::unordered_set<std::string>> out;
  for (const config::QosConfig& q : config.qos) {
    if (!q.preempt.empty()) out[q.name].insert(q.preempt.begin(), q.preempt.end());
  }
  return out;
}

}  // namespace

bool JobManager::preemptionConfigured() const {
  switch (config_.scheduler.preempt_type) {
    case config::PreemptType::kNone: return false;
    case config::PreemptType::kQos:
      return std::any_of(config_.qos.begin(), config_.qos.end(),
                         [](const config::QosConfig& q) { return !q.preempt.empty(); });
    case config::PreemptType::kPartitionPrio: break;
  }
  return std::any_of(partitions_.begin(), partitions_.end(),
                     [](const sched::Partition& p) { return p.preemptable; });
}

config::PreemptMode JobManager::preemptModeOf(const Job& job) const {
  const config::PartitionConfig* partition = config_.findPartition(job.info.partition());
  if (!partition) return config::PreemptMode::kOff;
  return config::effectivePreemptMode(config_.scheduler, *partition, config_.findQos(job.info.qos()));
}

std::int64_t JobManager::preemptEligibleTime(const Job& job) const {
  const v1::JobState state = job.state();
  if (job.info.start_time() <= 0 || state == v1::JOB_PENDING || state == v1::JOB_REQUEUED) return 0;
  // One preempted already was preemptable then, whatever the configuration says now.
  if (job.info.preempt_time() == 0 && preemptModeOf(job) == config::PreemptMode::kOff) return 0;
  return job.info.start_time() + config_.scheduler.preempt_exempt_time_s;
}

void JobManager::preemptFor(const std::vector<JobId>& blocked) {
  if (blocked.empty() || !scheduling_ || !scheduling_->scheduler) return;
  sched::PreemptionQuery query;
  query.blocked = blocked;
  const bool by_qos = config_.scheduler.preempt_type == config::PreemptType::kQos;
  if (by_qos) query.qosPreempts = qosPreempts(config_);
  for (auto it = preempted_for_.begin(); it != preempted_for_.end();) {
    const Job* victim = find(it->first);
    if (!victim || !preempting(*victim)) {
      it = preempted_for_.erase(it);
      continue;
    }
    if (it->second != 0) query.waiting.insert(it->second);
    ++it;
  }
  const sched::Snapshot& snapshot = scheduling_->scheduler->snapshot();
  // Spared: jobs already on their way out (preempted, cancelled, requeued, ...), which free
  // their nodes anyway, jobs that started less than PreemptExemptTime ago, and under
  // preempt/qos jobs whose QOS and partition leave them PreemptMode OFF (under partition_prio
  // the partition's mode is the planner's Partition::preemptable).
  const std::int64_t now = clock_.now();
  const std::int64_t exempt_s = config_.scheduler.preempt_exempt_time_s;
  // A pass that changed neither the running jobs, nor whom they spare, nor who waits would try
  // the same trials and find the same nothing: skip them (a busy queue runs a pass per
  // submission).
  std::uint64_t signature = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) { signature = (signature ^ v) * 1099511628211ull; };
  for (const sched::RunningJob& r : snapshot.running) {
    const Job* job = find(r.id);
    const bool spared = job && (job->pending_end != PendingEnd::kNone ||
                                (exempt_s > 0 && now - job->info.start_time() < exempt_s) ||
                                (by_qos && preemptModeOf(*job) == config::PreemptMode::kOff));
    if (spared) query.spared.insert(r.id);
    mix(spared ? ~r.id : r.id);
  }
  for (JobId id : query.blocked) mix(id);
  if (signature == fruitless_preemption_) return;
  const auto chosen = sched::planPreemptions(snapshot, query, schedulerParams(), now);
  fruitless_preemption_ = chosen.empty() ? signature : 0;
  for (const sched::Preemption& p : chosen) {
    Job* victim = mutableJob(p.victim);
    if (victim && holdsResources(victim->state()) && !preempting(*victim) &&
        victim->pending_end == PendingEnd::kNone) {
      preempt(*victim, p.preemptor);
    }
  }
}

void JobManager::preempt(Job& job, JobId preemptor) {
  const config::PartitionConfig* partition = config_.findPartition(job.info.partition());
  if (!partition) return;
  const config::PreemptMode mode = preemptModeOf(job);
  if (mode == config::PreemptMode::kOff) return;
  // GraceTime: the QOS's under preempt/qos, as slurm.conf(5) has it, else the partition's.
  const config::QosConfig* qos = config_.findQos(job.info.qos());
  const std::uint32_t grace = config_.scheduler.preempt_type == config::PreemptType::kQos
                                  ? (qos ? qos->grace_time_s : 0)
                                  : partition->grace_time_s;
  // REQUEUE: "Preempts jobs by requeuing them (if possible) or canceling them" (slurm.conf(5)).
  const bool requeue =
      mode == config::PreemptMode::kRequeue && job.info.batch() && job.info.requeue();
  job.pending_end = requeue ? PendingEnd::kPreemptRequeue : PendingEnd::kPreemptCancel;
  preempted_for_[job.id()] = preemptor;
  const std::int64_t now = clock_.now();
  job.info.set_preempt_time(now);
  drover::log::get("ctld")->info("preempted JobId={} has been {} to reclaim resources for JobId={}",
                                 job.info.job_id(), requeue ? "requeued" : "killed", preemptor);
  if (grace == 0) {
    killPreempted(job);
    return;
  }
  job.info.set_end_time(now + grace);
  job.info.set_preempt_kill_time(now + grace);
  signalSteps(job, SIGCONT);
  signalSteps(job, SIGTERM);
  stage(job);
  record(job);
  changed();
}

void JobManager::killPreempted(Job& job) {
  job.info.set_preempt_kill_time(0);
  job.info.set_end_time(std::min<std::int64_t>(job.info.end_time(), clock_.now()));
  if (!job.info.batch()) {
    // An interactive allocation has no batch step to wait for: it ends now, its steps killed.
    finish(job, v1::JOB_PREEMPTED, 0, 0, nullptr);
    return;
  }
  killBatchStep(job, nodesOf(job), v1::SignalStepRequest::PREEMPTED);
  stage(job);
  record(job);
  changed();
}

}  // namespace drover::jobs
