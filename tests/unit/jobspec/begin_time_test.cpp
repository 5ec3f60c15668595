// --begin forms against a fixed `now` (2026-11-30 12:00:00 UTC) with TZ=UTC.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "jobspec/begin_time.h"

namespace drover::jobspec {
namespace {

constexpr std::int64_t kNow = 1796040000;  // 2026-11-30T12:00:00Z
constexpr std::int64_t kHour = 3600;
constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kTodayMidnight = kNow - 12 * kHour;

class BeginTime : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(BeginTime, ParsesSlurmForms) {
  struct Case {
    std::string text;
    std::int64_t want;
  };
  const std::vector<Case> cases = {
      {"now", kNow},
      {"now+60", kNow + 60},
      {"now+90seconds", kNow + 90},
      {"now+10minutes", kNow + 600},
      {"now+1hour", kNow + kHour},
      {"now+2hours", kNow + 2 * kHour},
      {"now+1day", kNow + kDay},
      {"now+1week", kNow + 7 * kDay},
      // Minus as well, as the reference's sacct -S now-2hours and sbatch --begin=now-5 took.
      {"now-5", kNow - 5},
      {"now-10minutes", kNow - 600},
      {"now-2days", kNow - 2 * kDay},
      {"16:00", kTodayMidnight + 16 * kHour},
      {"16:00:30", kTodayMidnight + 16 * kHour + 30},
      {"11:00", kTodayMidnight + kDay + 11 * kHour},  // already past today: tomorrow
      {"4:00pm", kTodayMidnight + 16 * kHour},
      {"12:00am", kTodayMidnight + kDay},
      {"midnight", kTodayMidnight + kDay},
      {"noon", kTodayMidnight + kDay + 12 * kHour},  // now is exactly noon: next one
      {"elevenses", kTodayMidnight + kDay + 11 * kHour},
      {"fika", kTodayMidnight + 15 * kHour},
      {"teatime", kTodayMidnight + 16 * kHour},
      {"today", kTodayMidnight},
      {"tomorrow", kTodayMidnight + kDay},
      {"2026-12-01", 1796083200},
      {"2026-12-01T08:30", 1796113800},
      {"2026-12-01T08:30:00", 1796113800},
      {"12/24", 1798070400},
      {"12/24/26", 1798070400},
      {"12.24", 1798070400},
      {"1224", 1798070400},
      {"01/05", 1799107200},  // already past this year: next year
  };
  for (const auto& c : cases) {
    auto r = parseBeginTime(c.text, kNow);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error();
    EXPECT_EQ(*r, c.want) << c.text;
  }
}

TEST_F(BeginTime, RejectsGarbage) {
  for (std::string bad : {"", "garbage", "now+1xx", "now-x", "now-", "now+", "25:00", "12:60", "2026-13-01",
                          "2026-02-30", "13/01", "13:00pm", "2026-12-01T25:00", "nowish"}) {
    auto r = parseBeginTime(bad, kNow);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().find("accepted"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace drover::jobspec
