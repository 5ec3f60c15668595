#include "agent/step_records.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

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

namespace fs = std::filesystem;

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SpoolFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("drover-spool-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SpoolFiles, StepRecordIsWrittenAgainAfterItsDirectoryWasRemoved) {
  const StepRecord record{StepKey{42, -5}, 1234, 987654, 3u};
  const std::string path = stepRecordPath(dir_.string(), record.key);
  fs::remove_all(fs::path(path).parent_path());
  ASSERT_TRUE(writeStepRecord(dir_.string(), record).ok());
  EXPECT_EQ(contents(path), formatStepRecord(record));
  removeStepRecord(dir_.string(), record.key);
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace drover::agent
