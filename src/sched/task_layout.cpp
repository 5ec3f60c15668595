#include "sched/task_layout.h"

#include <algorithm>

namespace drover::sched {

bool laysOutTasks(const JobRequest& r, int nodes, bool wholeNode) {
  return r.ntasksGiven && r.ntasksPerNode <= 0 && !wholeNode && nodes > 1 && r.ntasks >= nodes;
}

std::vector<int> blockLayout(int ntasks, int nodes, const std::function<bool(int, int)>& fits) {
  std::vector<int> out(static_cast<size_t>(std::max(0, nodes)), 0);
  int left = ntasks;
  for (int i = 0; i < nodes; ++i) {
    const int later = nodes - i - 1;
    // The most this node may take: all that is left but one task for each later node.
    const int most = std::max(1, left - later);
    // Largest t in [1, most] that fits (1 is taken even if the caller's promise is broken, so
    // every node keeps a task); the last node takes what is left.
    int lo = 1, hi = most;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (fits(i, mid)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    out[static_cast<size_t>(i)] = later == 0 ? std::max(1, left) : lo;
    left -= out[static_cast<size_t>(i)];
  }
  return out;
}

}  // namespace drover::sched
