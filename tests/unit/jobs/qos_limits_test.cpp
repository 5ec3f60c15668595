// QOS per-user limits (jobs/qos_limits.h): which pending jobs wait and why, in rank order, and
// what submission refuses, with the reasons the reference Slurm 22.05 showed (2026-12-04).
#include "jobs/qos_limits.h"

#include <gtest/gtest.h>

namespace drover::jobs {
namespace {

config::QosConfig shortQos() {
  config::QosConfig q;
  q.name = "short";
  q.max_jobs_per_user = 2;
  q.max_tres_per_user = {{"gres/gpu", 8}, {"cpu", 64}};
  q.max_wall_min = 5;
  return q;
}

QosLimitJob job(sched::JobId id, bool running, double gpus, std::int64_t priority = 0,
                const std::string& user = "alice", std::int64_t minutes = 1) {
  QosLimitJob j;
  j.id = id;
  j.qos = "short";
  j.user = user;
  j.running = running;
  j.cpu = 1;
  j.gpu = gpus;
  j.node = 1;
  j.priority = priority;
  j.time_limit_min = minutes;
  return j;
}

std::map<sched::JobId, std::string_view> withheld(const config::QosConfig& q,
                                                  std::vector<QosLimitJob> jobs) {
  config::ClusterConfig c;
  c.qos.push_back(q);
  return QosLimits(c).withheld(std::move(jobs));
}

TEST(QosLimits, RunningJobsCountThenPendingOnesByRank) {
  config::QosConfig q = shortQos();
  q.max_tres_per_user.clear();
  // One running: one more may go, the higher-ranked pending one (priority 5, then the lower id).
  auto out = withheld(q, {job(1, true, 0), job(2, false, 0, 1), job(3, false, 0, 5),
                          job(4, false, 0, 5)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{2, "QOSMaxJobsPerUserLimit"},
                                                           {4, "QOSMaxJobsPerUserLimit"}}));
  // Per user: bob's job counts against bob's limit only.
  out = withheld(q, {job(1, true, 0), job(2, true, 0), job(3, false, 0, 0, "bob")});
  EXPECT_TRUE(out.empty());
}

TEST(QosLimits, TresWallAndWhichReasonWins) {
  const config::QosConfig q = shortQos();
  // 8 GPUs running: another GPU job waits QOSMaxGRESPerUser; a CPU-only one goes.
  auto out = withheld(q, {job(1, true, 8), job(2, false, 1), job(3, false, 0)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{2, "QOSMaxGRESPerUser"}}));
  // A job over both MaxJobsPU and MaxTRESPU shows the jobs limit, as the reference's did.
  out = withheld(q, {job(1, true, 4), job(2, true, 4), job(3, false, 4)});
  EXPECT_EQ(out.at(3), "QOSMaxJobsPerUserLimit");
  // Over MaxWall (or without a limit): waits for ever; one job alone over the TRES too.
  out = withheld(q, {job(1, false, 0, 0, "alice", 10), job(2, false, 0, 0, "alice", -1),
                     job(3, false, 16)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{
                     {1, "QOSMaxWallDurationPerJobLimit"},
                     {2, "QOSMaxWallDurationPerJobLimit"},
                     {3, "QOSMaxGRESPerUser"}}));
  QosLimitJob many_cpus = job(4, false, 0);
  many_cpus.cpu = 65;
  EXPECT_EQ(withheld(q, {many_cpus}).at(4), "QOSMaxCpuPerUserLimit");
  // Jobs of a QOS without limits are none of its business.
  QosLimitJob other = job(5, false, 99);
  other.qos = "normal";
  EXPECT_TRUE(withheld(q, {other}).empty());
}

TEST(QosLimits, SubmissionRefusals) {
  config::QosConfig q = shortQos();
  q.max_submit_jobs_per_user = 3;
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 1, 2), std::nullopt);
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 1, 3), "QOSMaxSubmitJobPerUserLimit");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 2, 2), "QOSMaxSubmitJobPerUserLimit");  // an array
  // Over MaxWall or MaxTRESPU by itself: taken (it waits) unless DenyOnLimit.
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 16, 0, "alice", 10), 1, 0), std::nullopt);
  q.deny_on_limit = true;
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0, 0, "alice", 10), 1, 0),
            "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 16), 1, 0), "QOSMaxGRESPerUser");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 8), 1, 0), std::nullopt);
}

TEST(QosLimits, KeyChangesWithTheRunLimitsOnly) {
  config::ClusterConfig a;
  a.qos.push_back(shortQos());
  config::ClusterConfig b = a;
  b.qos[1].priority = 7;             // not a limit
  b.qos[1].max_submit_jobs_per_user = 9;  // checked at submission, not on held-back jobs
  EXPECT_EQ(qosLimitsKey(a), qosLimitsKey(b));
  b.qos[1].max_jobs_per_user = 3;
  EXPECT_NE(qosLimitsKey(a), qosLimitsKey(b));
  b = a;
  b.qos[1].max_tres_per_user["gres/gpu"] = 16;
  EXPECT_NE(qosLimitsKey(a), qosLimitsKey(b));
  EXPECT_EQ(qosLimitsKey(config::ClusterConfig{}), "");
}

}  // namespace
}  // namespace drover::jobs
