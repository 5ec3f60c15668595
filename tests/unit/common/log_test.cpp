#include "common/log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace drover::log {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Log, NamedLoggersShareTheFileSinkAndPattern) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("drover_log_test_" + std::to_string(::getpid()) + ".log"))
                         .string();
  std::filesystem::remove(path);
  ASSERT_TRUE(setup(spdlog::level::info, path).ok());
  for (const char* name : kLoggerNames) {
    auto logger = get(name);
    ASSERT_NE(logger, nullptr);
    EXPECT_EQ(logger->name(), name);
    EXPECT_EQ(logger, get(name)) << "the same logger is shared";
  }
  get("sched")->info("pass took {} ms", 3);
  get("ctld")->debug("not shown at info");
  get("extra")->warn("created on first use");
  for (const char* name : kLoggerNames) get(name)->flush();
  get("extra")->flush();

  std::string text = readFile(path);
  EXPECT_NE(text.find("[sched] [info] pass took 3 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("[extra] [warning] created on first use"), std::string::npos) << text;
  EXPECT_EQ(text.find("not shown"), std::string::npos) << text;
  // Timestamp first: 2026-11-30T12:29:05.123
  ASSERT_GE(text.size(), 24u);
  EXPECT_EQ(text[4], '-');
  EXPECT_EQ(text[10], 'T');
  EXPECT_EQ(text[19], '.');

  // Reconfiguring moves existing loggers to the new sink and level.
  ASSERT_TRUE(setup(spdlog::level::debug).ok());
  EXPECT_TRUE(get("ctld")->should_log(spdlog::level::debug));
  std::filesystem::remove(path);
}

TEST(Log, UnwritableFileIsAnError) {
  auto s = setup(spdlog::level::info, std::string("/proc/no/such/dir/x.log"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("/proc/no/such/dir/x.log"), std::string::npos);
}

TEST(Log, ParsesLevels) {
  EXPECT_EQ(*parseLevel("debug"), spdlog::level::debug);
  EXPECT_EQ(*parseLevel("INFO"), spdlog::level::info);
  EXPECT_EQ(*parseLevel("warning"), spdlog::level::warn);
  EXPECT_EQ(*parseLevel("warn"), spdlog::level::warn);
  EXPECT_EQ(*parseLevel("error"), spdlog::level::err);
  EXPECT_EQ(*parseLevel("off"), spdlog::level::off);
  auto bad = parseLevel("loud");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("'loud'"), std::string::npos);
}

}  // namespace
}  // namespace drover::log
