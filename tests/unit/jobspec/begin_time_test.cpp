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
      // Forms the reference (Slurm 22.05) took, checked with sbatch --begin there.
      {"1.5", 1799107200},
      {"now+5 hours", kNow + 5 * kHour},
      {"now +5", kNow + 5},
      {"now+ 5", kNow + 5},
      {"NOW", kNow},
      {"Now+5", kNow + 5},
      {"now+5second", kNow + 5},
      {"now-5hours", kNow - 5 * kHour},
      {"10:00 tomorrow", kTodayMidnight + kDay + 10 * kHour},
      {"tomorrow 10:00", kTodayMidnight + kDay + 10 * kHour},
      {"noon tomorrow", kTodayMidnight + kDay + 12 * kHour},
      {"today 23:00", kTodayMidnight + 23 * kHour},
      {"16:00 12/24", 1798070400 + 16 * kHour},
      {"2026-12-24 noon", 1798070400 + 12 * kHour},
      {"10:00 2026-12-24", 1798070400 + 10 * kHour},
      {"12/24/26 10:00", 1798070400 + 10 * kHour},
      {"10:00  12/24/26", 1798070400 + 10 * kHour},
      {" 16:00 ", kTodayMidnight + 16 * kHour},
      {"4:00 PM", kTodayMidnight + 16 * kHour},
      {"0:00am", kTodayMidnight + kDay},
      {"9:05", kTodayMidnight + kDay + 9 * kHour + 5 * 60},
      {"2026-12-1", 1796083200},
      {"2026-12-01T", 1796083200},
      {"2026-12-01T8:30", 1796113800},
      {"2026-12-01 08:30", 1796113800},
      {"2027-02-30", 1803945600},  // normalised as the reference's: 2027-03-02
      {"120140", 2237932800},      // MMDDYY: 2040-12-01
  };
  for (const auto& c : cases) {
    auto r = parseBeginTime(c.text, kNow);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error();
    EXPECT_EQ(*r, c.want) << c.text;
  }
}

// Each with where the reference's reading stopped (its "Invalid time specification (pos=N)"),
// as sacct -S, sbatch --begin and sacctmgr show event start= printed them.
TEST_F(BeginTime, RejectsWhatTheReferenceRejectsAtItsPosition) {
  struct Case {
    std::string text;
    std::size_t pos;
  };
  const std::vector<Case> cases = {
      {"garbage", 0},
      {"abc123", 0},
      {"x2026-12-01", 0},
      {"/12", 0},
      {"2026-13-45", 5},
      {"2026-00-01", 5},
      {"2026-12-00", 8},
      {"2026-12-01X", 10},
      {"2026-12-01T25:00", 11},
      {"2026-12-01T10", 13},
      {"2026-12-01T10:61:00", 14},
      {"2026-12-01T10:0", 15},
      {"2026-12-01T10:00:61", 17},
      {"2026-12-01T10:00:00x", 19},
      {"2026-12", 0},
      {"2026-1-5", 0},
      {"20261201", 0},
      {"1201266", 7},
      {"10", 2},
      {"10am", 2},
      {"0000", 0},
      {"1340", 0},
      {"now+", 3},
      {"nowx", 3},
      {"now+5x", 4},
      {"now+5m", 4},
      {"now+5h", 4},
      {"now+5min", 4},
      {"now+5sec", 4},
      {"now+5hou", 4},
      {"now+5 x", 5},
      {"now+5hoursx", 10},
      {"now 10:00", 4},
      {"12/40", 3},
      {"12/00", 3},
      {"12.40", 3},
      {"12/", 3},
      {"13/01", 0},
      {"00/12", 0},
      {"1/1/1", 5},
      {"12/01/5", 7},
      {"12/01/2026", 8},
      {"12/01/26x", 8},
      {"25:00", 0},
      {"009:05", 0},
      {"10:61", 3},
      {"10:00:61", 6},
      {"9:5", 3},
      {"10:0", 4},
      {"10:00x", 5},
      {"10:00a", 5},
      {"10:00 amx", 8},
      {"13:00pm", 5},
      {"10:00:00:00", 8},
      {"noonx", 4},
      {"todayx", 5},
      {"midnight+1", 8},
      {"tomorrow+", 8},
      {"10:00 tomorrowx", 14},
  };
  for (const auto& c : cases) {
    auto r = parseBeginTime(c.text, kNow);
    ASSERT_FALSE(r.ok()) << "[" << c.text << "] read as " << *r;
    EXPECT_EQ(r.error(), "Invalid time specification (pos=" + std::to_string(c.pos) + "): " + c.text);
  }
  // An empty text: refused without that line (the reference printed only the command's own).
  auto empty = parseBeginTime("", kNow);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error(), "");
}

// A report window places a time of day today and a date without a year in this year.
TEST_F(BeginTime, WindowUseKeepsTodayAndThisYear) {
  EXPECT_EQ(*parseTimeSpec("11:00", kNow, TimeSpecUse::kWindow), kTodayMidnight + 11 * kHour);
  EXPECT_EQ(*parseTimeSpec("midnight", kNow, TimeSpecUse::kWindow), kTodayMidnight);
  EXPECT_EQ(*parseTimeSpec("01/05", kNow, TimeSpecUse::kWindow), 1767571200);  // 2026-01-05
  EXPECT_EQ(*parseTimeSpec("tomorrow", kNow, TimeSpecUse::kWindow), kTodayMidnight + kDay);
  EXPECT_EQ(*parseTimeSpec("now-1hour", kNow, TimeSpecUse::kWindow), kNow - kHour);
}

}  // namespace
}  // namespace drover::jobspec
