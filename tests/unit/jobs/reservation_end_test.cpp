// Recurring reservations (HOURLY/DAILY/WEEKLY) and the end of a reservation for the jobs
// running in it (ResvOverRun): the arithmetic as tables, then the job manager end to end.
#include <gtest/gtest.h>

#include <csignal>

#include "jobs/reservations.h"
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

constexpr std::int64_t kHour = 3600;
constexpr std::int64_t kDay = 24 * kHour;
constexpr std::int64_t kT0 = 1'767'225'600;  // a reservation's start

v1::ReservationInfo resv(std::int64_t start, std::int64_t end,
                         std::vector<std::string> flags = {}) {
  v1::ReservationInfo r;
  r.set_name("r");
  r.set_start_time(start);
  r.set_end_time(end);
  for (auto& f : flags) r.add_flags(std::move(f));
  return r;
}

TEST(ReservationRecurrence, PeriodPerFlag) {
  struct Case {
    std::vector<std::string> flags;
    std::int64_t period;
  };
  const std::vector<Case> cases = {
      {{}, 0}, {{"MAINT"}, 0}, {{"HOURLY"}, kHour}, {{"DAILY"}, kDay},
      {{"WEEKLY"}, 7 * kDay}, {{"IGNORE_JOBS", "DAILY"}, kDay}};
  for (const auto& c : cases) {
    EXPECT_EQ(recurrencePeriod(resv(kT0, kT0 + 600, c.flags)), c.period) << c.flags.size();
  }
}

TEST(ReservationRecurrence, OccurrenceEndOfAJobsStart) {
  struct Case {
    std::string name;
    std::vector<std::string> flags;
    std::int64_t job_start;
    std::int64_t end;
  };
  // The book holds the occurrence [kT0, kT0+1h).
  const std::vector<Case> cases = {
      {"one-off, started inside", {}, kT0 + 60, kT0 + kHour},
      {"one-off, started before (FLEX-like)", {}, kT0 - 60, kT0 + kHour},
      {"daily, current occurrence", {"DAILY"}, kT0 + 60, kT0 + kHour},
      {"daily, yesterday's occurrence", {"DAILY"}, kT0 - kDay + 60, kT0 - kDay + kHour},
      {"daily, three days ago", {"DAILY"}, kT0 - 3 * kDay, kT0 - 3 * kDay + kHour},
      {"hourly, previous", {"HOURLY"}, kT0 - 10, kT0},
      {"weekly, previous", {"WEEKLY"}, kT0 - 7 * kDay + 5, kT0 - 7 * kDay + kHour},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(occurrenceEnd(resv(kT0, kT0 + kHour, c.flags), c.job_start), c.end) << c.name;
  }
}

TEST(ReservationRecurrence, KillTimeFollowsResvOverRun) {
  struct Case {
    std::string name;
    std::vector<std::string> flags;
    std::int64_t over_run_s;
    std::optional<std::int64_t> kill;
  };
  const std::vector<Case> cases = {
      {"at the end (ResvOverRun=0)", {}, 0, kT0 + kHour},
      {"five minutes later", {}, 300, kT0 + kHour + 300},
      {"UNLIMITED: never", {}, -1, std::nullopt},
      {"FLEX: never", {"FLEX"}, 0, std::nullopt},
      {"daily: its own occurrence", {"DAILY"}, 60, kT0 + kHour + 60},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(reservationKillTime(resv(kT0, kT0 + kHour, c.flags), kT0 + 10, c.over_run_s), c.kill)
        << c.name;
  }
}

class RecurringBookTest : public ::testing::Test {
 protected:
  v1::ReservationSpec spec(const std::string& name, const std::string& flags,
                           std::int64_t duration = kHour) {
    v1::ReservationSpec s;
    s.set_name(name);
    s.set_start_time(kT0);
    s.set_duration_s(duration);
    s.set_users("alice");
    s.set_nodes(name == "weekly" ? "node02" : "node01");
    if (!flags.empty()) s.set_flags(flags);
    return s;
  }
  ReservationContext ctx(std::int64_t now = kT0) const {
    ReservationContext c;
    c.now = now;
    return c;
  }
  config::ClusterConfig config_ = smallCluster();
  ReservationBook book_{config_};
};

