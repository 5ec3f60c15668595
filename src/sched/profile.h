#pragma once
// Availability profile: each node's free resources now and how they change over future time
// (running jobs ending, reservations claimed). Backfill asks it when a request fits; a claim
// lowers the free capacity over a span, so later (lower-priority) requests cannot take it.
// Each node keeps its own short step function (free capacity from each change time on) in one
// contiguous sorted slice: a query finds its start by binary search and reads forward through
// adjacent memory, never a chain of pointers, and never nodes x jobs. Conservative backfill over
// a long queue asks millions of such queries per pass, so their constant factor is the pass.
#include <cstddef>
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
  Capacity freeNow(int node) const { return steps(node)->free(); }

  // A running job holds `held` on the node until `end` (clamped to just after now).
  void addRunning(int node, const Capacity& held, int64_t end);
  // Reserve `held` on the node over [start, end); start <= now takes it now.
  void claim(int node, const Capacity& held, int64_t start, int64_t end);
  // Componentwise minimum of free capacity over [start, end).
  Capacity minFree(int node, int64_t start, int64_t end) const;
  bool fits(int node, const Capacity& need, int64_t start, int64_t duration) const;
  // The longest duration for which fits(node, need, start, duration) holds: -1 if `need` is not
  // free at start, kNever if it stays free for good.
  int64_t freeFor(int node, const Capacity& need, int64_t start) const;
  // Earliest start >= after at which `need` stays free for `duration`; kNever if none.
  int64_t earliestFit(int node, const Capacity& need, int64_t after, int64_t duration) const;
  // Counts addRunning/claim calls on the node, so indexes over the profile (FitIndex) can tell
  // which of their entries are stale.
  uint32_t version(int node) const { return lines_[node].version; }
  // Moves now to `now` when no node's free capacity changes in (now, `now`]: the profile then
  // answers every query as one built at `now` would. False (and unchanged) otherwise.
  bool rebase(int64_t now);
  // Bytes held (steps and per-node slices), for memory accounting.
  size_t bytes() const { return arena_.capacity() * sizeof(Step) + lines_.capacity() * sizeof(Line); }

 private:
  // Free capacity over [time, next step's time); the first step starts at now.
  // 24 bytes instead of time + Capacity's padded 24: a query reads a third less memory.
  struct Step {
    int64_t time;
    int64_t memoryMb;
    int cpus, gpus;
    Capacity free() const { return Capacity{cpus, memoryMb, gpus}; }
    bool covers(const Capacity& need) const {
      return cpus >= need.cpus && memoryMb >= need.memoryMb && gpus >= need.gpus;
    }
  };
  // A node's steps are a slice of one arena: a profile costs a few allocations, not one per
  // node (passes build one per event, thousands of times in a replay). A slice that fills up
  // moves to the arena's end with twice the room; the space it leaves is not reused.
  struct Line {
    Capacity total;
    uint32_t begin = 0, size = 1, room = 0;
    uint32_t version = 0;
  };
  const Step* steps(int node) const { return arena_.data() + lines_[node].begin; }
  // Index (within the node's slice) of the step in effect at t; the first one for t before now.
  size_t stepAt(int node, int64_t t) const;
  // Splits the step in effect at t so that a step starts exactly at t; returns its index.
  size_t splitAt(int node, int64_t t);
  // Takes `held` away over [start, end) (end may be kNever); start >= now.
  void take(int node, const Capacity& held, int64_t start, int64_t end);

  int64_t now_;
  std::vector<Line> lines_;
  std::vector<Step> arena_;
};

}  // namespace drover::sched
