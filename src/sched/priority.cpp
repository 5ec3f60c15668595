#include "sched/priority.h"

#include <algorithm>

namespace drover::sched {

double AgeFactor::value(const Job& job, const Partition&, const PriorityContext& ctx) const {
  int64_t eligible = std::max(job.request.submitTime, job.request.beginTime);
  if (ctx.maxAgeS <= 0 || ctx.now <= eligible) return 0;
  return std::min(1.0, static_cast<double>(ctx.now - eligible) / static_cast<double>(ctx.maxAgeS));
}

double FairShareFactor::value(const Job& job, const Partition&, const PriorityContext& ctx) const {
  if (!ctx.fairShare) return 0;
  return ctx.fairShare->factor(job.request.account, job.request.user, ctx.now);
}

double JobSizeFactor::value(const Job& job, const Partition&, const PriorityContext& ctx) const {
  const JobRequest& r = job.request;
  double cpus = static_cast<double>(std::max(1, r.ntasks)) * std::max(1, r.cpusPerTask);
  double share = std::min(1.0, cpus / static_cast<double>(std::max<int64_t>(1, ctx.clusterCpus)));
  return ctx.favorSmall ? 1.0 - share : share;
}

double PartitionFactor::value(const Job&, const Partition& p, const PriorityContext& ctx) const {
  return static_cast<double>(p.priorityJobFactor) / std::max(1, ctx.maxPartitionJobFactor);
}

double QosFactor::value(const Job& job, const Partition&, const PriorityContext& ctx) const {
  int top = 0;
  for (const auto& [name, prio] : ctx.qosPriority) top = std::max(top, prio);
  auto it = ctx.qosPriority.find(job.request.qos);
  if (top <= 0 || it == ctx.qosPriority.end()) return 0;
  return static_cast<double>(it->second) / top;
}

MultifactorPriority::MultifactorPriority(const Weights& w) {
  factors_.push_back({std::make_unique<AgeFactor>(), w.age});
  factors_.push_back({std::make_unique<FairShareFactor>(), w.fairShare});
  factors_.push_back({std::make_unique<JobSizeFactor>(), w.jobSize});
  factors_.push_back({std::make_unique<PartitionFactor>(), w.partition});
  factors_.push_back({std::make_unique<QosFactor>(), w.qos});
}

PriorityBreakdown MultifactorPriority::explain(const Job& job, const Partition& partition,
                                               const PriorityContext& ctx) const {
  PriorityBreakdown b;
  for (const auto& f : factors_) {
    double v = f.weight * f.factor->value(job, partition, ctx);
    b.weighted.emplace_back(f.factor->name(), v);
    b.total += v;
  }
  b.nice = job.request.nice;
  b.total -= job.request.nice;
  b.total = std::max(0.0, b.total);
  return b;
}

void MultifactorPriority::apply(Snapshot& snapshot, PriorityContext ctx) const {
  std::map<std::string, const Partition*> parts;
  for (const Partition& p : snapshot.partitions) {
    parts[p.name] = &p;
    ctx.maxPartitionJobFactor = std::max(ctx.maxPartitionJobFactor, p.priorityJobFactor);
  }
  Partition none;
  for (Job& job : snapshot.pending) {
    auto it = parts.find(job.request.partition);
    job.priority = priority(job, it == parts.end() ? none : *it->second, ctx);
  }
}

}  // namespace drover::sched
