#pragma once
// Earliest-start search for reservations that does not visit every node for every job.
// A FitIndex keeps, for one request shape (per-node need, eligible nodes) and one probe
// duration, the eligible nodes ordered by a lower bound on when the shape could start there:
// the earliest time the need stays free for the probe, which is no longer than any job of the
// index's duration class, so the bound never overestimates. A reservation search walks nodes in
// that order and stops once the next bound lies past the start it has found, so it touches the
// nodes that free up first, not the whole partition.
//
// During a pass, claims only take capacity away, so a bound computed before a claim stays a
// lower bound after it. Stale bounds are therefore refreshed lazily, when the search reaches
// them (the node's profile version tells which are stale): a claim costs nothing here.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sched/demand.h"
#include "sched/profile.h"

namespace drover::sched {

class FitIndex {
 public:
  // Indexes what `demand` needs of each node (needOnNode).
  // Valid while the profile only gains claims (no addRunning after construction).
  FitIndex(const AvailabilityProfile& profile, const std::vector<int>& nodes, const Demand& demand,
           int64_t probeDuration);

  Capacity needOn(const AvailabilityProfile& profile, int node) const {
    return needOnNode(demand_, profile.total(node));
  }

  // The earliest t >= profile.now() at which at least k indexed nodes can hold the need for
  // `duration` (>= the probe duration); kNever if never. `ready` gets every indexed node that
  // fits at t, in no particular order. Same answer as asking every node (see fit_index.cpp).
  // Starts later than `latest` count as never, which bounds the search: only nodes whose bound
  // is at most `latest` are ever looked at.
  int64_t earliestStart(const AvailabilityProfile& profile, int k, int64_t duration,
                        std::vector<int>& ready, int64_t latest = kNever);

  // The duration class of `duration`: the largest power of eight not above it (at least 1).
  // Drivers probe a class's index with the shortest duration in it they will search.
  static int64_t durationClass(int64_t duration);

 private:
  struct Entry {
    int64_t bound;
    int node;
    bool operator<(const Entry& o) const {
      return bound != o.bound ? bound < o.bound : node < o.node;
    }
  };
  struct Active {
    int64_t value;  // a lower bound on the node's next fit at or after the current t
    int64_t bound;  // its heap key, put back when the search ends
    int node;
    bool exact;  // value is the node's true earliest fit after the last t, not a bound
  };
  int64_t bound(const AvailabilityProfile& profile, int node) const;
  int64_t rebound(const AvailabilityProfile& profile, const Entry& e) const;
  // earliestStart for one node: t is the smallest value of all, so only nodes valued exactly t
  // are checked, and the candidates wait in a heap of their own instead of being rescanned.
  int64_t earliestStartOne(const AvailabilityProfile& profile, int64_t duration,
                           std::vector<int>& ready, int64_t latest);
  void siftUp(size_t i);
  void siftDown(size_t i);
  void push(Entry e);
  Entry pop();
  // The heap's first node whose bound, brought up to date with the profile, is still <= t
  // (taken off the heap); nullopt when there is none.
  std::optional<Entry> popFreshUpTo(const AvailabilityProfile& profile, int64_t t);

  Demand demand_;
  int64_t probe_;
  std::vector<uint32_t> versionOf_;  // per profile node: the profile version its bound saw
  // (bound, node) as a binary heap: a search only ever takes entries from the front, so a heap
  // in one vector does what an ordered set did, without a node allocation per re-bound.
  std::vector<Entry> heap_;
  // Scratch of earliestStart, kept to spare allocations across searches.
  std::vector<Active> active_;
  std::vector<int64_t> values_;
  std::vector<Entry> peeked_;
  std::vector<Entry> taken_;  // entries off the heap during earliestStartOne
  struct Candidate {
    int64_t value;
    int node;
    bool exact;
    bool operator<(const Candidate& o) const {
      return value != o.value ? value > o.value : node > o.node;
    }
  };
  std::vector<Candidate> candidates_;
  std::vector<size_t> front_, stack_;  // heap positions, for the in-place read of the front
};

}  // namespace drover::sched
