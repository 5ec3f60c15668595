#include "sched/profile.h"

#include <gtest/gtest.h>

namespace drover::sched {
namespace {

TEST(Profile, RunningJobsReleaseAtTheirEnd) {
  AvailabilityProfile p(100, {Capacity{8, 100, 8}});
  p.addRunning(0, Capacity{4, 50, 4}, 200);
  EXPECT_EQ(p.freeNow(0), (Capacity{4, 50, 4}));
  EXPECT_EQ(p.minFree(0, 100, 300), (Capacity{4, 50, 4}));
  EXPECT_EQ(p.minFree(0, 200, 300), (Capacity{8, 100, 8}));
  EXPECT_EQ(p.earliestFit(0, Capacity{8, 0, 0}, 100, 10), 200);
  EXPECT_EQ(p.earliestFit(0, Capacity{4, 0, 0}, 100, 10), 100);
  EXPECT_EQ(p.earliestFit(0, Capacity{9, 0, 0}, 100, 10), kNever);
}

TEST(Profile, OverdueJobEndsJustAfterNow) {
  AvailabilityProfile p(100, {Capacity{8, 0, 0}});
  p.addRunning(0, Capacity{8, 0, 0}, 50);
  EXPECT_EQ(p.earliestFit(0, Capacity{1, 0, 0}, 100, 10), 101);
}

TEST(Profile, ClaimKeepsAHoleThatShortJobsMayUse) {
  // Free now; claimed for [150, 250). A 50 s job fits now, a 60 s job must wait for 250.
  AvailabilityProfile p(100, {Capacity{8, 0, 0}});
  p.claim(0, Capacity{8, 0, 0}, 150, 250);
  EXPECT_TRUE(p.fits(0, Capacity{8, 0, 0}, 100, 50));
  EXPECT_FALSE(p.fits(0, Capacity{8, 0, 0}, 100, 60));
  EXPECT_EQ(p.earliestFit(0, Capacity{8, 0, 0}, 100, 60), 250);
  EXPECT_TRUE(p.fits(0, Capacity{8, 0, 0}, 250, kNever));
}

TEST(Profile, PartialClaimsAddUp) {
  AvailabilityProfile p(0, {Capacity{8, 0, 8}});
  p.claim(0, Capacity{2, 0, 2}, 0, 100);
  p.claim(0, Capacity{2, 0, 2}, 50, 150);
  EXPECT_EQ(p.minFree(0, 0, 200), (Capacity{4, 0, 4}));
  EXPECT_EQ(p.earliestFit(0, Capacity{6, 0, 6}, 0, 10), 0);  // [0,50) has 6 free
  EXPECT_EQ(p.earliestFit(0, Capacity{6, 0, 6}, 0, 60), 100);  // [50,100) has only 4
  EXPECT_EQ(p.earliestFit(0, Capacity{8, 0, 8}, 0, 10), 150);
}

}  // namespace
}  // namespace drover::sched
