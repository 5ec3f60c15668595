#pragma once
// Availability profile: each node's free resources now and how they change over future time
// (running jobs ending, reservations claimed). Backfill asks it when a request fits; a claim
// lowers the free capacity over a span, so later (lower-priority) requests cannot take it.
// Each node keeps its own short, sorted list of changes, so a query costs the changes on that
// node, never nodes x jobs. The lists live in one arena so building a profile for a pass costs
// a couple of allocations, not one per node.
#include <cstdint>
#include <limits>
#include <vector>

namespace drover::sched {

inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Capacity {
  int cpus = 0;
  int64_t memoryMb = 0;
  int gpus = 0;

  bool covers(const Capacity& need) const {
    return cpus >= need.cpus && memoryMb >= need.memoryMb && gpus >= need.gpus;
  }
  Capacity& operator+=(const Capacity& o) {
    cpus += o.cpus;
    memoryMb += o.memoryMb;
    gpus += o.gpus;
    return *this;
  }
  Capacity& operator-=(const Capacity& o) {
    cpus -= o.cpus;
    memoryMb -= o.memoryMb;
    gpus -= o.gpus;
    return *this;
  }
  bool operator==(const Capacity&) const = default;
};

class AvailabilityProfile {
 public:
  // total[i] is node i's configured capacity; everything starts free.
  AvailabilityProfile(int64_t now, const std::vector<Capacity>& total);

  int64_t now() const { return now_; }
  int size() const { return static_cast<int>(lines_.size()); }
  const Capacity& total(int node) const { return lines_[node].total; }
  const Capacity& freeNow(int node) const { return lines_[node].freeNow; }

  // A running job holds `held` on the node until `end` (clamped to just after now).
  void addRunning(int node, const Capacity& held, int64_t end);
  // Reserve `held` on the node over [start, end); start <= now takes it now.
  void claim(int node, const Capacity& held, int64_t start, int64_t end);
  // Componentwise minimum of free capacity over [start, end).
  Capacity minFree(int node, int64_t start, int64_t end) const;
  bool fits(int node, const Capacity& need, int64_t start, int64_t duration) const;
  // Earliest start >= after at which `need` stays free for `duration`; kNever if none.
  int64_t earliestFit(int node, const Capacity& need, int64_t after, int64_t duration) const;
  // Counts addRunning/claim calls on the node, so indexes over the profile (FitIndex) can tell
  // which of their entries are stale.
  uint32_t version(int node) const { return lines_[node].version; }

 private:
  struct Change {
    int64_t time;
    Capacity delta;
    int next;  // next change on the same node, later in time; -1 ends the list
  };
  struct Line {
    Capacity total;
    Capacity freeNow;
    int head = -1;
    uint32_t version = 0;
  };
  void addChange(int node, int64_t time, const Capacity& delta);

  int64_t now_;
  std::vector<Line> lines_;
  std::vector<Change> arena_;
};

}  // namespace drover::sched
