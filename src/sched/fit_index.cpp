#include "sched/fit_index.h"

#include <algorithm>
#include <bit>

namespace drover::sched {

FitIndex::FitIndex(const AvailabilityProfile& profile, const std::vector<int>& nodes,
                   const Capacity& need, bool wholeNode, int64_t probeDuration)
    : need_(need), wholeNode_(wholeNode), probe_(probeDuration), versionOf_(profile.size(), 0) {
  for (int node : nodes) {
    versionOf_[node] = profile.version(node);
    order_.emplace(bound(profile, node), node);
  }
}

int64_t FitIndex::probeFor(int64_t duration) {
  if (duration <= 1) return 1;
  return int64_t{1} << (63 - std::countl_zero(static_cast<uint64_t>(duration)));
}

int64_t FitIndex::bound(const AvailabilityProfile& profile, int node) const {
  return profile.earliestFit(node, needOn(profile, node), profile.now(), probe_);
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
  struct Active {
    int64_t value;
    int node;
    bool exact;  // value is the node's true earliest fit after the last t, not a bound
  };
  std::vector<Active> active;
  std::vector<int64_t> scratch;
  auto next = order_.begin();
  while (true) {
    scratch.clear();
    for (const Active& a : active) scratch.push_back(a.value);
    auto peek = next;
    for (int c = 0; c < k && peek != order_.end(); ++c, ++peek) scratch.push_back(peek->first);
    if (static_cast<int>(scratch.size()) < k) return kNever;
    std::nth_element(scratch.begin(), scratch.begin() + (k - 1), scratch.end());
    const int64_t t = scratch[k - 1];
    if (t == kNever || t > latest) return kNever;
    while (next != order_.end() && next->first <= t) {
      const int node = next->second;
      if (versionOf_[node] != profile.version(node)) {
        // Stale: re-bound it (never lower) and move it; it comes round again if still <= t.
        versionOf_[node] = profile.version(node);
        const int64_t fresh = bound(profile, node);
        if (fresh != next->first) {
          next = order_.erase(next);
          auto placed = order_.emplace(fresh, node).first;
          if (next == order_.end() || *placed < *next) next = placed;
          continue;
        }
      }
      active.push_back(Active{next->first, node, false});
      ++next;
    }
    ready.clear();
    for (Active& a : active) {
      if (a.value > t) continue;
      Capacity need = needOn(profile, a.node);
      if ((a.exact && a.value == t) || profile.fits(a.node, need, t, duration)) {
        ready.push_back(a.node);
      } else {
        a.value = profile.earliestFit(a.node, need, t, duration);
        a.exact = true;
      }
    }
    if (static_cast<int>(ready.size()) >= k) return t;
  }
}

}  // namespace drover::sched
