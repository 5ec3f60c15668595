#include "jobs/job_priority.h"

#include <algorithm>
#include <cmath>

#include "sched/priority.h"

namespace drover::jobs {

std::int64_t weighted(double factor, std::uint32_t weight) {
  return static_cast<std::int64_t>(std::llround(factor * static_cast<double>(weight)));
}

PriorityCalculator::PriorityCalculator(const config::ClusterConfig& config,
                                       const std::vector<sched::Partition>& partitions,
                                       std::int64_t cluster_cpus, const ShareTable& shares)
    : weights_(config.scheduler.priority),
      partitions_(partitions),
      cluster_cpus_(std::max<std::int64_t>(1, cluster_cpus)),
      shares_(shares) {
  for (const auto& p : partitions_) {
    max_partition_factor_ = std::max(max_partition_factor_, p.priorityJobFactor);
  }
}

PriorityFactors PriorityCalculator::compute(const sched::JobRequest& request,
                                            std::int64_t now) const {
  sched::PriorityContext ctx;
  ctx.now = now;
  ctx.maxAgeS = weights_.max_age_s;
  ctx.clusterCpus = cluster_cpus_;
  ctx.maxPartitionJobFactor = max_partition_factor_;
  sched::Job job;
  job.request = request;
  sched::Partition none;
  const sched::Partition* part = &none;
  for (const auto& p : partitions_) {
    if (p.name == request.partition) part = &p;
  }
  PriorityFactors f;
  f.age = sched::AgeFactor().value(job, *part, ctx);
  f.fairshare = shares_.factor(request.account, request.user);
  f.job_size = sched::JobSizeFactor().value(job, *part, ctx);
  f.partition = sched::PartitionFactor().value(job, *part, ctx);
  f.qos = sched::QosFactor().value(job, *part, ctx);
  f.nice = request.nice;
  const double total = weights_.age * f.age + weights_.fairshare * f.fairshare +
                       weights_.job_size * f.job_size + weights_.partition * f.partition +
                       weights_.qos * f.qos - request.nice;
  f.priority = static_cast<std::int64_t>(std::max(0.0, total));
  return f;
}

}  // namespace drover::jobs
