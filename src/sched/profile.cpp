#include "sched/profile.h"

#include <algorithm>

namespace drover::sched {

namespace {
Capacity componentMin(const Capacity& a, const Capacity& b) {
  return Capacity{std::min(a.cpus, b.cpus), std::min(a.memoryMb, b.memoryMb),
                  std::min(a.gpus, b.gpus)};
}
}  // namespace

AvailabilityProfile::AvailabilityProfile(int64_t now, const std::vector<Capacity>& total)
    : now_(now) {
  constexpr uint32_t kRoom = 4;  // most nodes hold a running job or two and a few claims
  lines_.resize(total.size());
  arena_.resize(total.size() * kRoom);
  for (size_t i = 0; i < total.size(); ++i) {
    Line& line = lines_[i];
    line.total = total[i];
    line.begin = static_cast<uint32_t>(i * kRoom);
    line.room = kRoom;
    arena_[line.begin] = Step{now, total[i].memoryMb, total[i].cpus, total[i].gpus};
  }
}

bool AvailabilityProfile::rebase(int64_t now) {
  if (now < now_) return false;
  for (const Line& line : lines_) {
    if (line.size > 1 && arena_[line.begin + 1].time <= now) return false;
  }
  for (const Line& line : lines_) arena_[line.begin].time = now;
  now_ = now;
  return true;
}

size_t AvailabilityProfile::stepAt(int node, int64_t t) const {
  const Step* first = steps(node);
  const Step* after = std::upper_bound(first + 1, first + lines_[node].size, t,
                                       [](int64_t v, const Step& s) { return v < s.time; });
  return static_cast<size_t>(after - first) - 1;
}

size_t AvailabilityProfile::splitAt(int node, int64_t t) {
  size_t i = stepAt(node, t);
  if (steps(node)[i].time == t) return i;
  Line& line = lines_[node];
  if (line.size == line.room) {
    const size_t moved = arena_.size();
    arena_.resize(moved + 2 * line.room);
    std::copy_n(arena_.begin() + line.begin, line.size, arena_.begin() + static_cast<std::ptrdiff_t>(moved));
    line.begin = static_cast<uint32_t>(moved);
    line.room *= 2;
  }
  Step* first = arena_.data() + line.begin;
  std::copy_backward(first + i + 1, first + line.size, first + line.size + 1);
  first[i + 1] = first[i];
  first[i + 1].time = t;
  ++line.size;
  return i + 1;
}

void AvailabilityProfile::take(int node, const Capacity& held, int64_t start, int64_t end) {
  size_t from = splitAt(node, start);
  size_t to = lines_[node].size;
  if (end != kNever) to = splitAt(node, end);
  Step* first = arena_.data() + lines_[node].begin;
  for (size_t i = from; i < to; ++i) {
    first[i].cpus -= held.cpus;
    first[i].memoryMb -= held.memoryMb;
    first[i].gpus -= held.gpus;
  }
}

void AvailabilityProfile::addRunning(int node, const Capacity& held, int64_t end) {
  ++lines_[node].version;
  // A job past its expected end still holds its resources; assume it ends right after now.
  take(node, held, now_, std::max(end, now_ + 1));
}

void AvailabilityProfile::claim(int node, const Capacity& held, int64_t start, int64_t end) {
  if (end <= start) return;
  ++lines_[node].version;
  // A span that starts in the past takes capacity from now on.
  start = std::max(start, now_);
  if (end <= start) return;
  take(node, held, start, end);
}

Capacity AvailabilityProfile::minFree(int node, int64_t start, int64_t end) const {
  const Step* line = steps(node);
  const size_t n = lines_[node].size;
  size_t i = stepAt(node, start);
  Capacity lowest = line[i].free();
  for (++i; i < n && line[i].time < end; ++i) {
    lowest = componentMin(lowest, line[i].free());
  }
  return lowest;
}

bool AvailabilityProfile::fits(int node, const Capacity& need, int64_t start,
                               int64_t duration) const {
  const Line& line = lines_[node];
  if (!line.total.covers(need)) return false;
  const int64_t end = duration >= kNever - start ? kNever : start + duration;
  const Step* st = steps(node);
  size_t i = stepAt(node, start);
  if (!st[i].covers(need)) return false;
  for (++i; i < line.size && st[i].time < end; ++i) {
    if (!st[i].covers(need)) return false;
  }
  return true;
}

int64_t AvailabilityProfile::freeFor(int node, const Capacity& need, int64_t start) const {
  const Line& line = lines_[node];
  if (!line.total.covers(need)) return -1;
  const Step* st = steps(node);
  size_t i = stepAt(node, start);
  if (!st[i].covers(need)) return -1;
  for (++i; i < line.size; ++i) {
    if (!st[i].covers(need)) return st[i].time - start;
  }
  return kNever;
}

int64_t AvailabilityProfile::earliestFit(int node, const Capacity& need, int64_t after,
                                         int64_t duration) const {
  const Line& line = lines_[node];
  if (!line.total.covers(need)) return kNever;
  // One sweep over the node's steps from `after`: a candidate start is `after` or a later step
  // at which the need becomes free; it wins once the free run reaches a step `duration` past
  // it. Free capacity only rises at step edges, so no other start can be earlier.
  const Step* st = steps(node);
  size_t i = stepAt(node, after);
  int64_t candidate = st[i].covers(need) ? after : -1;
  for (++i; i < line.size; ++i) {
    const int64_t t = st[i].time;
    if (candidate >= 0 && t - candidate >= duration) return candidate;
    if (!st[i].covers(need)) {
      candidate = -1;
    } else if (candidate < 0) {
      candidate = t;
    }
  }
  return candidate >= 0 ? candidate : kNever;
}

}  // namespace drover::sched
