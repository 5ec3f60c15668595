#pragma once
// Lookups over the configured nodes and partitions that every pass needs (names to indices,
// sorted features, partition membership, GPU type masks). Building it costs O(nodes); a driver
// that keeps one between passes (the controller, the simulator) rebuilds it only when nodes or
// partitions change, so a pass after one submission does not pay for it again.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/profile.h"
#include "sched/types.h"

namespace drover::sched {

class ClusterIndex {
 public:
  ClusterIndex(const std::vector<Node>& nodes, const std::vector<Partition>& partitions);

  int nodeCount() const { return static_cast<int>(totals_.size()); }
  int node(const std::string& name) const;       // -1 if unknown
  int partition(const std::string& name) const;  // -1 if unknown
  // Usable nodes of a partition in hostlist order.
  const std::vector<int>& partitionNodes(int p) const { return partNodes_[p]; }
  bool inPartition(int node, int p) const;
  const std::vector<std::string>& features(int node) const { return features_[node]; }
  // GPU indices of the given type on the node ("" = all).
  uint64_t gpuMask(int node, const std::string& type) const;
  const std::vector<Capacity>& totals() const { return totals_; }
  int maxGpus() const { return maxGpus_; }
  int largestCpus() const { return largestCpus_; }
  bool uniformWeight() const { return uniformWeight_; }

 private:
  std::unordered_map<std::string, int> nodeByName_;
  std::unordered_map<std::string, int> partByName_;
  std::vector<std::vector<int>> partNodes_;
  std::vector<std::vector<int>> nodeParts_;
  std::vector<std::vector<std::string>> features_;
  std::vector<std::vector<std::string>> gpuTypes_;
  std::vector<Capacity> totals_;
  std::vector<uint64_t> allGpus_;
  int maxGpus_ = 0;
  int largestCpus_ = 1;
  bool uniformWeight_ = true;
};

}  // namespace drover::sched
