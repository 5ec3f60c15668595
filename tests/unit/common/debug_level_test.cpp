// Slurm's debug levels (scontrol setdebug) and what they set in Drover's loggers.
#include "common/debug_level.h"

#include <gtest/gtest.h>

#include "common/log.h"

namespace drover {
namespace {

TEST(DebugLevel, NamesInAnyCaseAndNumbersZeroToNine) {
  EXPECT_EQ(parseDebugLevel("quiet"), 0);
  EXPECT_EQ(parseDebugLevel("INFO"), 3);
  EXPECT_EQ(parseDebugLevel("Debug2"), 6);
  EXPECT_EQ(parseDebugLevel("debug5"), 9);
  EXPECT_EQ(parseDebugLevel("3"), 3);
  EXPECT_EQ(parseDebugLevel("9"), 9);
  for (const char* bad : {"10", "-1", "bogus", "", "debug6", "3x", " 3"}) {
    EXPECT_EQ(parseDebugLevel(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(debugLevelName(6), "debug2");
  EXPECT_EQ(debugLevelName(0), "quiet");
  EXPECT_EQ(debugLevelName(42), "info");
}

TEST(DebugLevel, SetsEveryLoggerAndReadsBack) {
  log::setLevel(log::levelForDebug(6));
  for (const char* name : log::kLoggerNames) {
    EXPECT_EQ(log::get(name)->level(), spdlog::level::trace) << name;
  }
  EXPECT_EQ(log::debugForLevel(log::get("sched")->level()), 6);
  log::setLevel(log::levelForDebug(0));
  EXPECT_EQ(log::get("ctld")->level(), spdlog::level::off);
  EXPECT_EQ(log::levelForDebug(4), spdlog::level::info) << "verbose";
  EXPECT_EQ(log::levelForDebug(2), spdlog::level::err);
  log::setLevel(spdlog::level::info);
}

}  // namespace
}  // namespace drover
