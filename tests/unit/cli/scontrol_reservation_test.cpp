// scontrol's reservation commands: keyword parsing (create/update), which command lines are
// reservation commands, and the `show reservation` record layout.
#include "cli/scontrol_reservation.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace drover::cli {
namespace {

// 2026-11-30T12:00:00Z
constexpr std::int64_t kNow = 1'796'040'000;

class ReservationCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(ReservationCliTest, CreateKeywords) {
  auto spec = parseReservationArgs({"ReservationName=lab", "StartTime=now", "Duration=60",
                                    "Nodes=node[01-02]", "Users=alice,bob", "Accounts=research",
                                    "PartitionName=gpu", "Flags=MAINT,IGNORE_JOBS"},
                                   false, kNow);
  ASSERT_TRUE(spec.ok()) << spec.error();
  EXPECT_EQ(spec->name(), "lab");
  EXPECT_EQ(spec->start_time(), kNow);
  EXPECT_EQ(spec->duration_s(), 3600);  // minutes, as Slurm's Duration
  EXPECT_FALSE(spec->has_end_time());
  EXPECT_EQ(spec->nodes(), "node[01-02]");
  EXPECT_EQ(spec->users(), "alice,bob");
  EXPECT_EQ(spec->accounts(), "research");
  EXPECT_EQ(spec->partition(), "gpu");
  EXPECT_EQ(spec->flags(), "MAINT,IGNORE_JOBS");
}

TEST_F(ReservationCliTest, FlagsPlusAndMinusEqualsAddAndRemove) {
  for (const auto& [word, sent] : std::vector<std::pair<std::string, std::string>>{
           {"Flags+=DAILY", "+DAILY"}, {"Flags-=DAILY,MAINT", "-DAILY,MAINT"},
           {"Flags=WEEKLY", "WEEKLY"}}) {
    auto spec = parseReservationArgs({"ReservationName=lab", word}, true, kNow);
    ASSERT_TRUE(spec.ok()) << word << ": " << spec.error();
    EXPECT_EQ(spec->flags(), sent) << word;
  }
}

TEST_F(ReservationCliTest, KeysAreCaseInsensitiveAndTimesRelative) {
  auto spec = parseReservationArgs(
      {"reservation=x", "starttime=now+1hour", "endtime=2026-12-01T08:30:00", "nodecnt=3",
       "users=alice", "partition=debug"},
      false, kNow);
  ASSERT_TRUE(spec.ok()) << spec.error();
  EXPECT_EQ(spec->name(), "x");
  EXPECT_EQ(spec->start_time(), kNow + 3600);
  EXPECT_EQ(spec->end_time(), 1'796'113'800);  // 2026-12-01T08:30:00Z
  EXPECT_EQ(spec->node_count(), 3u);
  EXPECT_EQ(spec->partition(), "debug");
  EXPECT_FALSE(spec->has_nodes());
}

TEST_F(ReservationCliTest, DurationForms) {
  struct Case {
    std::string text;
    std::int64_t seconds;
  };
  for (const Case& c : std::vector<Case>{{"90", 5400},
                                         {"2:00:00", 7200},
                                         {"14-00:00:00", 14 * 86400},
                                         {"UNLIMITED", -1}}) {
    auto spec = parseReservationArgs({"Duration=" + c.text, "StartTime=now", "Nodes=n1",
                                      "Users=alice"},
                                     false, kNow);
    ASSERT_TRUE(spec.ok()) << c.text << ": " << spec.error();
    EXPECT_EQ(spec->duration_s(), c.seconds) << c.text;
  }
}

TEST_F(ReservationCliTest, CreateErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string error;  // prefix
  };
  const std::vector<Case> cases = {
      {{"Duration=60", "Nodes=n1", "Users=a"}, "A start time must be specified"},
      {{"StartTime=now", "Nodes=n1", "Users=a"}, "An end time or duration must be specified"},
      {{"StartTime=now", "Duration=60", "Users=a"}, "Nodes or NodeCnt must be specified"},
      {{"StartTime=now", "Duration=60", "Nodes=n1"}, "Either Users and/or Accounts"},
      {{"StartTime=whenever", "Duration=60", "Nodes=n1", "Users=a"},
       "bare: Invalid time specification (pos=0): whenever\nscontrol: error: Invalid start time "
       "StartTime=whenever.  No reservation created."},
      // An empty time: what the reference's controller answered for it.
      {{"StartTime=", "Duration=60", "Nodes=n1", "Users=a"},
       "bare: Error creating the reservation: Invalid time specified"},
      {{"StartTime=now", "Duration=soon", "Nodes=n1", "Users=a"}, "Invalid duration"},
      {{"StartTime=now", "Duration=60", "NodeCnt=0", "Users=a"}, "Invalid node count"},
      {{"StartTime=now", "Duration=60", "Nodes=n1", "Users=a", "Bogus=1"}, "Invalid input: Bogus=1"},
      {{"StartTime=now", "Duration=60", "Nodes=n1", "Users=a", "noequals"}, "Invalid input"},
      {{"StartTime=now", "Duration=60", "Nodes=n1", "Users=a", "CoreCnt=4"}, "CoreCnt= is not supported"},
      {{"StartTime=now", "Duration=60", "Nodes=n1", "StartTime+=1"}, "Invalid input: StartTime+=1"},
  };
  for (const auto& c : cases) {
    auto spec = parseReservationArgs(c.args, false, kNow);
    ASSERT_FALSE(spec.ok()) << c.error;
    EXPECT_EQ(spec.error().rfind(c.error, 0), 0u) << spec.error();
  }
}

TEST_F(ReservationCliTest, UpdateNeedsOnlyTheName) {
  auto spec = parseReservationArgs({"ReservationName=lab", "Users+=carol", "Accounts-=ops"}, true,
                                   kNow);
  ASSERT_TRUE(spec.ok()) << spec.error();
  EXPECT_EQ(spec->name(), "lab");
  EXPECT_EQ(spec->users(), "+carol");
  EXPECT_EQ(spec->accounts(), "-ops");
  EXPECT_FALSE(spec->has_start_time());
  EXPECT_FALSE(spec->has_nodes());
  auto unnamed = parseReservationArgs({"Users=bob"}, true, kNow);
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.error(), "Reservation must be given.  No reservation update.");
}

