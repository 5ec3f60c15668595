// QOS limits (jobs/qos_limits.h): which pending jobs wait and why, in rank order, and what
// submission refuses, with the reasons the reference Slurm 22.05 showed (2026-12-04).
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
  j.account = "research";
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
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 1, {.user = 2}), std::nullopt);
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 1, {.user = 3}), "QOSMaxSubmitJobPerUserLimit");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 2, {.user = 2}), "QOSMaxSubmitJobPerUserLimit");  // an array
  // Over MaxWall or MaxTRESPU by itself: taken (it waits) unless DenyOnLimit.
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 16, 0, "alice", 10), 1, {}), std::nullopt);
  q.deny_on_limit = true;
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0, 0, "alice", 10), 1, {}),
            "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 16), 1, {}), "QOSMaxGRESPerUser");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 8), 1, {}), std::nullopt);
  // GrpSubmitJobs counts every user's jobs of the QOS, and is named first where a submission
  // passes both it and MaxSubmitJobsPU, as the reference named it.
  q.grp_submit_jobs = 4;
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 1, {.qos = 3}), std::nullopt);
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 2, {.qos = 3}), "QOSGrpSubmitJobsLimit");
  EXPECT_EQ(QosLimits::refusal(q, job(1, false, 0), 1, {.user = 3, .account = 3, .qos = 4}), "QOSGrpSubmitJobsLimit");
}

// GrpJobs and GrpTRES count every user's jobs of the QOS; MaxTRES limits each job alone. The
// reasons and their order as the reference's (2026-12-04, jobs over two limits at once): GrpJobs
// before MaxWall and MaxTRES; MaxTRES's node count before GrpTRES; GrpTRES before MaxTRES's cpu.
TEST(QosLimits, GroupAndPerJobLimits) {
  config::QosConfig q;
  q.name = "short";
  q.grp_jobs = 2;
  q.max_wall_min = 10;
  q.max_tres_per_job = {{"cpu", 4}, {"node", 2}, {"gres/gpu", 3}};
  auto sized = [](sched::JobId id, bool running, double cpus, double nodes, double gpus,
                  const std::string& user = "alice", std::int64_t minutes = 1) {
    QosLimitJob j = job(id, running, gpus, 0, user, minutes);
    j.cpu = cpus;
    j.node = nodes;
    return j;
  };
  // Two running, alice's and bob's: any third waits QOSGrpJobsLimit, over MaxWall, MaxTRES or not.
  auto out = withheld(q, {sized(1, true, 1, 1, 0), sized(2, true, 1, 1, 0, "bob"),
                          sized(3, false, 1, 1, 0, "carol"), sized(4, false, 1, 1, 4),
                          sized(5, false, 1, 1, 0, "alice", 20), sized(6, false, 1, 3, 0)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{3, "QOSGrpJobsLimit"},
                                                           {4, "QOSGrpJobsLimit"},
                                                           {5, "QOSGrpJobsLimit"},
                                                           {6, "QOSGrpJobsLimit"}}));
  // Nothing running: each job's own limits.
  out = withheld(q, {sized(1, false, 5, 1, 0), sized(2, false, 3, 3, 0),
                     sized(3, false, 1, 1, 4), sized(4, false, 1, 3, 0, "alice", 20)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{
                     {1, "QOSMaxCpuPerJobLimit"}, {2, "QOSMaxNodePerJobLimit"},
                     {3, "QOSMaxGRESPerJob"}, {4, "QOSMaxWallDurationPerJobLimit"}}));
  // GrpTRES: cpu=6 full (4 + 2 running): a job over MaxTRES's cpu too shows the group's limit,
  // one over its node count that; gpu and node group limits by their own reasons.
  q.grp_jobs.reset();
  q.grp_tres = {{"cpu", 6}, {"node", 3}, {"gres/gpu", 4}};
  out = withheld(q, {sized(1, true, 4, 1, 0), sized(2, true, 2, 1, 0, "bob"),
                     sized(3, false, 5, 1, 0), sized(4, false, 3, 3, 0),
                     sized(5, false, 1, 1, 0, "carol")});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{3, "QOSGrpCpuLimit"},
                                                           {4, "QOSMaxNodePerJobLimit"},
                                                           {5, "QOSGrpCpuLimit"}}));
  out = withheld(q, {sized(1, true, 1, 1, 2), sized(2, true, 1, 1, 2, "bob"),
                     sized(3, false, 1, 1, 1, "carol"), sized(4, false, 1, 1, 0)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{3, "QOSGrpGRES"}}));
  out = withheld(q, {sized(1, true, 1, 2, 0), sized(2, false, 1, 2, 0, "bob"),
                     sized(3, false, 1, 1, 0, "carol")});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{2, "QOSGrpNodeLimit"}}));
  // Under DenyOnLimit a job over MaxTRES or GrpTRES by itself is refused at submission; the
  // job counts are no reason to refuse one.
  q.deny_on_limit = true;
  q.grp_jobs = 1;
  EXPECT_EQ(QosLimits::refusal(q, sized(1, false, 5, 1, 0), 1, {}), "QOSMaxCpuPerJobLimit");
  EXPECT_EQ(QosLimits::refusal(q, sized(1, false, 1, 1, 5), 1, {}), "QOSGrpGRES");
  EXPECT_EQ(QosLimits::refusal(q, sized(1, false, 4, 2, 3), 1, {.user = 5}), std::nullopt);
}

