// SLURM_TIME_FORMAT's forms against the reference's own output (squeue %S of --begin jobs and
// sreport's window header, 2026-12-02 23:27:22 UTC, TZ=UTC).
#include "drover/slurm_time_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace drover {
namespace {

class SlurmTimeFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  static constexpr std::int64_t kNow = 1796254042;  // Wed 2026-12-02T23:27:22
};

TEST_F(SlurmTimeFormatTest, StandardIsIsoAndTheDefault) {
  EXPECT_EQ(formatSlurmTime(kNow, "", kNow), "2026-12-02T23:27:22");
  EXPECT_EQ(formatSlurmTime(kNow, "standard", kNow), "2026-12-02T23:27:22");
}

TEST_F(SlurmTimeFormatTest, RelativeAsTheReferencePrintedIt) {
  const struct { std::int64_t at; const char* text; } cases[] = {
      {kNow, "23:27:22"},
      {1796173200, "01:00:00"},          // earlier today
      {1796257642, "Tomorr 00:27"},      // an hour from now, past midnight
      {1796340442, "Tomorr 23:27"},
      {1796426842, "Fri 23:27"},         // the coming week: its day's name
      {1796461500, "Sat 09:05"},
      {1796772442, "Tue 23:27"},         // six days ahead
      {1796844042, "9 Dec 19:20"},       // seven days ahead: the date
      {1797118042, "12 Dec 23:27"},
      {1798758000, "31 Dec 23:00"},
      {1796166000, "Ystday 23:00"},
      {1796079600, "30 Nov 23:00"},      // two days back: the date, never a day's name
      {1767225600, "1 Jan 00:00"},
      {1798763400, "1 Jan 2027"},        // another year: no time
      {1827790042, "2 Dec 2027"},
      {1748772000, "1 Jun 2025"},
  };
  for (const auto& c : cases) EXPECT_EQ(formatSlurmTime(c.at, "relative", kNow), c.text) << c.at;
}

TEST_F(SlurmTimeFormatTest, AnythingElseIsAStrftimeFormat) {
  EXPECT_EQ(formatSlurmTime(1827790042, "%s", kNow), "1827790042");
  EXPECT_EQ(formatSlurmTime(1827790042, "%a %T", kNow), "Thu 23:27:22");
}

TEST_F(SlurmTimeFormatTest, TheEnvironmentVariableChoosesTheForm) {
  setenv("SLURM_TIME_FORMAT", "%s", 1);
  EXPECT_EQ(formatSlurmTime(1796254042), "1796254042");
  unsetenv("SLURM_TIME_FORMAT");
  EXPECT_EQ(formatSlurmTime(1796254042), "2026-12-02T23:27:22");
}

}  // namespace
}  // namespace drover