TEST_F(ReservationCliTest, WhichCommandsAreReservationCommands) {
  struct Case {
    std::vector<std::string> words;
    bool expected;
  };
  const std::vector<Case> cases = {
      {{"create", "reservation", "StartTime=now"}, true},
      {{"create", "res", "StartTime=now"}, true},
      {{"delete", "ReservationName=x"}, true},
      {{"delete", "reservation", "x"}, true},
      {{"show", "reservation"}, true},
      {{"show", "res", "x"}, true},
      {{"show", "ReservationName=x"}, true},
      {{"show", "job", "1"}, false},
      {{"show", "node"}, false},
      {{"update", "ReservationName=x", "Users=a"}, true},
      {{"update", "JobId=1", "TimeLimit=5"}, false},
      {{"update", "NodeName=n1", "State=DRAIN"}, false},
      {{"hold", "1"}, false},
  };
  for (const auto& c : cases) {
    std::string line;
    for (const auto& w : c.words) line += w + " ";
    EXPECT_EQ(isReservationCommand(c.words), c.expected) << line;
  }
}

v1::ReservationInfo sample() {
  v1::ReservationInfo r;
  r.set_name("lab");
  r.set_start_time(kNow);
  r.set_end_time(kNow + 3600);
  r.add_nodes("node02");
  r.add_nodes("node01");
  r.set_node_list_given(true);
  r.set_core_count(8);
  r.set_partition("gpu");
  r.add_flags("MAINT");
  r.add_flags("IGNORE_JOBS");
  r.add_users("alice");
  r.add_users("bob");
  r.set_active(true);
  return r;
}

TEST_F(ReservationCliTest, ShowRecordLayout) {
  EXPECT_EQ(formatReservationRecord(sample(), false),
            "ReservationName=lab StartTime=2026-11-30T12:00:00 EndTime=2026-11-30T13:00:00 "
            "Duration=01:00:00\n"
            "   Nodes=node[01-02] NodeCnt=2 CoreCnt=8 Features=(null) PartitionName=gpu "
            "Flags=MAINT,IGNORE_JOBS,SPEC_NODES\n"
            "   TRES=cpu=8\n"
            "   Users=alice,bob Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE "
            "BurstBuffer=(null) Watts=n/a\n"
            "   MaxStartDelay=(null)\n"
            "\n");
}

TEST_F(ReservationCliTest, ShowRecordUnsetFieldsAndOneLiner) {
  v1::ReservationInfo r = sample();
  r.clear_partition();
  r.clear_flags();
  r.set_node_list_given(false);
  r.clear_users();
  r.add_accounts("research");
  r.set_active(false);
  r.set_end_time(kNow + 14 * 86400);
  EXPECT_EQ(formatReservationRecord(r, true),
            "ReservationName=lab StartTime=2026-11-30T12:00:00 EndTime=2026-12-14T12:00:00 "
            "Duration=14-00:00:00 Nodes=node[01-02] NodeCnt=2 CoreCnt=8 Features=(null) "
            "PartitionName=(null) Flags=(null) TRES=cpu=8 Users=(null) Groups=(null) "
            "Accounts=research Licenses=(null) State=INACTIVE BurstBuffer=(null) Watts=n/a "
            "MaxStartDelay=(null)\n");
}

}  // namespace
}  // namespace drover::cli
