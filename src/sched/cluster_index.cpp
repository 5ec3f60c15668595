#include "sched/cluster_index.h"

#include <algorithm>

namespace drover::sched {

ClusterIndex::ClusterIndex(const std::vector<Node>& nodes,
                           const std::vector<Partition>& partitions) {
  const int n = static_cast<int>(nodes.size());
  for (size_t p = 0; p < partitions.size(); ++p) {
    partByName_.emplace(partitions[p].name, static_cast<int>(p));
  }
  partNodes_.assign(partitions.size(), {});
  nodeParts_.assign(n, {});
  features_.assign(n, {});
  gpuTypes_.assign(n, {});
  totals_.reserve(n);
  nodeByName_.reserve(n);
  for (int i = 0; i < n; ++i) {
    const Node& node = nodes[i];
    nodeByName_.emplace(node.name, i);
    features_[i] = node.features;
    std::sort(features_[i].begin(), features_[i].end());
    gpuTypes_[i] = node.gpuTypes;
    for (const std::string& pn : node.partitions) {
      auto it = partByName_.find(pn);
      if (it == partByName_.end()) continue;
      nodeParts_[i].push_back(it->second);
      if (node.usable) partNodes_[it->second].push_back(i);
    }
    int gpus = static_cast<int>(std::min<size_t>(node.gpuTypes.size(), 64));
    totals_.push_back(Capacity{node.cpus, node.memoryMb, gpus});
    allGpus_.push_back(gpus >= 64 ? ~uint64_t{0} : (uint64_t{1} << gpus) - 1);
    maxGpus_ = std::max(maxGpus_, gpus);
    largestCpus_ = std::max(largestCpus_, node.cpus);
    if (node.weight != nodes[0].weight) uniformWeight_ = false;
  }
  for (auto& list : partNodes_) {
    std::sort(list.begin(), list.end(),
              [&](int a, int b) { return nodes[a].index < nodes[b].index; });
  }
}

int ClusterIndex::node(const std::string& name) const {
  auto it = nodeByName_.find(name);
  return it == nodeByName_.end() ? -1 : it->second;
}

int ClusterIndex::partition(const std::string& name) const {
  auto it = partByName_.find(name);
  return it == partByName_.end() ? -1 : it->second;
}

bool ClusterIndex::inPartition(int node, int p) const {
  const auto& parts = nodeParts_[node];
  return std::find(parts.begin(), parts.end(), p) != parts.end();
}

uint64_t ClusterIndex::gpuMask(int node, const std::string& type) const {
  if (type.empty()) return allGpus_[node];
  const auto& types = gpuTypes_[node];
  uint64_t mask = 0;
  for (size_t i = 0; i < types.size() && i < 64; ++i) {
    if (type.empty() || types[i] == type) mask |= uint64_t{1} << i;
  }
  return mask;
}

}  // namespace drover::sched
