// The fast paths of the reservation search must not change a single decision:
// - the step-function profile answers every query as a brute-force timeline does;
// - conservative (and EASY) plans through the FitIndex search, on queues with many jobs of the
//   same shape and duration (the in-place read of ties, exact and class probes, re-bounds),
//   equal the plans of the straightforward search that asks every node for every job.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "builders.h"
#include "sched/profile.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

// Free capacity per second over [now, horizon), then constant: the obvious profile.
struct Timeline {
  int64_t now;
  std::vector<Capacity> free;  // free[t - now]
  Capacity tail;               // from now + free.size() on
  Capacity at(int64_t t) const {
    t = std::max(t, now);
    return t - now < static_cast<int64_t>(free.size()) ? free[t - now] : tail;
  }
  void take(const Capacity& held, int64_t start, int64_t end) {
    start = std::max(start, now);
    for (int64_t t = start; t < end && t - now < static_cast<int64_t>(free.size()); ++t) {
      free[t - now] -= held;
    }
    if (end == kNever) tail -= held;
  }
  bool fits(const Capacity& need, int64_t start, int64_t duration) const {
    const int64_t last = std::min(start + duration, now + static_cast<int64_t>(free.size()) + 1);
    for (int64_t t = std::max(start, now); t < last; ++t) {
      if (!at(t).covers(need)) return false;
    }
    return true;
  }
};

TEST(SearchEquality, ProfileAnswersAsABruteForceTimeline) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 200; ++round) {
    const int64_t now = pick(0, 50);
    const Capacity total{16, 1000, 8};
    AvailabilityProfile p(now, {total});
    Timeline ref{now, std::vector<Capacity>(400, total), total};
    for (int c = pick(0, 12); c > 0; --c) {
      Capacity held{pick(0, 4), pick(0, 200), pick(0, 3)};
      if (pick(0, 3) == 0) {
        int64_t end = now + pick(-5, 200);
        p.addRunning(0, held, end);
        ref.take(held, now, std::max(end, now + 1));
      } else {
        int64_t start = now + pick(-10, 250);
        int64_t end = pick(0, 8) == 0 ? kNever : start + pick(1, 120);
        p.claim(0, held, start, end);
        if (end > std::max(start, now)) ref.take(held, start, end);
      }
    }
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(p.freeNow(0), ref.at(now));
    for (int q = 0; q < 30; ++q) {
      const Capacity need{pick(0, 16), pick(0, 1000), pick(0, 8)};
      const int64_t after = now + pick(0, 300);
      const int64_t duration = pick(1, 150);
      ASSERT_EQ(p.fits(0, need, after, duration), ref.fits(need, after, duration));
      int64_t want = kNever;
      for (int64_t t = after; t < now + 400; ++t) {
        if (ref.fits(need, t, duration)) {
          want = t;
          break;
        }
      }
      // Past the timeline's end only the tail matters: it fits there iff the tail covers.
      if (want == kNever && ref.tail.covers(need)) want = -1;
      const int64_t got = p.earliestFit(0, need, after, duration);
      if (want == -1) {
        EXPECT_GE(got, now + 400 - duration);
        EXPECT_NE(got, kNever);
      } else {
        EXPECT_EQ(got, want) << "need " << need.cpus << "/" << need.memoryMb << "/" << need.gpus
                             << " after " << after << " for " << duration;
      }
    }
  }
}

// Queues shaped like a busy GPU cluster: few request shapes, durations from a short list (so
// many jobs share a shape and duration) or anything, some multi-node and exclusive jobs.
Snapshot busyCluster(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Snapshot s;
  s.nodes = gpuNodes(pick(6, 40));
  s.partitions = {partition()};
  JobId next = 100000;
  for (const Node& n : s.nodes) {
    int busy = pick(0, 8);
    if (busy == 0) continue;
    std::vector<int> g(busy);
    for (int i = 0; i < busy; ++i) g[i] = i;
    s.running.push_back(running(next++, n.name, busy * 4, g, 60 * pick(1, 30)));
  }
  const int64_t durations[] = {300, 600, 900, 1200, 1800, 3600, 7200};
  for (int j = 1, jobs = pick(50, 400); j <= jobs; ++j) {
    JobBuilder b(j);
    int shape = pick(0, 9);
    if (shape < 4) {
      b.gpusPerNode(1).tasks(1).cpusPerTask(4);
    } else if (shape < 6) {
      b.gpusPerNode(2).tasks(1).cpusPerTask(8);
    } else if (shape < 7) {
      b.gpusPerNode(4).tasks(1).cpusPerTask(16);
    } else if (shape < 9) {
      b.gpusPerNode(8).tasks(1).cpusPerTask(32);
    } else {
      b.nodes(pick(2, 5)).gpusPerNode(8).exclusive();
    }
    b.time(pick(0, 4) == 0 ? 60 * pick(1, 120) : durations[pick(0, 6)]);
    b.priority(pick(0, 1000));
    s.pending.push_back(b);
  }
  return s;
}

TEST(SearchEquality, IndexedPlansEqualAskingEveryNodeOnBusyQueues) {
  for (Policy policy : {Policy::Conservative, Policy::Easy}) {
    for (int seed = 0; seed < 60; ++seed) {
      std::mt19937 rng(1000 + seed);
      Snapshot s = busyCluster(rng);
      SchedulerParams indexed;
      indexed.policy = policy;
      indexed.estimateDepth = 0;  // estimates come only from the indexed search
      SchedulerParams exhaustive = indexed;
      exhaustive.indexedReserveSearch = false;
      const Plan got = schedule(s, indexed, 0);
      const Plan want = schedule(s, exhaustive, 0);
      SCOPED_TRACE("policy " + std::to_string(static_cast<int>(policy)) + " seed " +
                   std::to_string(seed));
      ASSERT_EQ(got.starts.size(), want.starts.size());
      for (size_t i = 0; i < got.starts.size(); ++i) {
        EXPECT_EQ(got.starts[i].id, want.starts[i].id);
        ASSERT_EQ(got.starts[i].allocation.nodes.size(), want.starts[i].allocation.nodes.size());
        for (size_t k = 0; k < got.starts[i].allocation.nodes.size(); ++k) {
          EXPECT_EQ(got.starts[i].allocation.nodes[k].node,
                    want.starts[i].allocation.nodes[k].node);
          EXPECT_EQ(got.starts[i].allocation.nodes[k].gpus,
                    want.starts[i].allocation.nodes[k].gpus);
        }
      }
      ASSERT_EQ(got.pending.size(), want.pending.size());
      int reserved = 0;
      for (size_t i = 0; i < got.pending.size(); ++i) {
        EXPECT_EQ(got.pending[i].id, want.pending[i].id);
        EXPECT_EQ(got.pending[i].reason, want.pending[i].reason);
        EXPECT_EQ(got.pending[i].expectedStart, want.pending[i].expectedStart)
            << "job " << want.pending[i].id;
        EXPECT_EQ(got.pending[i].plannedNodes, want.pending[i].plannedNodes)
            << "job " << want.pending[i].id;
        reserved += want.pending[i].expectedStart.has_value();
      }
      if (policy == Policy::Conservative) {
        EXPECT_GT(reserved, static_cast<int>(want.pending.size()) / 2);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace drover::sched