TEST_F(RecurringBookTest, FlagsAreValidatedAndShownInSlurmOrder) {
  auto made = book_.create(spec("d", "daily,maint"), ctx());
  ASSERT_TRUE(made.ok()) << made.error();
  EXPECT_EQ(std::vector<std::string>(made->flags().begin(), made->flags().end()),
            (std::vector<std::string>{"MAINT", "DAILY"}));
  auto two = parseReservationFlags("DAILY,WEEKLY");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().find("at most one of HOURLY, DAILY, WEEKLY"), std::string::npos);
  auto too_long = book_.create(spec("h", "HOURLY", 2 * kHour), ctx());
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().rfind(kResvBadTime, 0), 0u) << too_long.error();
}

TEST_F(RecurringBookTest, FlagsPlusEqualsAddsMinusEqualsRemoves) {
  ASSERT_TRUE(book_.create(spec("r", "MAINT"), ctx()).ok());
  auto flagsAfter = [&](const std::string& change) -> std::string {
    v1::ReservationSpec u;
    u.set_name("r");
    u.set_flags(change);
    auto r = book_.update(u, ctx());
    if (!r.ok()) return "error: " + r.error();
    std::string out;
    for (const auto& f : r->flags()) out += (out.empty() ? "" : ",") + f;
    return out;
  };
  struct Case {
    std::string change;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"+DAILY", "MAINT,DAILY"},
      {"+ignore_jobs", "MAINT,IGNORE_JOBS,DAILY"},
      {"-DAILY,MAINT", "IGNORE_JOBS"},
      {"+WEEKLY", "IGNORE_JOBS,WEEKLY"},
      {"+DAILY", "error: Invalid reservation flags: IGNORE_JOBS,WEEKLY,DAILY (give at most one "
                 "of HOURLY, DAILY, WEEKLY)"},
      {"OVERLAP", "OVERLAP"},
  };
  for (const auto& c : cases) EXPECT_EQ(flagsAfter(c.change), c.want) << c.change;
  auto signed_create = book_.create(spec("s", "+DAILY"), ctx());
  ASSERT_FALSE(signed_create.ok());
  EXPECT_NE(signed_create.error().find("only change the flags of an existing"), std::string::npos);
}

TEST_F(RecurringBookTest, RecurringMoveOnOneOffEndAfterOverRun) {
  ASSERT_TRUE(book_.create(spec("daily", "DAILY"), ctx()).ok());
  ASSERT_TRUE(book_.create(spec("weekly", "WEEKLY", 2 * kHour), ctx()).ok());
  v1::ReservationSpec once = spec("once", "");
  once.set_nodes("node03");
  ASSERT_TRUE(book_.create(once, ctx()).ok());
  EXPECT_EQ(book_.nextExpiry(300), kT0 + kHour);  // daily's end comes first

  auto e = book_.expire(kT0 + kHour, 300);
  ASSERT_EQ(e.moved.size(), 1u);
  EXPECT_EQ(e.moved[0].name(), "daily");
  EXPECT_EQ(e.moved[0].start_time(), kT0 + kDay);
  EXPECT_EQ(e.moved[0].end_time(), kT0 + kDay + kHour);
  EXPECT_TRUE(e.dropped.empty());  // "once" is kept for ResvOverRun
  auto listed = book_.list({}, kT0 + kHour);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);  // weekly and daily's next; once has ended
  EXPECT_EQ(book_.nextExpiry(300), kT0 + kHour + 300);

  e = book_.expire(kT0 + kHour + 300, 300);
  EXPECT_EQ(e.dropped, std::vector<std::string>{"once"});
  // A controller down for ten days: the occurrences it missed are skipped; the one under way
  // (day 10, started 30 minutes ago) is current.
  e = book_.expire(kT0 + 10 * kDay + 30 * 60, 300);
  ASSERT_EQ(e.moved.size(), 2u);
  const auto* daily = book_.find("daily");
  ASSERT_NE(daily, nullptr);
  EXPECT_EQ(daily->start_time(), kT0 + 10 * kDay);
  const auto* weekly = book_.find("weekly");
  ASSERT_NE(weekly, nullptr);
  EXPECT_EQ(weekly->start_time(), kT0 + 14 * kDay);
}

// The job manager: a reservation on node01 for alice, jobs running in it when it ends.
class ReservationEndTest : public JobsTest {
 protected:
  void reserve(const std::string& name, std::int64_t duration, const std::string& flags = "") {
    v1::ReservationSpec s;
    s.set_name(name);
    s.set_start_time(clock_.now());
    s.set_duration_s(duration);
    s.set_users("alice");
    s.set_nodes("node01");
    if (!flags.empty()) s.set_flags(flags);
    ReservationContext c;
    c.now = clock_.now();
    auto r = manager_->reservations().create(s, c);
    ASSERT_TRUE(r.ok()) << r.error();
  }
  JobId runIn(const std::string& resv, bool batch = true) {
    v1::JobSpec s = SpecBuilder().time(5).ntasks(1).spec();
    s.set_reservation(resv);
    if (!batch) s.set_batch(false);
    const JobId id = submit(s);
    pass();
    EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
    return id;
  }
};

