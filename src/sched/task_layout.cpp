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

// The rooms of the candidates not yet walked past, counted by value (capped at the job's task
// count), so that the sum of the k largest costs one sweep over the values.
class RoomsAhead {
 public:
  RoomsAhead(const std::vector<int>& rooms, int cap) : cap_(std::max(1, cap)), count_(cap_ + 1, 0) {
    for (int r : rooms) ++count_[clamp(r)];
    size_ = static_cast<int>(rooms.size());
  }
  void pass(int room) {
    --count_[clamp(room)];
    --size_;
  }
  int size() const { return size_; }
  // Whether the `k` of them that hold the most (all, when fewer) hold `tasks` together.
  bool hold(int64_t tasks, int k) const {
    std::int64_t sum = 0;
    for (int v = cap_; v >= 1 && k > 0 && sum < tasks; --v) {
      const int take = std::min(count_[static_cast<size_t>(v)], k);
      sum += std::int64_t{take} * v;
      k -= take;
    }
    return sum >= tasks;
  }

 private:
  int clamp(int room) const { return std::clamp(room, 1, cap_); }
  int cap_;
  std::vector<int> count_;
  int size_ = 0;
};

}  // namespace

std::vector<int> walkNodes(int ntasks, int keep, int min_nodes, int max_nodes,
                           const std::vector<int>& rooms, bool extend) {
  RoomsAhead ahead(rooms, ntasks);
  // Whether the nodes ahead can finish a start that took `taken` nodes and has `left` tasks
  // to place: enough of them for the minimum, and the ones allowed hold what is left.
  auto finishable = [&](int taken, int left) {
    return ahead.size() >= min_nodes - taken &&
           (left <= 0 || ahead.hold(left, max_nodes - taken));
  };
  if (ntasks < 1 || max_nodes < min_nodes || !finishable(0, ntasks)) return {};
  // Taking the most a node holds keeps the rest finishable whenever passing it would not, and
  // passing it keeps the walk finishable otherwise: so the walk never dead-ends.
  std::vector<int> taken;
  int left = ntasks;
  for (size_t i = 0; i < rooms.size() && static_cast<int>(taken.size()) < max_nodes; ++i) {
    ahead.pass(rooms[i]);
    const int count = static_cast<int>(taken.size());
    if (left == 0) {
      if (!extend && count >= min_nodes) break;
      taken.push_back(static_cast<int>(i));  // a node the range adds: one task dealt to it
      continue;
    }
    const int reserved = std::max(0, keep - count - 1);
    const int share = std::max(1, std::min(rooms[i], left - reserved));
    if (finishable(count + 1, left - share)) {
      taken.push_back(static_cast<int>(i));
      left -= share;
    }
  }
  if (left > 0 || static_cast<int>(taken.size()) < min_nodes) return {};
  return taken;
}

int fewestNodesHolding(int ntasks, int min_nodes, int max_nodes, std::vector<int> rooms) {
  std::sort(rooms.begin(), rooms.end(), std::greater<>());
  std::int64_t held = 0;
  for (int k = 1; k <= std::min(max_nodes, static_cast<int>(rooms.size())); ++k) {
    held += rooms[static_cast<size_t>(k - 1)];
    if (k >= min_nodes && held >= ntasks) return k;
  }
  return 0;
}

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
