#include "jobs/job_priority.h"

#include <algorithm>
#include <cmath>

#include "config/association_tree.h"
#include "sched/priority.h"

namespace drover::jobs {

std::int64_t weighted(double factor, std::uint32_t weight) {
  return static_cast<std::int64_t>(std::llround(factor * static_cast<double>(weight)));
}

double JobTres::get(const std::string& name) const {
  if (name == "cpu") return cpu;
  if (name == "mem") return mem;
  if (name == "node") return node;
  if (name == "gres/gpu") return gpu;
  return 0;
}

JobTres jobTres(const sched::JobRequest& r, double mem_per_node_mb) {
  JobTres t;
  const int ntasks = std::max(1, r.ntasks);
  double nodes = std::max(1, r.minNodes);
  if (r.ntasksPerNode > 0) {
    nodes = std::max(nodes, std::ceil(static_cast<double>(ntasks) / r.ntasksPerNode));
  }
  t.node = nodes;
  t.cpu = static_cast<double>(ntasks) * std::max(1, r.cpusPerTask);
  if (r.gpusPerJob > 0) {
    t.gpu = r.gpusPerJob;
  } else if (r.gpusPerNode > 0) {
    t.gpu = static_cast<double>(r.gpusPerNode) * nodes;
  } else if (r.gpusPerTask > 0) {
    t.gpu = static_cast<double>(r.gpusPerTask) * ntasks;
  }
  t.cpu = std::max(t.cpu, r.cpusPerGpu * t.gpu);
  if (r.memPerNodeMb > 0) {
    t.mem = static_cast<double>(r.memPerNodeMb) * nodes;
  } else if (r.memPerCpuMb > 0) {
    t.mem = static_cast<double>(r.memPerCpuMb) * t.cpu;
  } else if (r.memPerGpuMb > 0) {
    t.mem = static_cast<double>(r.memPerGpuMb) * t.gpu;
  } else {
    t.mem = mem_per_node_mb * nodes;
  }
  return t;
}

double jobSizeFactor(const JobTres& job, const JobTres& cluster, bool favor_small) {
  const double nodes = std::min(1.0, job.node / std::max(1.0, cluster.node));
  const double cpus = std::min(1.0, job.cpu / std::max(1.0, cluster.cpu));
  const double size = (nodes + cpus) / 2;
  return favor_small ? 1.0 - size : size;
}

std::map<std::string, double> assocFactors(const config::ClusterConfig& config) {
  std::map<std::string, double> prio;
  double top = 0;
  for (const auto& node : config::associationTree(config)) {
    if (!node.user.empty() || node.parent < 0) continue;   // accounts below root
    const double p = static_cast<double>(std::max<std::int64_t>(0, node.priority));
    prio[node.account] = p;
    top = std::max(top, p);
  }
  if (top <= 0) return {};
  for (auto& [name, p] : prio) p /= top;
  return prio;
}

std::map<std::string, double> qosFactors(const config::ClusterConfig& config) {
  std::map<std::string, double> factors;
  double top = 0;
  for (const config::QosConfig& q : config.qos) {
    factors[q.name] = static_cast<double>(q.priority);
    top = std::max(top, static_cast<double>(q.priority));
  }
  if (top <= 0) return {};
  for (auto& [name, f] : factors) f /= top;
  return factors;
}

PriorityCalculator::PriorityCalculator(const config::ClusterConfig& config,
                                       const std::vector<sched::Partition>& partitions,
                                       std::int64_t cluster_cpus, const ShareTable& shares)
    : weights_(config.scheduler.priority),
      partitions_(partitions),
      cluster_cpus_(std::max<std::int64_t>(1, cluster_cpus)),
      shares_(shares),
      default_mem_per_cpu_mb_(config.scheduler.default_mem_per_cpu_mb),
      assoc_(assocFactors(config)),
      qos_(qosFactors(config)) {
  for (const auto& p : partitions_) {
    max_partition_factor_ = std::max(max_partition_factor_, p.priorityJobFactor);
  }
  std::map<std::string, const config::NodeConfig*> nodes;
  for (const auto& n : config.nodes) {
    nodes[n.name] = &n;
    cluster_.node += 1;
    cluster_.mem += static_cast<double>(n.real_memory_mb);
    cluster_.gpu += n.gpus.count;
  }
  cluster_.cpu = static_cast<double>(cluster_cpus_);
  for (const auto& p : config.partitions) {
    JobTres& t = partition_[p.name];
    for (const auto& name : p.nodes) {
      auto it = nodes.find(name);
      if (it == nodes.end()) continue;
      t.node += 1;
      t.cpu += it->second->cpus;
      t.mem += static_cast<double>(it->second->real_memory_mb);
      t.gpu += it->second->gpus.count;
    }
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
  auto pt = partition_.find(request.partition);
  const JobTres& totals = pt != partition_.end() && pt->second.node > 0 ? pt->second : cluster_;
  JobTres asked = jobTres(request, totals.mem / std::max(1.0, totals.node));
  if (request.memPerNodeMb == 0 && request.memPerCpuMb == 0 && request.memPerGpuMb == 0 &&
      default_mem_per_cpu_mb_ > 0) {
    asked.mem = static_cast<double>(default_mem_per_cpu_mb_) * asked.cpu;  // DefMemPerCPU
  }

  PriorityFactors f;
  f.age = sched::AgeFactor().value(job, *part, ctx);
  if (auto it = assoc_.find(request.account); it != assoc_.end()) f.assoc = it->second;
  f.fairshare = shares_.factor(request.account, request.user);
  f.job_size = jobSizeFactor(asked, cluster_, weights_.favor_small);
  f.partition = sched::PartitionFactor().value(job, *part, ctx);
  if (auto it = qos_.find(request.qos); it != qos_.end()) f.qos = it->second;
  f.nice = request.nice;
  double total = weights_.age * f.age + weights_.assoc * f.assoc +
                 weights_.fairshare * f.fairshare + weights_.job_size * f.job_size +
                 weights_.partition * f.partition + weights_.qos * f.qos - request.nice;
  for (const auto& [name, weight] : weights_.tres) {
    const double have = totals.get(name);
    const double share = have > 0 ? std::min(1.0, asked.get(name) / have) : 0.0;
    f.tres.emplace_back(name, share);
    total += static_cast<double>(weight) * share;
  }
  f.priority = static_cast<std::int64_t>(std::max(0.0, total));
  return f;
}

}  // namespace drover::jobs
