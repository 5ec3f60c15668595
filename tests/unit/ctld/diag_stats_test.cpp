// sdiag's counters in the controller (ctld/diag_stats.h), the RPC ids (ctld/rpc_ids.h) and the
// counting wrapper every Controller handler gets (countCalls).
#include "ctld/diag_stats.h"

#include <gtest/gtest.h>

#include <set>

#include "ctld/handlers.h"
#include "ctld/rpc_ids.h"

namespace drover::ctld {
namespace {

std::string nameOf(std::uint32_t uid) { return uid == 0 ? "root" : "u" + std::to_string(uid); }

v1::GetStatisticsReply filled(const DiagStats& stats, jobs::LifecycleCounts jobs = {}) {
  v1::GetStatisticsReply r;
  stats.fill(jobs, nameOf, &r);
  return r;
}

TEST(DiagStats, CountsRpcsByMethodAndUserInTheOrderFirstSeen) {
  DiagStats stats(1000);
  auto a = stats.rpcStarted(10);
  auto b = stats.rpcStarted(20);
  EXPECT_EQ(stats.inFlight(), 2u);
  stats.rpcEnded(b, "SubmitJob", 1001, 120);   // 100 us
  stats.rpcEnded(a, "GetJobs", 0, 40);         // 30 us
  auto c = stats.rpcStarted(200);
  stats.rpcEnded(c, "SubmitJob", 1001, 250);   // 50 us
  EXPECT_EQ(stats.inFlight(), 0u);
  auto r = filled(stats);
  EXPECT_EQ(r.data_since(), 1000);
  ASSERT_EQ(r.rpc_types_size(), 2);
  EXPECT_EQ(r.rpc_types(0).name(), "REQUEST_SUBMIT_JOB");
  EXPECT_EQ(r.rpc_types(0).id(), 2006u);
  EXPECT_EQ(r.rpc_types(0).count(), 2u);
  EXPECT_EQ(r.rpc_types(0).total_us(), 150u);
  EXPECT_EQ(r.rpc_types(1).name(), "REQUEST_GET_JOBS");
  EXPECT_EQ(r.rpc_types(1).total_us(), 30u);
  ASSERT_EQ(r.rpc_users_size(), 2);
  EXPECT_EQ(r.rpc_users(0).name(), "u1001");
  EXPECT_EQ(r.rpc_users(0).id(), 1001u);
  EXPECT_EQ(r.rpc_users(0).count(), 2u);
  EXPECT_EQ(r.rpc_users(1).name(), "root");
  EXPECT_EQ(r.rpc_users(1).total_us(), 30u);
}

TEST(DiagStats, PassesGiveLastMaxTotalAndDepth) {
  DiagStats stats(0);
  stats.passRan(50, 3, 7);
  stats.passRan(200, 5, 2);
  stats.passRan(80, 1, 4);
  auto r = filled(stats);
  EXPECT_EQ(r.schedule_last_us(), 80u);
  EXPECT_EQ(r.schedule_max_us(), 200u);
  EXPECT_EQ(r.schedule_cycles(), 3u);
  EXPECT_EQ(r.schedule_total_us(), 330u);
  EXPECT_EQ(r.schedule_depth_total(), 9u);
  EXPECT_EQ(r.schedule_last_queue(), 4u);
}

TEST(DiagStats, BackfillCyclesCountFromTheResetAndJobsAlsoFromTheStart) {
  DiagStats stats(1000);
  EXPECT_EQ(filled(stats).backfill_last_when(), 1000);  // none yet: the controller's start
  stats.backfillRan({1100, 300, 2, 6, 5, 9});
  stats.backfillRan({1200, 100, 1, 2, 2, 4});
  auto r = filled(stats);
  EXPECT_EQ(r.backfilled_since_start(), 3u);
  EXPECT_EQ(r.backfilled_since_reset(), 3u);
  EXPECT_EQ(r.backfill_cycles(), 2u);
  EXPECT_EQ(r.backfill_last_when(), 1200);
  EXPECT_EQ(r.backfill_last_us(), 100u);
  EXPECT_EQ(r.backfill_max_us(), 300u);
  EXPECT_EQ(r.backfill_total_us(), 400u);
  EXPECT_EQ(r.backfill_last_depth(), 2u);
  EXPECT_EQ(r.backfill_last_depth_tried(), 2u);
  EXPECT_EQ(r.backfill_depth_total(), 8u);
  EXPECT_EQ(r.backfill_depth_tried_total(), 7u);
  EXPECT_EQ(r.backfill_last_queue(), 4u);
  EXPECT_EQ(r.backfill_queue_total(), 13u);
  stats.reset(1300, jobs::LifecycleCounts{});
  r = filled(stats);
  EXPECT_EQ(r.backfilled_since_start(), 3u);
  EXPECT_EQ(r.backfilled_since_reset(), 0u);
  EXPECT_EQ(r.backfill_cycles(), 0u);
  EXPECT_EQ(r.backfill_max_us(), 0u);
  EXPECT_EQ(r.backfill_last_when(), 1200);  // the last cycle stays, as the pass's
  EXPECT_EQ(r.backfill_last_us(), 100u);
}

TEST(DiagStats, ResetStartsEverythingAgainButTheLastPass) {
  DiagStats stats(1000);
  stats.passRan(70, 2, 3);
  auto call = stats.rpcStarted(0);
  stats.rpcEnded(call, "Ping", 0, 5);
  jobs::LifecycleCounts before{10, 8, 5, 2, 1};
  auto during = stats.rpcStarted(10);  // sdiag -r itself
  stats.reset(2000, before);
  stats.rpcEnded(during, "GetStatistics", 0, 20);
  auto r = filled(stats, jobs::LifecycleCounts{12, 9, 5, 3, 2});
  EXPECT_EQ(r.data_since(), 2000);
  // Only the reset's own call, which ended after it (as Slurm counts its REQUEST_STATS_INFO).
  ASSERT_EQ(r.rpc_types_size(), 1);
  EXPECT_EQ(r.rpc_types(0).name(), "REQUEST_GET_STATISTICS");
  EXPECT_EQ(r.rpc_types(0).total_us(), 10u);
  ASSERT_EQ(r.rpc_users_size(), 1);
  EXPECT_EQ(r.jobs_submitted(), 2u);
  EXPECT_EQ(r.jobs_started(), 1u);
  EXPECT_EQ(r.jobs_completed(), 0u);
  EXPECT_EQ(r.jobs_canceled(), 1u);
  EXPECT_EQ(r.jobs_failed(), 1u);
  EXPECT_EQ(r.schedule_cycles(), 0u);
  EXPECT_EQ(r.schedule_max_us(), 0u);
  EXPECT_EQ(r.schedule_last_us(), 70u);
  EXPECT_EQ(stats.inFlight(), 0u);
}

TEST(RpcIds, EveryControllerMethodHasItsOwnId) {
  ControllerHandlers h;
  std::set<std::uint32_t> ids;
  std::set<std::string> names;
  forEachHandler(h, [&](const char* method, const auto&) {
    const RpcId id = rpcId(method);
    EXPECT_NE(id.id, 0u) << method << " has no row in rpc_ids.cpp";
    EXPECT_TRUE(ids.insert(id.id).second) << method;
    EXPECT_TRUE(names.insert(std::string(id.name)).second) << method;
  });
  for (const char* agent : {"Register", "Heartbeat", "StepEvent"}) {
    EXPECT_NE(rpcId(agent).id, 0u) << agent;
    EXPECT_TRUE(ids.insert(rpcId(agent).id).second) << agent;
  }
  EXPECT_EQ(rpcId("SubmitJob").name, "REQUEST_SUBMIT_JOB");
  EXPECT_EQ(rpcId("NoSuchMethod").id, 0u);
  EXPECT_EQ(rpcId("NoSuchMethod").name, "NoSuchMethod");
}

TEST(CountCalls, EveryHandlerIsCountedWhenItAnswers) {
  DiagStats stats(0);
  ControllerHandlers h;
  wire::Reply_<v1::SubmitJobReply> held;
  h.submit_job = [&](const rpc::Caller&, const v1::SubmitJobRequest&,
                     wire::Reply_<v1::SubmitJobReply> done) { held = std::move(done); };
  h.ping = [](const rpc::Caller&, const v1::PingRequest&, wire::Reply_<v1::PingReply> done) {
    done(wire::Outcome::ok(), {});
  };
  countCalls(h, stats);
  EXPECT_FALSE(h.get_jobs);  // unset handlers stay unset (not served)
  rpc::Caller alice{1001, 1001};
  int answers = 0;
  h.ping(alice, {}, [&](wire::Outcome, const v1::PingReply&) { ++answers; });
  h.submit_job(alice, {}, [&](wire::Outcome, const v1::SubmitJobReply&) { ++answers; });
  EXPECT_EQ(answers, 1);
  EXPECT_EQ(stats.inFlight(), 1u);  // the submission waits (for its commit)
  auto r = filled(stats);
  ASSERT_EQ(r.rpc_types_size(), 1);
  EXPECT_EQ(r.rpc_types(0).name(), "REQUEST_PING");
  held(wire::Outcome::ok(), {});
  EXPECT_EQ(answers, 2);
  EXPECT_EQ(stats.inFlight(), 0u);
  r = filled(stats);
  ASSERT_EQ(r.rpc_types_size(), 2);
  EXPECT_EQ(r.rpc_types(1).name(), "REQUEST_SUBMIT_JOB");
  ASSERT_EQ(r.rpc_users_size(), 1);
  EXPECT_EQ(r.rpc_users(0).id(), 1001u);
  EXPECT_EQ(r.rpc_users(0).count(), 2u);
}

}  // namespace
}  // namespace drover::ctld
