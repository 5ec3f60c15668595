#include "sched/task_layout.h"

#include <algorithm>
#include <cstdint>

namespace drover::sched {

bool laysOutTasks(const JobRequest& r, int nodes, bool wholeNode) {
  return r.ntasksGiven && r.ntasksPerNode <= 0 && !wholeNode && nodes > 1 && r.ntasks >= nodes;
}

namespace {

// Round-robin dealing of `ntasks` over nodes holding at most `room[i]` each (sum >= ntasks,
// every room >= 1, ntasks >= nodes): each node gets min(room, L) for the highest level L
// that deals no more than ntasks, and the rest one more each, the earliest nodes first.
std::vector<int> dealRoundRobin(int ntasks, const std::vector<int>& room) {
  auto dealt = [&](int level) {
    std::int64_t sum = 0;
    for (int r : room) sum += std::min(r, level);
    return sum;
  };
  int lo = 1, hi = *std::max_element(room.begin(), room.end());
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (dealt(mid) <= ntasks) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  std::vector<int> out(room.size());
  std::int64_t extra = ntasks - dealt(lo);
  for (std::size_t i = 0; i < room.size(); ++i) {
    out[i] = std::min(room[i], lo);
    if (extra > 0 && room[i] > lo) {
      ++out[i];
      --extra;
    }
  }
  return out;
}

}  // namespace

std::vector<int> blockLayout(int ntasks, int nodes, int min_nodes,
                             const std::function<bool(int, int)>& fits) {
  std::vector<int> room(static_cast<size_t>(std::max(0, nodes)), 0);
  if (room.empty()) return room;
  int left = ntasks;
  for (int i = 0; i < nodes; ++i) {
    if (left <= 0) {
      room[static_cast<size_t>(i)] = 1;  // a node the range added: one task
      continue;
    }
    const int later = nodes - i - 1;
    // The most this node may take: all that is left but one task for each later node the
    // job needs at least.
    const int reserved = std::max(0, std::min(later, min_nodes - i - 1));
    const int most = std::max(1, left - reserved);
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
    room[static_cast<size_t>(i)] = later == 0 ? std::max(1, left) : lo;
    left -= room[static_cast<size_t>(i)];
  }
  return dealRoundRobin(std::max(ntasks, nodes), room);
}

}  // namespace drover::sched
