// The job table's side of the QOS limits (jobs/qos_limits.h): its jobs as the limits
// see them, which pending ones wait, and the submission check.
#include "jobs/job_manager.h"
#include "jobs/job_priority.h"
#include "jobs/qos_limits.h"
#include "jobs/scheduling_state.h"

namespace drover::jobs {

namespace {

// A running job counts what it was given, a pending one what it asks for.
QosLimitJob limitJob(const Job& job) {
  QosLimitJob q;
  q.id = job.id();
  q.qos = job.info.qos();
  q.user = job.info.user();
  q.account = job.info.account();
  q.running = holdsResources(job.state());
  q.time_limit_min = job.info.time_limit_min();
  q.priority = job.info.priority();
  if (q.running) {
    for (const auto& a : job.info.allocation()) {
      q.cpu += a.cpus();
      q.gpu += a.gpu_indices_size();
      q.node += 1;
    }
  } else {
    const JobTres asked = jobTres(job.request, 0);
    q.cpu = asked.cpu;
    q.gpu = asked.gpu;
    q.node = asked.node;
  }
  return q;
}

}  // namespace

std::vector<QosLimitJob> JobManager::qosLimitJobs(const QosLimits& limits,
                                                  const QosGroups* groups) const {
  std::vector<QosLimitJob> concerned;
  if (!limits.any()) return concerned;
  for (const auto& [id, job] : jobs_) {
    if (!limits.limits(job.info.qos())) continue;
    if (groups && !groups->count({job.info.qos(), job.info.user()}) &&
        !groups->count({job.info.qos(), std::string()})) {
      continue;
    }
    // Held, dependent or --begin jobs take no share of a limit until they may start.
    const bool waits_for_scheduler =
        job.state() == v1::JOB_PENDING && initialReason(job) == sched::Reason::None;
    if (holdsResources(job.state()) || waits_for_scheduler) concerned.push_back(limitJob(job));
  }
  return concerned;
}

std::optional<std::string_view> JobManager::qosSubmitRefusal(const v1::JobInfo& base,
                                                             const sched::JobRequest& request,
                                                             std::uint32_t tasks) const {
  const config::QosConfig* qos = config_.findQos(base.qos());
  const bool counts = qos && (qos->max_submit_jobs_per_user || qos->grp_submit_jobs ||
                               qos->max_submit_jobs_per_account);
  if (!qos || (!counts && !qos->deny_on_limit)) return std::nullopt;
  const QosLimits::Submitted existing =
      counts ? live_.submitted(qos->name, base.account(), base.uid()) : QosLimits::Submitted{};
  Job probe;
  probe.info = base;
  probe.request = request;
  return QosLimits::refusal(*qos, limitJob(probe), tasks, existing);
}

}  // namespace drover::jobs
