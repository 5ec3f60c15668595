#pragma once
// A job's multifactor priority as the controller computes it: Slurm's weighted sum of age,
// fair-share (from the ShareTable), job size, partition and QOS factors, minus nice, with the
// weights of cluster.conf. The factors are kept with the job so sprio shows the numbers the
// scheduler ranked it by.
#include <cstdint>
#include <string>
#include <vector>

#include "drover/config.h"
#include "jobs/fair_share.h"
#include "sched/types.h"

namespace drover::jobs {

// Normalised factors in [0, 1] and the resulting priority.
struct PriorityFactors {
  double age = 0;
  double fairshare = 0;
  double job_size = 0;
  double partition = 0;
  double qos = 0;
  int nice = 0;
  std::int64_t priority = 0;
};

class PriorityCalculator {
 public:
  PriorityCalculator(const config::ClusterConfig& config,
                     const std::vector<sched::Partition>& partitions, std::int64_t cluster_cpus,
                     const ShareTable& shares);
  PriorityFactors compute(const sched::JobRequest& request, std::int64_t now) const;

 private:
  const config::PriorityWeights& weights_;
  const std::vector<sched::Partition>& partitions_;
  std::int64_t cluster_cpus_;
  int max_partition_factor_ = 1;
  const ShareTable& shares_;
};

// weight x factor as sprio prints it (Slurm rounds to the nearest integer).
std::int64_t weighted(double factor, std::uint32_t weight);

}  // namespace drover::jobs
