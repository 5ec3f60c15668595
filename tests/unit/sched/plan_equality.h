#pragma once
// The check behind every equivalence test of the maintained Scheduler: its plan must be a full
// schedule()'s of the same state, field by field, the pass's tallies included.
#include <gtest/gtest.h>

#include "sched/scheduler.h"
#include "sched/types.h"

namespace drover::sched::testing {

inline void expectSamePlan(const Plan& got, const Plan& want) {
  ASSERT_EQ(got.starts.size(), want.starts.size());
  for (size_t i = 0; i < got.starts.size(); ++i) {
    EXPECT_EQ(got.starts[i].id, want.starts[i].id);
    EXPECT_EQ(got.starts[i].endTime, want.starts[i].endTime);
    EXPECT_EQ(got.starts[i].backfill, want.starts[i].backfill) << "job " << want.starts[i].id;
    EXPECT_EQ(got.starts[i].partition, want.starts[i].partition) << "job " << want.starts[i].id;
    EXPECT_EQ(got.starts[i].preferred, want.starts[i].preferred) << "job " << want.starts[i].id;
    ASSERT_EQ(got.starts[i].allocation.nodes.size(), want.starts[i].allocation.nodes.size());
    for (size_t k = 0; k < got.starts[i].allocation.nodes.size(); ++k) {
      EXPECT_EQ(got.starts[i].allocation.nodes[k].node, want.starts[i].allocation.nodes[k].node);
      EXPECT_EQ(got.starts[i].allocation.nodes[k].gpus, want.starts[i].allocation.nodes[k].gpus);
      EXPECT_EQ(got.starts[i].allocation.nodes[k].cpus, want.starts[i].allocation.nodes[k].cpus);
      EXPECT_EQ(got.starts[i].allocation.nodes[k].memoryMb,
                want.starts[i].allocation.nodes[k].memoryMb);
      EXPECT_EQ(got.starts[i].allocation.nodes[k].tasks, want.starts[i].allocation.nodes[k].tasks);
    }
  }
  ASSERT_EQ(got.pending.size(), want.pending.size());
  for (size_t i = 0; i < got.pending.size(); ++i) {
    EXPECT_EQ(got.pending[i].id, want.pending[i].id) << "at " << i;
    EXPECT_EQ(got.pending[i].reason, want.pending[i].reason) << "job " << want.pending[i].id;
    EXPECT_EQ(got.pending[i].expectedStart, want.pending[i].expectedStart);
    EXPECT_EQ(got.pending[i].estimatedStart, want.pending[i].estimatedStart);
    EXPECT_EQ(got.pending[i].plannedNodes, want.pending[i].plannedNodes);
  }
  EXPECT_EQ(got.stats.jobsConsidered, want.stats.jobsConsidered);
  EXPECT_EQ(got.stats.skippedSameShape, want.stats.skippedSameShape);
  EXPECT_EQ(got.stats.reservationsMade, want.stats.reservationsMade);
  EXPECT_EQ(got.stats.backfilled, want.stats.backfilled);
  EXPECT_EQ(got.stats.waitingOnPriority, want.stats.waitingOnPriority);
  EXPECT_EQ(got.stats.waitingOnResources, want.stats.waitingOnResources);
}

// The plans of the indexed reservation search (FitIndex) equal those of asking every node, on
// `s` at time 0 under `params` (start estimates off: they come only from the indexed search).
inline void expectIndexedSearchEqualsAskingEveryNode(const Snapshot& s, SchedulerParams params) {
  params.estimateDepth = 0;
  SchedulerParams exhaustive = params;
  exhaustive.indexedReserveSearch = false;
  expectSamePlan(schedule(s, params, 0), schedule(s, exhaustive, 0));
}

}  // namespace drover::sched::testing
