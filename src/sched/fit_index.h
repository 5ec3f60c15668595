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
#include <set>
#include <utility>
#include <vector>

#include "sched/profile.h"

namespace drover::sched {

class FitIndex {
 public:
  // `need` is the per-node need, or ignored with wholeNode (the node's whole capacity).
  // Valid while the profile only gains claims (no addRunning after construction).
  FitIndex(const AvailabilityProfile& profile, const std::vector<int>& nodes, const Capacity& need,
           bool wholeNode, int64_t probeDuration);

  Capacity needOn(const AvailabilityProfile& profile, int node) const {
    return wholeNode_ ? profile.total(node) : need_;
  }

  // The earliest t >= profile.now() at which at least k indexed nodes can hold the need for
  // `duration` (>= the probe duration); kNever if never. `ready` gets every indexed node that
  // fits at t, in no particular order. Same answer as asking every node (see fit_index.cpp).
  // Starts later than `latest` count as never, which bounds the search: only nodes whose bound
  // is at most `latest` are ever looked at.
  int64_t earliestStart(const AvailabilityProfile& profile, int k, int64_t duration,
                        std::vector<int>& ready, int64_t latest = kNever);

  // The largest power of two not above `duration` (at least 1): the probe of its class.
  static int64_t probeFor(int64_t duration);

 private:
  int64_t bound(const AvailabilityProfile& profile, int node) const;

  Capacity need_;
  bool wholeNode_;
  int64_t probe_;
  std::vector<uint32_t> versionOf_;  // per profile node: the profile version its bound saw
  std::set<std::pair<int64_t, int>> order_;  // (bound, node)
};

}  // namespace drover::sched