TEST_F(ReservationEndTest, BatchJobIsKilledAtTheEndAndEndsTimeout) {
  reserve("lab", 600);
  const JobId id = runIn("lab");
  (void)manager_->takeSignals();
  EXPECT_EQ(manager_->endReservationJobs(0), clock_.now() + 600);
  EXPECT_TRUE(manager_->takeSignals().empty());
  clock_.advanceSeconds(600);
  EXPECT_EQ(manager_->endReservationJobs(0), 0);
  ASSERT_TRUE(manager_->commit().ok());
  auto signals = manager_->takeSignals();
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].job_id, id);
  EXPECT_EQ(signals[0].request.signal(), SIGKILL);
  EXPECT_TRUE(signals[0].request.kill());
  // Not again while it dies; COMPLETING meanwhile, its run time and end frozen at the kill;
  // TIMEOUT once its step reports, ended at the kill.
  const std::int64_t killed_at = clock_.now();
  EXPECT_EQ(manager_->endReservationJobs(0), 0);
  EXPECT_TRUE(manager_->takeSignals().empty());
  clock_.advanceSeconds(4);
  v1::GetJobsRequest one;
  one.add_job_ids(std::to_string(id));
  const auto rows = manager_->query(one);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state(), v1::JOB_COMPLETING);
  EXPECT_EQ(rows[0].run_time_s(), 600);
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_TIMEOUT);
  EXPECT_EQ(job(id).end_time(), killed_at);
  // Kept across a restart while the kill was in flight.
}

TEST_F(ReservationEndTest, KillInFlightSurvivesARestart) {
  reserve("lab", 600);
  const JobId id = runIn("lab");
  clock_.advanceSeconds(600);
  manager_->endReservationJobs(0);
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_TIMEOUT);
}

TEST_F(ReservationEndTest, OverRunFlexAndUnlimitedDecideWhen) {
  struct Case {
    std::string name;
    std::string flags;
    std::int64_t over_run_s;
    bool killed_at_end;
    bool killed_after_over_run;
  };
  const std::vector<Case> cases = {
      {"ResvOverRun=0", "", 0, true, true},
      {"ResvOverRun=5min", "", 300, false, true},
      {"UNLIMITED", "", -1, false, false},
      {"FLEX", "FLEX", 0, false, false},
  };
  for (const auto& c : cases) {
    const std::string name = "r" + std::to_string(&c - cases.data());
    reserve(name, 600, c.flags);
    const JobId id = runIn(name);
    (void)manager_->takeSignals();
    clock_.advanceSeconds(600);
    manager_->endReservationJobs(c.over_run_s);
    EXPECT_EQ(!manager_->takeSignals().empty(), c.killed_at_end) << c.name;
    clock_.advanceSeconds(300);
    manager_->endReservationJobs(c.over_run_s);
    (void)manager_->takeSignals();
    const Job* j = manager_->find(id);
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(j->pending_end == PendingEnd::kTimeout, c.killed_after_over_run) << c.name;
    finishBatch(id, 0, SIGKILL);
    (void)manager_->reservations().remove(name);
  }
}

TEST_F(ReservationEndTest, InteractiveAllocationEndsAtOnce) {
  reserve("lab", 600);
  const JobId id = runIn("lab", false);
  clock_.advanceSeconds(600);
  manager_->endReservationJobs(0);
  ASSERT_TRUE(manager_->commit().ok());
  EXPECT_EQ(job(id).state(), v1::JOB_TIMEOUT);
}

TEST_F(ReservationEndTest, DailyJobIsEndedWithItsOccurrenceAfterTheBookMovedOn) {
  reserve("daily", 600, "DAILY");
  const JobId id = runIn("daily");
  clock_.advanceSeconds(600);
  auto moved = manager_->reservations().expire(clock_.now(), 0);
  ASSERT_EQ(moved.moved.size(), 1u);
  (void)manager_->takeSignals();
  manager_->endReservationJobs(0);
  ASSERT_EQ(manager_->takeSignals().size(), 1u);
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_TIMEOUT);
}

}  // namespace
}  // namespace drover::jobs::testing
