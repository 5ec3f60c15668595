#include "sched/fit_index.h"

#include <algorithm>
#include <bit>

namespace drover::sched {

FitIndex::FitIndex(const AvailabilityProfile& profile, const std::vector<int>& nodes,
                   const Demand& demand, int64_t probeDuration)
    : demand_(demand), probe_(probeDuration), versionOf_(profile.size(), 0) {
  for (int node : nodes) {
    versionOf_[node] = profile.version(node);
    heap_.push_back(Entry{bound(profile, node), node});
  }
  for (size_t i = heap_.size(); i-- > 0;) siftDown(i);
}

// A 4-ary min-heap: four 16-byte children share a cache line, so a sift touches half as many
// lines as a binary heap's. Searches sift millions of times per conservative pass.
void FitIndex::siftUp(size_t i) {
  const Entry e = heap_[i];
  while (i > 0) {
    size_t parent = (i - 1) / 4;
    if (!(e < heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

// Entries sifted down are re-bounded ones and the heap's last (both usually late), so walk the
// hole to a leaf along the smaller children first and then sift the entry up from there: one
// comparison per level fewer than stopping on the way down (Floyd).
void FitIndex::siftDown(size_t i) {
  const Entry e = heap_[i];
  const size_t n = heap_.size();
  const size_t top = i;
  while (true) {
    size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t best = first;
    for (size_t c = first + 1; c < std::min(first + 4, n); ++c) {
      if (heap_[c] < heap_[best]) best = c;
    }
    heap_[i] = heap_[best];
    i = best;
  }
  while (i > top) {
    size_t parent = (i - 1) / 4;
    if (!(e < heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void FitIndex::push(Entry e) {
  heap_.push_back(e);
  siftUp(heap_.size() - 1);
}

FitIndex::Entry FitIndex::pop() {
  Entry top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) siftDown(0);
  return top;
}

int64_t FitIndex::durationClass(int64_t duration) {
  if (duration <= 1) return 1;
  // Classes span a factor of 8: every class has an index per shape, and every claim makes its
  // node stale in each of them, so fewer, slightly looser indexes cost less than many tight
  // ones (measured on the 100,000-job conservative bench: factor 2 1.6 s, 4 1.25 s, 8 1.15 s,
  // 16 1.5 s, one class 3.5 s).
  int bit = 63 - std::countl_zero(static_cast<uint64_t>(duration));
  return int64_t{1} << (bit - bit % 3);
}

int64_t FitIndex::bound(const AvailabilityProfile& profile, int node) const {
  return profile.earliestFit(node, needOn(profile, node), profile.now(), probe_);
}

// Claims only take capacity away, so nothing before the old bound can fit now either: the new
// bound is the earliest fit from the old one, which skips the start of the node's steps.
int64_t FitIndex::rebound(const AvailabilityProfile& profile, const Entry& e) const {
  return profile.earliestFit(e.node, needOn(profile, e.node), e.bound, probe_);
}

std::optional<FitIndex::Entry> FitIndex::popFreshUpTo(const AvailabilityProfile& profile,
                                                      int64_t t) {
  while (!heap_.empty() && heap_.front().bound <= t) {
    Entry& top = heap_.front();
    if (versionOf_[top.node] != profile.version(top.node)) {
      // Stale: re-bound it (never lower); it comes round again if still <= t.
      versionOf_[top.node] = profile.version(top.node);
      const int64_t fresh = rebound(profile, top);
      if (fresh != top.bound) {
        top.bound = fresh;
        siftDown(0);
        continue;
      }
    }
    return pop();
  }
  return std::nullopt;
}

// The search that asks every node (each node's earliest fit, take the k-th smallest t, keep the
// nodes that fit at t, move the others on to their next fit after t, repeat) converges to the
// smallest t at which k nodes fit, and returns all nodes fitting there. Here a node's value
// starts as its (possibly stale) bound, a lower bound on every time it could fit, and becomes
// exact only once the k-th smallest value reaches it; nodes whose bound lies past t cannot fit
// at t, so they are never looked at. Values stay lower bounds throughout, so the result is the
// same t and the same nodes.
int64_t FitIndex::earliestStart(const AvailabilityProfile& profile, int k, int64_t duration,
                                std::vector<int>& ready, int64_t latest) {
  if (k == 1) return earliestStartOne(profile, duration, ready, latest);
  active_.clear();
  // Every node taken off the heap goes back with its (still valid) bound, whatever the answer.
  auto finish = [&](int64_t answer) {
    for (const Active& a : active_) push(Entry{a.bound, a.node});
    active_.clear();
    return answer;
  };
  while (true) {
    // t: the k-th smallest value over the active nodes and the heap's first k (stale bounds
    // included: they are lower bounds too).
    values_.clear();
    for (const Active& a : active_) values_.push_back(a.value);
    peeked_.clear();
    for (int c = 0; c < k && !heap_.empty(); ++c) peeked_.push_back(pop());
    for (const Entry& e : peeked_) {
      values_.push_back(e.bound);
      push(e);
    }
    if (static_cast<int>(values_.size()) < k) return finish(kNever);
    std::nth_element(values_.begin(), values_.begin() + (k - 1), values_.end());
    const int64_t t = values_[k - 1];
    if (t == kNever || t > latest) return finish(kNever);
    while (const auto e = popFreshUpTo(profile, t)) {
      // A fresh bound probed with the search's own duration is the node's true earliest fit.
      active_.push_back(Active{e->bound, e->bound, e->node, probe_ == duration});
    }
    ready.clear();
    for (Active& a : active_) {
      if (a.value > t) continue;
      Capacity need = needOn(profile, a.node);
      if ((a.exact && a.value == t) || profile.fits(a.node, need, t, duration)) {
        ready.push_back(a.node);
      } else {
        a.value = profile.earliestFit(a.node, need, t, duration);
        a.exact = true;
      }
    }
    if (static_cast<int>(ready.size()) >= k) return finish(t);
  }
}

// The same search for k = 1. t is the smallest value over the candidates and the heap; a
// candidate valued t either fits at t (then it is ready) or moves on to its exact next fit.
int64_t FitIndex::earliestStartOne(const AvailabilityProfile& profile, int64_t duration,
                                   std::vector<int>& ready, int64_t latest) {
  // Usually every node at the front of the heap fits at its bound (many nodes tie: they free
  // up when the same job ends). Then the answer is read off the heap in place: re-bound the
  // stale entries at the front until the front is fresh, and take every entry valued t.
  while (!heap_.empty()) {
    const int64_t t = heap_.front().bound;
    if (t == kNever || t > latest) {
      ready.clear();
      return kNever;
    }
    front_.clear();
    stack_.assign(1, 0);
    while (!stack_.empty()) {
      size_t i = stack_.back();
      stack_.pop_back();
      if (heap_[i].bound > t) continue;
      front_.push_back(i);
      for (size_t c = 4 * i + 1; c < std::min(4 * i + 5, heap_.size()); ++c) stack_.push_back(c);
    }
    bool stale = false;
    for (size_t i : front_) stale |= versionOf_[heap_[i].node] != profile.version(heap_[i].node);
    if (stale) {
      // Deepest first: sifting an entry down moves only entries below it.
      std::sort(front_.begin(), front_.end(), std::greater<>());
      bool moved = false;
      for (size_t i : front_) {
        Entry& e = heap_[i];
        if (versionOf_[e.node] == profile.version(e.node)) continue;
        versionOf_[e.node] = profile.version(e.node);
        const int64_t fresh = rebound(profile, e);
        if (fresh != e.bound) {
          e.bound = fresh;
          siftDown(i);
          moved = true;
        }
      }
      if (moved) continue;
    }
    ready.clear();
    bool all = true;
    for (size_t i : front_) {
      const int node = heap_[i].node;
      if (probe_ == duration || profile.fits(node, needOn(profile, node), t, duration)) {
        ready.push_back(node);
      } else {
        all = false;
        break;
      }
    }
    if (all) return t;
    break;
  }
  taken_.clear();
  candidates_.clear();
  ready.clear();
  auto finish = [&](int64_t answer) {
    for (const Entry& e : taken_) push(e);
    std::sort(ready.begin(), ready.end());
    return answer;
  };
  while (true) {
    int64_t t = kNever;
    if (!candidates_.empty()) t = candidates_.front().value;
    if (!heap_.empty()) t = std::min(t, heap_.front().bound);
    if (t == kNever || t > latest) {
      ready.clear();
      return finish(kNever);
    }
    while (const auto e = popFreshUpTo(profile, t)) {
      taken_.push_back(*e);
      candidates_.push_back(Candidate{e->bound, e->node, probe_ == duration});
      std::push_heap(candidates_.begin(), candidates_.end());
    }
    while (!candidates_.empty() && candidates_.front().value <= t) {
      std::pop_heap(candidates_.begin(), candidates_.end());
      Candidate c = candidates_.back();
      candidates_.pop_back();
      const Capacity need = needOn(profile, c.node);
      if ((c.exact && c.value == t) || profile.fits(c.node, need, t, duration)) {
        ready.push_back(c.node);
      } else {
        c.value = profile.earliestFit(c.node, need, t, duration);
        c.exact = true;
        candidates_.push_back(c);
        std::push_heap(candidates_.begin(), candidates_.end());
      }
    }
    if (!ready.empty()) return finish(t);
  }
}

}  // namespace drover::sched
