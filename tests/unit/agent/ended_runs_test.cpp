// The agent's memory of ended runs (agent/ended_runs.h) and its file: one append per run,
// loaded again by the next droverd, bounded in time and number, and sound after a torn write.
#include "agent/ended_runs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace drover::agent {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::int64_t kBatch = -5;
constexpr std::int64_t kT0 = FakeClock::kDefaultStartMs;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

std::size_t lineCount(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

ino_t inodeOf(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

class EndedRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("drover-ended-runs-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = endedRunsPath(dir_.string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A droverd (re)starting on this spool dir.
  std::unique_ptr<EndedRuns> start(EndedRunLimits limits = {}) {
    auto runs = std::make_unique<EndedRuns>(path_, clock_, limits);
    runs->load();
    return runs;
  }

  fs::path dir_;
  std::string path_;
  FakeClock clock_;
};

TEST(EndedRunLine, RoundTrips) {
  const EndedRun run{kT0 + 5, StepKey{42, kBatch}, 3};
  const std::string line = formatEndedRun(run);
  EXPECT_EQ(line, "1767225600005 42 -5 3\n");
  auto back = parseEndedRun(line);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->ended_ms, kT0 + 5);
  EXPECT_EQ(back->key, run.key);
  EXPECT_EQ(back->run, 3u);
  auto numbered = parseEndedRun(formatEndedRun(EndedRun{kT0, StepKey{7, 0}, 0}));
  ASSERT_TRUE(numbered.has_value());
  EXPECT_EQ(numbered->key, (StepKey{7, 0}));
  EXPECT_EQ(numbered->run, 0u);
}

TEST(EndedRunLine, ATornOrForeignLineIsNoRun) {
  EXPECT_FALSE(parseEndedRun("1767225600005 42 -5 3").has_value()) << "no final newline";
  EXPECT_FALSE(parseEndedRun("1767225600005 42 -5\n").has_value());
  EXPECT_FALSE(parseEndedRun("1767225600005 42 -5 3 9\n").has_value());
  EXPECT_FALSE(parseEndedRun("1767225600005 42 -5 x\n").has_value());
  EXPECT_FALSE(parseEndedRun("1767225600005  42 -5 3\n").has_value());
  EXPECT_FALSE(parseEndedRun("\n").has_value());
  EXPECT_FALSE(parseEndedRun("").has_value());
  EXPECT_FALSE(parseEndedRun(std::string("17\0 1 2 3\n", 10)).has_value());
}

TEST(EndedRunLimitsTest, TenMinutesAndAHundredThousandRuns) {
  const EndedRunLimits limits;
  EXPECT_EQ(limits.memory, std::chrono::milliseconds(10min));
  EXPECT_EQ(limits.kept, 100000u);
}

TEST_F(EndedRunsTest, ARestartedAgentStillKnowsTheRunsThatEnded) {
  auto runs = start();
  runs->add(StepKey{1, kBatch}, 0);
  runs->add(StepKey{2, 3}, 4);
  runs.reset();

  clock_.advance(1min);
  auto again = start();
  EXPECT_TRUE(again->contains(StepKey{1, kBatch}, 0));
  EXPECT_TRUE(again->contains(StepKey{2, 3}, 4));
  EXPECT_FALSE(again->contains(StepKey{1, kBatch}, 1)) << "the job's next run did not end";
  EXPECT_FALSE(again->contains(StepKey{2, 2}, 4));
  EXPECT_EQ(again->size(), 2u);
}

TEST_F(EndedRunsTest, EachEndIsOneAppendedLine) {
  auto runs = start();
  runs->add(StepKey{1, kBatch}, 0);
  const std::string before = readFile(path_);
  const ino_t inode = inodeOf(path_);
  clock_.advance(1s);
  runs->add(StepKey{2, kBatch}, 0);
  EXPECT_EQ(readFile(path_), before + "1767225601000 2 -5 0\n");
  EXPECT_EQ(inodeOf(path_), inode) << "the file was rewritten, not appended to";
  // A run remembered already is not written again.
  runs->add(StepKey{2, kBatch}, 0);
  EXPECT_EQ(lineCount(readFile(path_)), 2u);
}

TEST_F(EndedRunsTest, ARunIsForgottenAfterTheMemory) {
  auto runs = start(EndedRunLimits{10min, 100});
  runs->add(StepKey{1, kBatch}, 0);
  clock_.advance(10min);
  EXPECT_TRUE(runs->contains(StepKey{1, kBatch}, 0)) << "forgotten before its 10 minutes";
  clock_.advance(1ms);
  EXPECT_FALSE(runs->contains(StepKey{1, kBatch}, 0));
}

TEST_F(EndedRunsTest, AStartAfterTheMemoryForgetsAndDropsItFromTheFile) {
  auto runs = start();
  runs->add(StepKey{1, kBatch}, 0);
  clock_.advance(5min);
  runs->add(StepKey{2, kBatch}, 0);
  runs.reset();

  clock_.advance(5min + 1ms);
  auto again = start();
  EXPECT_FALSE(again->contains(StepKey{1, kBatch}, 0));
  EXPECT_TRUE(again->contains(StepKey{2, kBatch}, 0));
  EXPECT_EQ(readFile(path_), "1767225900000 2 -5 0\n");
}

TEST_F(EndedRunsTest, AtMostTheLimitAreKeptTheNewest) {
  auto runs = start(EndedRunLimits{10min, 3});
  for (std::uint64_t job = 1; job <= 5; ++job) runs->add(StepKey{job, kBatch}, 0);
  EXPECT_EQ(runs->size(), 3u);
  EXPECT_FALSE(runs->contains(StepKey{2, kBatch}, 0));
  EXPECT_TRUE(runs->contains(StepKey{3, kBatch}, 0));
  EXPECT_TRUE(runs->contains(StepKey{5, kBatch}, 0));
  runs.reset();

  // The file holds all five (appends only); a start keeps the newest three of them.
  EXPECT_EQ(lineCount(readFile(path_)), 5u);
  auto again = start(EndedRunLimits{10min, 3});
  EXPECT_EQ(again->size(), 3u);
  EXPECT_FALSE(again->contains(StepKey{2, kBatch}, 0));
  EXPECT_TRUE(again->contains(StepKey{3, kBatch}, 0));
  EXPECT_EQ(lineCount(readFile(path_)), 3u);
}

TEST_F(EndedRunsTest, ATornLastLineIsDroppedAndDoesNotSpoilTheNextAppend) {
  // droverd died in mid-append: "... 3 -5 17" was being written.
  writeFile(path_, "1767225600000 1 -5 0\n1767225600000 2 -5 0\n1767225600000 3 -5 1");
  auto runs = start();
  EXPECT_TRUE(runs->contains(StepKey{1, kBatch}, 0));
  EXPECT_TRUE(runs->contains(StepKey{2, kBatch}, 0));
  EXPECT_FALSE(runs->contains(StepKey{3, kBatch}, 1));
  runs->add(StepKey{4, kBatch}, 0);
  runs.reset();

  EXPECT_EQ(readFile(path_), "1767225600000 1 -5 0\n1767225600000 2 -5 0\n"
                             "1767225600000 4 -5 0\n");
  auto again = start();
  EXPECT_EQ(again->size(), 3u);
  EXPECT_TRUE(again->contains(StepKey{4, kBatch}, 0));
}

TEST_F(EndedRunsTest, CorruptLinesAreSkippedAndTheRestKept) {
  writeFile(path_, std::string("1767225600000 1 -5 0\n\x01\x02garbage\xff\n\n"
                               "1767225600000 2 -5\n1767225600000 3 -5 2\n"));
  auto runs = start();
  EXPECT_EQ(runs->size(), 2u);
  EXPECT_TRUE(runs->contains(StepKey{1, kBatch}, 0));
  EXPECT_TRUE(runs->contains(StepKey{3, kBatch}, 2));
  EXPECT_EQ(readFile(path_), "1767225600000 1 -5 0\n1767225600000 3 -5 2\n");
}

TEST_F(EndedRunsTest, AMissingFileIsAnEmptyMemoryAndIsCreated) {
  ASSERT_FALSE(fs::exists(path_));
  auto runs = start();
  EXPECT_EQ(runs->size(), 0u);
  EXPECT_TRUE(fs::exists(path_));
  runs->add(StepKey{1, kBatch}, 0);
  EXPECT_EQ(readFile(path_), "1767225600000 1 -5 0\n");
}

TEST_F(EndedRunsTest, AnUnwritableSpoolStillRemembersInMemory) {
  EndedRuns runs((dir_ / "no-such-dir" / "ended_runs").string(), clock_);
  runs.load();
  runs.add(StepKey{1, kBatch}, 0);
  EXPECT_TRUE(runs.contains(StepKey{1, kBatch}, 0));
  EXPECT_FALSE(fs::exists(dir_ / "no-such-dir"));
}

TEST_F(EndedRunsTest, AFileOfMostlyForgottenRunsIsRewrittenWithTheRest) {
  auto runs = start(EndedRunLimits{1s, 100000});
  for (std::uint64_t job = 1; job <= 5000; ++job) {
    runs->add(StepKey{job, kBatch}, 0);
    clock_.advance(10ms);   // about 100 runs are remembered at any time
    ASSERT_LE(runs->fileLines(), 2 * runs->size() + 1024 + 1) << "at job " << job;
  }
  const std::string text = readFile(path_);
  EXPECT_EQ(lineCount(text), runs->fileLines());
  EXPECT_LT(runs->fileLines(), 2000u) << "never rewritten";
  EXPECT_TRUE(runs->contains(StepKey{5000, kBatch}, 0));
  runs.reset();
  auto again = start(EndedRunLimits{1s, 100000});
  EXPECT_TRUE(again->contains(StepKey{5000, kBatch}, 0));
  EXPECT_FALSE(again->contains(StepKey{4000, kBatch}, 0));
}

TEST_F(EndedRunsTest, ARunAheadOfTheClockIsKeptOneMemoryNotUntilTheClockCatchesUp) {
  // Written before the clock was set back by an hour.
  writeFile(path_, formatEndedRun(EndedRun{kT0 + 3600'000, StepKey{1, kBatch}, 0}));
  auto runs = start(EndedRunLimits{10min, 100});
  EXPECT_TRUE(runs->contains(StepKey{1, kBatch}, 0));
  clock_.advance(10min + 1ms);
  EXPECT_FALSE(runs->contains(StepKey{1, kBatch}, 0));
}

TEST_F(EndedRunsTest, RunsAddedAfterTheClockWasSetBackStayInOrder) {
  auto runs = start(EndedRunLimits{10min, 100});
  runs->add(StepKey{1, kBatch}, 0);
  clock_.setMs(kT0 - 3600'000);
  runs->add(StepKey{2, kBatch}, 0);
  // Both remembered, and the file still loads them in order.
  EXPECT_TRUE(runs->contains(StepKey{1, kBatch}, 0));
  EXPECT_TRUE(runs->contains(StepKey{2, kBatch}, 0));
  runs.reset();
  auto again = start(EndedRunLimits{10min, 100});
  EXPECT_EQ(again->size(), 2u);
}

}  // namespace
}  // namespace drover::agent
