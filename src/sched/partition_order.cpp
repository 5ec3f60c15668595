#include "sched/partition_order.h"

#include <algorithm>
#include <tuple>

namespace drover::sched {

void orderPartitions(JobRequest& request, const std::vector<Partition>& partitions) {
  if (request.partitions.size() < 2) return;
  auto key = [&](const std::string& name) {
    auto it = std::find_if(partitions.begin(), partitions.end(),
                           [&](const Partition& p) { return p.name == name; });
    if (it == partitions.end()) return std::tuple(1, 0, 0);
    return std::tuple(0, -it->priorityTier, -it->priorityJobFactor);
  };
  std::stable_sort(request.partitions.begin(), request.partitions.end(),
                   [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  request.partition = request.partitions.front();
}

}  // namespace drover::sched
