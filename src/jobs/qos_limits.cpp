#include "jobs/qos_limits.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>

namespace drover::jobs {

namespace {

struct Usage {
  std::uint64_t jobs = 0;
  double cpu = 0, gpu = 0, node = 0;
};

// Per TRES of config::kQosLimitTres, in its order, what a TRES limit compares: `use` plus `job`.
std::array<double, 3> holding(const Usage& use, const QosLimitJob& job) {
  static_assert(config::kQosLimitTres.size() == 3);
  return {use.cpu + job.cpu, use.node + job.node, use.gpu + job.gpu};
}

// The first of `limits` (TRES name -> count) that `have` passes: its reason from `reasons`
// (kQosLimitTres order; empty where that limit has no reason of its own here), else nullopt.
std::optional<std::string_view> overTres(const std::map<std::string, std::uint64_t>& limits,
                                         const std::array<double, 3>& have,
                                         const std::array<std::string_view, 3>& reasons) {
  for (std::size_t i = 0; i < config::kQosLimitTres.size(); ++i) {
    if (reasons[i].empty()) continue;
    auto limit = limits.find(std::string(config::kQosLimitTres[i]));
    if (limit != limits.end() && have[i] > static_cast<double>(limit->second)) return reasons[i];
  }
  return std::nullopt;
}

// The reference's reasons (squeue(1), "JOB REASON CODES"), per TRES of kQosLimitTres.
constexpr std::array<std::string_view, 3> kPerUserReasons = {
    "QOSMaxCpuPerUserLimit", "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser"};
constexpr std::array<std::string_view, 3> kGroupReasons = {"QOSGrpCpuLimit", "QOSGrpNodeLimit",
                                                           "QOSGrpGRES"};
// A job's node count is checked with the job counts, before the other TRES (below).
constexpr std::array<std::string_view, 3> kPerJobNodeReason = {"", "QOSMaxNodePerJobLimit", ""};
constexpr std::array<std::string_view, 3> kPerJobReasons = {"QOSMaxCpuPerJobLimit", "",
                                                            "QOSMaxGRESPerJob"};
// Per account, the reference's reasons have no QOS prefix (Slurm 22.05).
constexpr std::array<std::string_view, 3> kPerAccountNodeReason = {"", "MaxNodePerAccount", ""};
constexpr std::array<std::string_view, 3> kPerAccountReasons = {"MaxCpuPerAccount", "",
                                                                "MaxGRESPerAccount"};

bool overWall(const config::QosConfig& qos, const QosLimitJob& job) {
  return qos.max_wall_min &&
         (job.time_limit_min < 0 || job.time_limit_min > *qos.max_wall_min);
}

// What a pending job is checked against: the usage of the QOS's running (and higher-ranked
// admitted) jobs, all of them, its account's and its user's.
struct Held {
  const Usage& group;
  const Usage& account;
  const Usage& user;
};

// Why a pending job of `qos` may not start now. The order is the reference's, as seen with jobs
// over two limits at once: the job counts and node counts, known before nodes are chosen
// (GrpJobs, MaxWall, MaxJobsPA, MaxJobsPU, MaxTRES's and MaxTRESPA's node counts), then the
// other TRES (GrpTRES, MaxTRES, MaxTRESPA, MaxTRESPU).
std::optional<std::string_view> blocked(const config::QosConfig& qos, const Held& held,
                                        const QosLimitJob& job) {
  if (qos.grp_jobs && held.group.jobs + 1 > *qos.grp_jobs) return "QOSGrpJobsLimit";
  if (overWall(qos, job)) return "QOSMaxWallDurationPerJobLimit";
  if (qos.max_jobs_per_account && held.account.jobs + 1 > *qos.max_jobs_per_account) {
    return "MaxJobsPerAccount";
  }
  if (qos.max_jobs_per_user && held.user.jobs + 1 > *qos.max_jobs_per_user) {
    return "QOSMaxJobsPerUserLimit";
  }
  const std::array<double, 3> alone = holding(Usage{}, job);
  const std::array<double, 3> account = holding(held.account, job);
  if (auto r = overTres(qos.max_tres_per_job, alone, kPerJobNodeReason)) return r;
  if (auto r = overTres(qos.max_tres_per_account, account, kPerAccountNodeReason)) return r;
  if (auto r = overTres(qos.grp_tres, holding(held.group, job), kGroupReasons)) return r;
  if (auto r = overTres(qos.max_tres_per_job, alone, kPerJobReasons)) return r;
  if (auto r = overTres(qos.max_tres_per_account, account, kPerAccountReasons)) return r;
  return overTres(qos.max_tres_per_user, holding(held.user, job), kPerUserReasons);
}

}  // namespace

QosLimits::QosLimits(const config::ClusterConfig& config) {
  for (const config::QosConfig& q : config.qos) {
    if (q.hasRunLimits()) limited_.emplace(q.name, &q);
  }
}

std::map<sched::JobId, std::string_view> QosLimits::withheld(std::vector<QosLimitJob> jobs) const {
  std::map<sched::JobId, std::string_view> out;
  // Running jobs first (they count whatever their rank), then the pending by rank.
  std::sort(jobs.begin(), jobs.end(), [](const QosLimitJob& a, const QosLimitJob& b) {
    return std::tuple(!a.running, -a.priority, a.id) < std::tuple(!b.running, -b.priority, b.id);
  });
  std::map<std::string, Usage, std::less<>> by_qos;
  std::map<std::pair<std::string, std::string>, Usage> by_account;  // (QOS, account)
  std::map<std::pair<std::string, std::string>, Usage> by_user;     // (QOS, user)
  for (const QosLimitJob& job : jobs) {
    auto found = limited_.find(job.qos);
    if (found == limited_.end()) continue;
    Usage& group = by_qos[job.qos];
    Usage& account = by_account[{job.qos, job.account}];
    Usage& user = by_user[{job.qos, job.user}];
    if (!job.running) {
      if (auto reason = blocked(*found->second, Held{group, account, user}, job)) {
        out.emplace(job.id, *reason);
        continue;
      }
    }
    for (Usage* use : {&group, &account, &user}) {
      use->jobs += 1;
      use->cpu += job.cpu;
      use->gpu += job.gpu;
      use->node += job.node;
    }
  }
  return out;
}

std::optional<std::string_view> QosLimits::refusal(const config::QosConfig& qos,
                                                   const QosLimitJob& job, std::uint32_t adding,
                                                   const Submitted& existing) {
  // The reference named the group's limit, then the account's, where a submission passed more
  // than one.
  auto over = [adding](std::uint32_t had, const std::optional<std::uint32_t>& limit) {
    return limit && static_cast<std::uint64_t>(had) + adding > *limit;
  };
  if (over(existing.qos, qos.grp_submit_jobs)) return "QOSGrpSubmitJobsLimit";
  if (over(existing.account, qos.max_submit_jobs_per_account)) return "MaxSubmitJobsPerAccount";
  if (over(existing.user, qos.max_submit_jobs_per_user)) return "QOSMaxSubmitJobPerUserLimit";
  if (!qos.deny_on_limit) return std::nullopt;
  // Over a limit by itself, with nothing else running: it could never start.
  config::QosConfig alone = qos;
  alone.grp_jobs.reset();
  alone.max_jobs_per_account.reset();
  alone.max_jobs_per_user.reset();
  const Usage none;
  return blocked(alone, Held{none, none, none}, job);
}

std::string qosLimitsKey(const config::ClusterConfig& config) {
  std::string key;
  for (const config::QosConfig& q : config.qos) {
    if (!q.hasRunLimits()) continue;
    key += q.name + ":" + std::to_string(q.max_jobs_per_user.value_or(UINT32_MAX)) + ":" +
           std::to_string(q.max_wall_min.value_or(-1));
    key += ":" + std::to_string(q.grp_jobs.value_or(UINT32_MAX)) + ":" +
           std::to_string(q.max_jobs_per_account.value_or(UINT32_MAX));
    for (const auto* limits :
         {&q.max_tres_per_user, &q.grp_tres, &q.max_tres_per_job, &q.max_tres_per_account}) {
      for (const auto& [name, count] : *limits) key += ":" + name + "=" + std::to_string(count);
      key += "|";
    }
    key += ";";
  }
  return key;
}

}  // namespace drover::jobs