// MaxJobsPA, MaxTRESPA and MaxSubmitJobsPA count the jobs of all users charged to one account,
// under the reference's reasons (no QOS prefix), checked before the per-user ones (2026-12-04:
// a job over MaxJobsPA and MaxJobsPU showed MaxJobsPerAccount, one over MaxTRESPA's and
// MaxTRESPU's cpu MaxCpuPerAccount, one over MaxTRESPA's node and cpu MaxNodePerAccount).
TEST(QosLimits, PerAccountLimits) {
  config::QosConfig q;
  q.name = "short";
  q.max_jobs_per_account = 2;
  q.max_jobs_per_user = 1;
  auto of = [](sched::JobId id, bool running, const std::string& user, const std::string& account,
               double cpus = 1, double nodes = 1, double gpus = 0) {
    QosLimitJob j = job(id, running, gpus, 0, user);
    j.account = account;
    j.cpu = cpus;
    j.node = nodes;
    return j;
  };
  // alice and bob run in research: carol's research job waits; her ml job goes; alice's own
  // second one waits for the account's limit, named before her own.
  auto out = withheld(q, {of(1, true, "alice", "research"), of(2, true, "bob", "research"),
                          of(3, false, "carol", "research"), of(4, false, "carol", "ml"),
                          of(5, false, "alice", "research")});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{3, "MaxJobsPerAccount"},
                                                           {5, "MaxJobsPerAccount"}}));
  q.max_jobs_per_account.reset();
  q.max_jobs_per_user.reset();
  q.max_tres_per_account = {{"cpu", 4}, {"node", 2}, {"gres/gpu", 2}};
  q.max_tres_per_user = {{"cpu", 4}};
  out = withheld(q, {of(1, true, "alice", "research", 3), of(2, false, "alice", "research", 2),
                     of(3, false, "bob", "research", 3, 3), of(4, false, "bob", "research", 1, 1, 3),
                     of(5, false, "bob", "ml", 4)});
  EXPECT_EQ(out, (std::map<sched::JobId, std::string_view>{{2, "MaxCpuPerAccount"},
                                                           {3, "MaxNodePerAccount"},
                                                           {4, "MaxGRESPerAccount"}}));
  // Submission: the group's limit first, then the account's, then the user's.
  q.max_submit_jobs_per_account = 3;
  q.max_submit_jobs_per_user = 3;
  EXPECT_EQ(QosLimits::refusal(q, of(1, false, "alice", "research"), 1, {.user = 2, .account = 2}),
            std::nullopt);
  EXPECT_EQ(QosLimits::refusal(q, of(1, false, "alice", "research"), 1, {.user = 3, .account = 3}),
            "MaxSubmitJobsPerAccount");
  q.grp_submit_jobs = 3;
  EXPECT_EQ(QosLimits::refusal(q, of(1, false, "alice", "research"), 1,
                               {.user = 3, .account = 3, .qos = 3}),
            "QOSGrpSubmitJobsLimit");
}

TEST(QosLimits, KeyChangesWithTheRunLimitsOnly) {
  config::ClusterConfig a;
  a.qos.push_back(shortQos());
  config::ClusterConfig b = a;
  b.qos[1].priority = 7;             // not a limit
  b.qos[1].max_submit_jobs_per_user = 9;  // checked at submission, not on held-back jobs
  EXPECT_EQ(qosLimitsKey(a), qosLimitsKey(b));
  // Each run limit, changed alone, changes the key.
  using Change = void (*)(config::QosConfig&);
  for (Change change : std::initializer_list<Change>{
           [](config::QosConfig& q) { q.max_jobs_per_user = 3; },
           [](config::QosConfig& q) { q.max_tres_per_user["gres/gpu"] = 16; },
           [](config::QosConfig& q) { q.grp_jobs = 4; },
           [](config::QosConfig& q) { q.grp_tres["cpu"] = 16; },
           [](config::QosConfig& q) { q.max_tres_per_job["cpu"] = 16; },
           [](config::QosConfig& q) { q.max_jobs_per_account = 3; },
           [](config::QosConfig& q) { q.max_tres_per_account["node"] = 3; }}) {
    b = a;
    change(b.qos[1]);
    EXPECT_NE(qosLimitsKey(a), qosLimitsKey(b));
  }
  // The same count under another of the TRES lists is another key.
  config::ClusterConfig c = a, d = a;
  c.qos[1].grp_tres["cpu"] = 16;
  d.qos[1].max_tres_per_job["cpu"] = 16;
  EXPECT_NE(qosLimitsKey(c), qosLimitsKey(d));
  EXPECT_EQ(qosLimitsKey(config::ClusterConfig{}), "");
}

}  // namespace
}  // namespace drover::jobs
