#include "common/clock.h"

#include <gtest/gtest.h>

namespace drover {
namespace {

TEST(FakeClock, MovesOnlyWhenTold) {
  FakeClock clock;
  EXPECT_EQ(clock.nowMs(), FakeClock::kDefaultStartMs);
  EXPECT_EQ(clock.now(), FakeClock::kDefaultStartMs / 1000);
  clock.advance(std::chrono::milliseconds(1500));
  EXPECT_EQ(clock.nowMs(), FakeClock::kDefaultStartMs + 1500);
  clock.advanceSeconds(60);
  EXPECT_EQ(clock.now(), FakeClock::kDefaultStartMs / 1000 + 61);
  clock.setSeconds(100);
  EXPECT_EQ(clock.now(), 100);
  EXPECT_EQ(clock.nowMs(), 100000);
}

TEST(FakeClock, UsableThroughTheInterface) {
  FakeClock fake(5000);
  const Clock& clock = fake;
  EXPECT_EQ(clock.now(), 5);
  fake.advance(std::chrono::seconds(2));
  EXPECT_EQ(clock.nowMs(), 7000);
}

TEST(SystemClock, ReadsUnixTime) {
  SystemClock clock;
  // After 2020-01-01 and consistent between the two readings.
  EXPECT_GT(clock.now(), 1'577'836'800);
  EXPECT_LE(clock.now() * 1000, clock.nowMs() + 1000);
}

}  // namespace
}  // namespace drover
