#include "jobs/qos_limits.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <tuple>

namespace drover::jobs {

namespace {

struct Usage {
  std::uint64_t jobs = 0;
  double cpu = 0, gpu = 0, node = 0;
};

// The reason a job over one of the QOS's MaxTRESPU entries waits under, with the entry's
// count; nullopt when `use` plus the job fit.
std::optional<std::string_view> overTres(const config::QosConfig& qos, const Usage& use,
                                         const QosLimitJob& job) {
  // Per TRES of config::kQosUserTres, in its order: what the user would hold, and the
  // reference's reason (slurm.conf(5), "JOB REASON CODES" of squeue(1)).
  const double have[] = {use.cpu + job.cpu, use.node + job.node, use.gpu + job.gpu};
  constexpr std::string_view kReasons[] = {"QOSMaxCpuPerUserLimit", "QOSMaxNodePerUserLimit",
                                           "QOSMaxGRESPerUser"};
  static_assert(std::size(kReasons) == config::kQosUserTres.size());
  for (std::size_t i = 0; i < config::kQosUserTres.size(); ++i) {
    auto limit = qos.max_tres_per_user.find(std::string(config::kQosUserTres[i]));
    if (limit != qos.max_tres_per_user.end() && have[i] > static_cast<double>(limit->second)) {
      return kReasons[i];
    }
  }
  return std::nullopt;
}

bool overWall(const config::QosConfig& qos, const QosLimitJob& job) {
  return qos.max_wall_min &&
         (job.time_limit_min < 0 || job.time_limit_min > *qos.max_wall_min);
}

}  // namespace

QosLimits::QosLimits(const config::ClusterConfig& config) {
  for (const config::QosConfig& q : config.qos) {
    if (q.hasRunLimits()) limited_.emplace(q.name, &q);
  }
}

std::map<sched::JobId, std::string_view> QosLimits::withheld(std::vector<QosLimitJob> jobs) const {
  std::map<sched::JobId, std::string_view> out;
  // Running jobs first (they count whatever their rank), then the pending by rank.
  std::sort(jobs.begin(), jobs.end(), [](const QosLimitJob& a, const QosLimitJob& b) {
    return std::tuple(!a.running, -a.priority, a.id) < std::tuple(!b.running, -b.priority, b.id);
  });
  std::map<std::pair<std::string, std::string>, Usage> usage;  // (QOS, user)
  for (const QosLimitJob& job : jobs) {
    auto found = limited_.find(job.qos);
    if (found == limited_.end()) continue;
    const config::QosConfig& qos = *found->second;
    Usage& use = usage[{job.qos, job.user}];
    if (!job.running) {
      // The reference showed MaxJobsPU's reason where both it and MaxTRESPU held a job back.
      std::optional<std::string_view> reason;
      if (overWall(qos, job)) {
        reason = "QOSMaxWallDurationPerJobLimit";
      } else if (qos.max_jobs_per_user && use.jobs + 1 > *qos.max_jobs_per_user) {
        reason = "QOSMaxJobsPerUserLimit";
      } else {
        reason = overTres(qos, use, job);
      }
      if (reason) {
        out.emplace(job.id, *reason);
        continue;
      }
    }
    use.jobs += 1;
    use.cpu += job.cpu;
    use.gpu += job.gpu;
    use.node += job.node;
  }
  return out;
}

std::optional<std::string_view> QosLimits::refusal(const config::QosConfig& qos,
                                                   const QosLimitJob& job, std::uint32_t adding,
                                                   std::uint32_t existing) {
  if (qos.max_submit_jobs_per_user &&
      static_cast<std::uint64_t>(existing) + adding > *qos.max_submit_jobs_per_user) {
    return "QOSMaxSubmitJobPerUserLimit";
  }
  if (!qos.deny_on_limit) return std::nullopt;
  if (overWall(qos, job)) return "QOSMaxWallDurationPerJobLimit";
  return overTres(qos, Usage{}, job);
}

std::string qosLimitsKey(const config::ClusterConfig& config) {
  std::string key;
  for (const config::QosConfig& q : config.qos) {
    if (!q.hasRunLimits()) continue;
    key += q.name + ":" + std::to_string(q.max_jobs_per_user.value_or(UINT32_MAX)) + ":" +
           std::to_string(q.max_wall_min.value_or(-1));
    for (const auto& [name, count] : q.max_tres_per_user) key += ":" + name + "=" + std::to_string(count);
    key += ";";
  }
  return key;
}

}  // namespace drover::jobs
