#include "sched/profile.h"

#include <algorithm>

namespace drover::sched {

namespace {
Capacity negate(const Capacity& c) { return Capacity{-c.cpus, -c.memoryMb, -c.gpus}; }
Capacity componentMin(const Capacity& a, const Capacity& b) {
  return Capacity{std::min(a.cpus, b.cpus), std::min(a.memoryMb, b.memoryMb),
                  std::min(a.gpus, b.gpus)};
}
}  // namespace

AvailabilityProfile::AvailabilityProfile(int64_t now, const std::vector<Capacity>& total)
    : now_(now) {
  lines_.reserve(total.size());
  for (const Capacity& c : total) lines_.push_back(Line{c, c, -1, 0});
  arena_.reserve(total.size() * 2);
}

void AvailabilityProfile::addChange(int node, int64_t time, const Capacity& delta) {
  int prev = -1;
  int cur = lines_[node].head;
  while (cur >= 0 && arena_[cur].time < time) {
    prev = cur;
    cur = arena_[cur].next;
  }
  if (cur >= 0 && arena_[cur].time == time) {
    arena_[cur].delta += delta;
    return;
  }
  int fresh = static_cast<int>(arena_.size());
  arena_.push_back(Change{time, delta, cur});
  if (prev < 0) {
    lines_[node].head = fresh;
  } else {
    arena_[prev].next = fresh;
  }
}

void AvailabilityProfile::addRunning(int node, const Capacity& held, int64_t end) {
  lines_[node].freeNow -= held;
  ++lines_[node].version;
  // A job past its expected end still holds its resources; assume it ends right after now.
  addChange(node, std::max(end, now_ + 1), held);
}

void AvailabilityProfile::claim(int node, const Capacity& held, int64_t start, int64_t end) {
  if (end <= start) return;
  ++lines_[node].version;
  if (start <= now_) {
    lines_[node].freeNow -= held;
  } else {
    addChange(node, start, negate(held));
  }
  if (end != kNever) addChange(node, end, held);
}

Capacity AvailabilityProfile::minFree(int node, int64_t start, int64_t end) const {
  const Line& line = lines_[node];
  Capacity value = line.freeNow;
  int c = line.head;
  for (; c >= 0 && arena_[c].time <= start; c = arena_[c].next) value += arena_[c].delta;
  Capacity lowest = value;
  for (; c >= 0 && arena_[c].time < end; c = arena_[c].next) {
    value += arena_[c].delta;
    lowest = componentMin(lowest, value);
  }
  return lowest;
}

bool AvailabilityProfile::fits(int node, const Capacity& need, int64_t start,
                               int64_t duration) const {
  if (!lines_[node].total.covers(need)) return false;
  int64_t end = duration >= kNever - start ? kNever : start + duration;
  return minFree(node, start, end).covers(need);
}

int64_t AvailabilityProfile::earliestFit(int node, const Capacity& need, int64_t after,
                                         int64_t duration) const {
  const Line& line = lines_[node];
  if (!line.total.covers(need)) return kNever;
  // One sweep over the node's changes: a candidate start is `after` or a later change at which
  // the need becomes free; it wins once the free run reaches a change `duration` past it.
  // Resources only rise at changes, so no other start can be earlier.
  Capacity value = line.freeNow;
  int c = line.head;
  for (; c >= 0 && arena_[c].time <= after; c = arena_[c].next) value += arena_[c].delta;
  int64_t candidate = value.covers(need) ? after : -1;
  for (; c >= 0; c = arena_[c].next) {
    const int64_t t = arena_[c].time;
    if (candidate >= 0 && t - candidate >= duration) return candidate;
    value += arena_[c].delta;
    if (!value.covers(need)) {
      candidate = -1;
    } else if (candidate < 0) {
      candidate = t;
    }
  }
  return candidate >= 0 ? candidate : kNever;
}

}  // namespace drover::sched
