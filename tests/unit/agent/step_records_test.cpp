#include "agent/step_records.h"

#include <gtest/gtest.h>

namespace drover::agent {
namespace {

// The record keeps the run the supervisor was started for, so that a restarted agent still
// tells a signal meant for an earlier run of a requeued job from one for this run.
TEST(StepRecordLine, KeepsTheRun) {
  const StepRecord record{StepKey{42, -5}, 1234, 987654, 3u};
  const std::string line = formatStepRecord(record);
  EXPECT_EQ(line, "42 -5 1234 987654 3\n");
  auto back = parseStepRecord(line);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->key, record.key);
  EXPECT_EQ(back->pid, 1234);
  EXPECT_EQ(back->start_ticks, 987654u);
  EXPECT_EQ(back->run, RunNumber(3u));
}

TEST(StepRecordLine, RunZeroIsARunAndNoRunIsUnknown) {
  auto first = parseStepRecord(formatStepRecord(StepRecord{StepKey{7, 0}, 10, 20, 0u}));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->run, RunNumber(0u));
  // A record written before the run was kept: its run is unknown, and it still loads.
  EXPECT_EQ(formatStepRecord(StepRecord{StepKey{7, 0}, 10, 20, std::nullopt}), "7 0 10 20\n");
  auto old = parseStepRecord("7 0 10 20\n");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->key, (StepKey{7, 0}));
  EXPECT_FALSE(old->run.has_value());
}

TEST(StepRecordLine, GarbageIsNoRecord) {
  EXPECT_FALSE(parseStepRecord("").has_value());
  EXPECT_FALSE(parseStepRecord("7 0 10\n").has_value());
  EXPECT_FALSE(parseStepRecord("7 0 10 20 run\n").has_value());
}

}  // namespace
}  // namespace drover::agent
