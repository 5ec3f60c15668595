#include "drover/time_spec.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace drover {
namespace {

struct ParseCase {
  std::string text;
  std::int64_t seconds;
  std::int64_t minutes;  // parseTimeLimitMinutes: partial minutes round up
};

TEST(TimeSpec, ParsesEverySlurmForm) {
  const std::vector<ParseCase> cases = {
      {"30", 1800, 30},                   // M
      {"0", 0, 0},
      {"90", 5400, 90},
      {"0:30", 30, 1},                    // M:S rounds up to a whole minute for limits
      {"5:00", 300, 5},
      {"1:02:03", 3723, 63},              // H:M:S
      {"01:00:00", 3600, 60},
      {"1-0", 86400, 1440},               // D-H
      {"1-", 86400, 1440},                // D- (the reference took `-t 1-`)
      {"2-12", 216000, 3600},
      {"1-2:30", 95400, 1590},            // D-H:M
      {"1-02:03:04", 93784, 1564},        // D-H:M:S
      {"1-00:00:00", 86400, 1440},
      {"0-0:0:1", 1, 1},
      {"1:90:00", 9000, 150},             // fields are not range-checked, as in Slurm
      {"UNLIMITED", kUnlimitedSeconds, kUnlimitedMinutes},
      {"unlimited", kUnlimitedSeconds, kUnlimitedMinutes},
      {"Infinite", kUnlimitedSeconds, kUnlimitedMinutes},
      {"INFINITE", kUnlimitedSeconds, kUnlimitedMinutes},
      {"-1", kUnlimitedSeconds, kUnlimitedMinutes},
  };
  for (const auto& c : cases) {
    auto s = parseTimeSpecSeconds(c.text);
    ASSERT_TRUE(s.ok()) << c.text << ": " << s.error();
    EXPECT_EQ(*s, c.seconds) << c.text;
    auto m = parseTimeLimitMinutes(c.text);
    ASSERT_TRUE(m.ok()) << c.text << ": " << m.error();
    EXPECT_EQ(*m, c.minutes) << c.text;
  }
}

struct BadCase {
  std::string text;
  std::string reason;
};

TEST(TimeSpec, RejectsGarbageNamingTheText) {
  const std::vector<BadCase> cases = {
      {"garbage", "unexpected 'g'"},  // goldens 012/057: sbatch/srun -t garbage
      {"", "empty"},
      {"-5", "missing days"},
      {"1:", "missing number"},
      {":30", "missing number"},
      {"1::2", "missing number"},
      {"1:2:3:4", "too many ':' fields"},
      {"1-2:3:4:5", "too many ':' fields"},
      {"1:2-3", "days must be a plain number"},
      {"1-2-3", "unexpected '-'"},
      {"10m", "unexpected 'm'"},
      {" 10", "unexpected ' '"},
      {"1.5", "unexpected '.'"},
      {"unlimitedx", "unexpected 'u'"},
      {"99999999999", "number too large"},
      {"9999999999", "too large"},  // minutes past Slurm's 32-bit limit
      {"-2", "missing days"},
  };
  for (const auto& c : cases) {
    auto s = parseTimeSpecSeconds(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.error().find("Invalid time limit specification '" + c.text + "'"),
              std::string::npos)
        << s.error();
    EXPECT_NE(s.error().find(c.reason), std::string::npos) << s.error();
    EXPECT_NE(s.error().find("accepted: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S"), std::string::npos);
    EXPECT_FALSE(parseTimeLimitMinutes(c.text).ok()) << c.text;
  }
}

struct FormatCase {
  std::int64_t seconds;
  std::string scontrol;  // formatDuration
  std::string limit;     // formatTimeLimit
  std::string elapsed;   // formatElapsed
};

TEST(TimeSpec, FormatsAsSlurm) {
  const std::vector<FormatCase> cases = {
      // golden 095: DefaultTime=01:00:00 MaxTime=1-00:00:00, 00:10:00, 00:30:00
      // golden 080: sinfo TIMELIMIT 1-00:00:00, 30:00; golden 077: 1:00:00, 5:00, 10:00
      // goldens 068-079: squeue TIME 0:00, 0:21, ...
      {0, "00:00:00", "0:00", "0:00"},
      {21, "00:00:21", "0:21", "0:21"},
      {65, "00:01:05", "1:05", "1:05"},
      {300, "00:05:00", "5:00", "5:00"},
      {600, "00:10:00", "10:00", "10:00"},
      {1800, "00:30:00", "30:00", "30:00"},
      {3599, "00:59:59", "59:59", "59:59"},
      {3600, "01:00:00", "1:00:00", "1:00:00"},
      {3723, "01:02:03", "1:02:03", "1:02:03"},
      {86399, "23:59:59", "23:59:59", "23:59:59"},
      {86400, "1-00:00:00", "1-00:00:00", "1-00:00:00"},
      {93784, "1-02:03:04", "1-02:03:04", "1-02:03:04"},
      {12 * 86400 + 5, "12-00:00:05", "12-00:00:05", "12-00:00:05"},
      {kUnlimitedSeconds, "UNLIMITED", "UNLIMITED", "INVALID"},
      {-7, "INVALID", "INVALID", "INVALID"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(formatDuration(c.seconds), c.scontrol) << c.seconds;
    EXPECT_EQ(formatTimeLimit(c.seconds), c.limit) << c.seconds;
    EXPECT_EQ(formatElapsed(c.seconds), c.elapsed) << c.seconds;
  }
}

TEST(TimeSpec, PrintedLimitsParseBack) {
  for (std::int64_t s : {0LL, 60LL, 1800LL, 3600LL, 3723LL, 86400LL, 93784LL, 999999LL}) {
    for (const auto& text : {formatDuration(s), formatTimeLimit(s)}) {
      auto back = parseTimeSpecSeconds(text);
      ASSERT_TRUE(back.ok()) << text << ": " << back.error();
      EXPECT_EQ(*back, s) << text;
    }
  }
  EXPECT_EQ(*parseTimeSpecSeconds(formatTimeLimit(kUnlimitedSeconds)), kUnlimitedSeconds);
}

struct MemoryCase {
  std::string text;
  std::uint64_t mb;
};

TEST(Memory, ParsesSizesInMiB) {
  const std::vector<MemoryCase> cases = {
      {"4000", 4000}, {"0", 0},         {"4G", 4096},      {"4g", 4096},  {"512K", 1},
      {"1k", 1},      {"1025K", 2},     {"1024K", 1},      {"1T", 1048576}, {"2t", 2097152},
      {"2M", 2},      {"2m", 2},        {"64G", 65536},    {"0G", 0},
      {"1P", 1073741824}, {"2e", 2199023255552}, {"1953125P", 2097152000000000},
  };
  for (const auto& c : cases) {
    auto got = parseMemoryMb(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.error();
    EXPECT_EQ(*got, c.mb) << c.text;
  }
}

TEST(Memory, RejectsGarbageNamingTheText) {
  const std::vector<BadCase> cases = {
      {"", "empty"},          {"G", "missing number"},   {"-1", "missing number"},
      {"4GB", "unexpected 'GB'"}, {"4X", "unknown unit 'X'"}, {"1.5G", "unexpected '.5G'"},
      {" 4G", "missing number"},  {"99999999999999999999", "too large"},
      {"9007199254740993", "too large"}, {"9999999999T", "too large"}, {"9999E", "too large"},
  };
  for (const auto& c : cases) {
    auto got = parseMemoryMb(c.text);
    ASSERT_FALSE(got.ok()) << c.text;
    EXPECT_NE(got.error().find("Invalid memory specification '" + c.text + "'"),
              std::string::npos)
        << got.error();
    EXPECT_NE(got.error().find(c.reason), std::string::npos) << got.error();
    EXPECT_NE(got.error().find("accepted"), std::string::npos) << got.error();
  }
}

TEST(Memory, AJobsOptionReadsAsTheReferencesSbatch) {
  // Checked on the reference: 10GB, 10gb, 10Mb, 10mB, 10KB, 1kb and 10TB were taken, 10B,
  // 10MiB, 1p and 1P refused (its units stop at T).
  const std::vector<MemoryCase> taken = {{"10GB", 10240}, {"10gb", 10240}, {"10Mb", 10}, {"10mB", 10},
                                         {"10KB", 1},     {"1kb", 1},      {"10TB", 10485760},
                                         {"4000", 4000},  {"4G", 4096}};
  for (const auto& c : taken) {
    auto got = parseJobMemoryMb(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.error();
    EXPECT_EQ(*got, c.mb) << c.text;
  }
  for (const char* text : {"10B", "10MiB", "1p", "1P", "2E", "1PB", "", "GB", "4GBB", "1.5GB", "-1"}) {
    auto got = parseJobMemoryMb(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.error().find("K, M, G or T"), std::string::npos) << got.error();
  }
}

TEST(Memory, FormatsAsSlurm) {
  const std::vector<MemoryCase> cases = {
      // golden 093: CfgTRES mem=64G, AllocTRES mem=12000M and mem=62.50G
      {"64G", 65536},     {"12000M", 12000}, {"62.50G", 64000},    {"187.50G", 192000},
      {"256G", 262144},   {"4000M", 4000},   {"1G", 1024},          {"2G", 2048},
      {"999999999M", 999999999}, {"0", 0},   {"1.50G", 1536},       {"1.50T", 1572864},
      {"1T", 1048576},    {"512M", 512},     {"1953125P", 2097152000000000},
      {"1E", 1099511627776},     {"1023M", 1023},       {"1025M", 1025},
  };
  for (const auto& c : cases) EXPECT_EQ(formatMemoryMb(c.mb), c.text) << c.mb;
}

TEST(Memory, WholeUnitsParseBack) {
  for (std::uint64_t mb : {1ULL, 1024ULL, 4000ULL, 65536ULL, 1048576ULL, 3ULL * 1048576,
                          2097152000000000ULL, 1ULL << 40}) {
    auto back = parseMemoryMb(formatMemoryMb(mb));  // found by fuzz_time_spec for P
    ASSERT_TRUE(back.ok()) << formatMemoryMb(mb);
    EXPECT_EQ(*back, mb);
  }
}

TEST(LocalTime, FormatsInTheLocalZone) {
  const char* saved = std::getenv("TZ");
  const std::string before = saved ? saved : "";
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(formatLocalTime(1796040000, kIsoLocalTime), "2026-11-30T12:00:00");
  EXPECT_EQ(formatLocalTime(1796040000, "%a %b %d %H:%M:%S %Y"), "Mon Nov 30 12:00:00 2026");
  setenv("TZ", "EST5", 1);
  tzset();
  EXPECT_EQ(formatLocalTime(1796040000, kIsoLocalTime), "2026-11-30T07:00:00");
  if (saved) setenv("TZ", before.c_str(), 1); else unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace drover
