#pragma once
// A job's multifactor priority as the controller computes it: Slurm's weighted sum of age,
// association, fair-share (from the ShareTable), job size, partition, QOS and TRES factors,
// minus nice, with the weights of cluster.conf. The factors are kept with the job so sprio
// shows the numbers the scheduler ranked it by. Slurm's site factor comes from a site_factor
// plugin (22.05 has no command that sets it); Drover has none, so it is always 0.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "drover/config.h"
#include "jobs/fair_share.h"
#include "sched/types.h"

namespace drover::jobs {

// Normalised factors in [0, 1] and the resulting priority.
struct PriorityFactors {
  double age = 0;
  double assoc = 0;
  double fairshare = 0;
  double job_size = 0;
  double partition = 0;
  double qos = 0;
  // One per PriorityWeightTRES entry, in its order: the job's share of its partition's TRES.
  std::vector<std::pair<std::string, double>> tres;
  int nice = 0;
  std::int64_t priority = 0;
};

// What a job asks for, counted as TRES (cpu, mem in MB, node, gres/gpu).
struct JobTres {
  double cpu = 0;
  double mem = 0;
  double node = 0;
  double gpu = 0;
  double get(const std::string& name) const;
};
// The request's TRES; `mem_per_node_mb` stands in when the job gives no memory (Slurm's
// default without DefMemPerCPU is the whole node).
JobTres jobTres(const sched::JobRequest& request, double mem_per_node_mb);

// Slurm's job size factor: the mean of the job's share of the cluster's nodes and of its CPUs
// (each at most 1); with PriorityFavorSmall, one minus that.
double jobSizeFactor(const JobTres& job, const JobTres& cluster, bool favor_small);

// The association factor of each account: its Priority (inherited from the nearest ancestor
// that sets one) over the largest; empty when no account sets a priority.
std::map<std::string, double> assocFactors(const config::ClusterConfig& config);

// The QOS factor of each QOS: its priority over the largest QOS priority (Slurm's
// PriorityWeightQOS factor); empty when every QOS's priority is 0.
std::map<std::string, double> qosFactors(const config::ClusterConfig& config);

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
  std::uint64_t default_mem_per_cpu_mb_ = 0;   // 0: a job without --mem takes whole nodes
  JobTres cluster_;                            // configured totals (cpu from the live nodes)
  std::map<std::string, JobTres> partition_;   // configured totals per partition
  std::map<std::string, double> assoc_;
  std::map<std::string, double> qos_;
};

// weight x factor as sprio prints it (Slurm rounds to the nearest integer).
std::int64_t weighted(double factor, std::uint32_t weight);

}  // namespace drover::jobs
