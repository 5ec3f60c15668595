#pragma once
// Slurm's QOS limits on running work, per user (MaxJobsPU, MaxTRESPU), per account (MaxJobsPA,
// MaxTRESPA), for the whole QOS (GrpJobs, GrpTRES) and per job (MaxWall, MaxTRES): which
// pending jobs wait for them, under the reference's reasons, and what submission refuses
// (GrpSubmitJobs, MaxSubmitJobsPA, MaxSubmitJobsPU; with DenyOnLimit, a job over MaxWall,
// MaxTRES, MaxTRESPU, MaxTRESPA or GrpTRES by itself). The controller keeps the waiting jobs
// out of the scheduler's queue, as it keeps an array's tasks over its %N throttle, so no pass
// starts more than a limit allows. The jobs let through count against the limit in rank
// order, the highest first: a job that waits for resources keeps its place under the limit
// (the reference started a lower-ranked job that fit in its stead).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/config.h"
#include "sched/types.h"

namespace drover::jobs {

// One job of a limited QOS as the limits see it.
struct QosLimitJob {
  sched::JobId id = 0;
  std::string qos;
  std::string user;
  std::string account;
  bool running = false;           // else pending, waiting only for the scheduler
  double cpu = 0, gpu = 0, node = 0;  // allocated when running, asked for when pending
  std::int64_t time_limit_min = 0;    // negative: UNLIMITED
  std::int64_t priority = 0;
};

class QosLimits {
 public:
  explicit QosLimits(const config::ClusterConfig& config);

  // Whether any QOS limits running work (else nothing need be looked at).
  bool any() const { return !limited_.empty(); }
  // Whether jobs of that QOS have a run limit.
  bool limits(std::string_view qos) const { return limited_.count(qos) > 0; }
  // Whether that QOS limits several users' jobs together, all of them or an account's (then a
  // change of one user's jobs concerns every user's).
  bool limitsTheWholeQos(std::string_view qos) const {
    auto it = limited_.find(qos);
    return it != limited_.end() && (it->second->hasGroupLimits() || it->second->hasAccountLimits());
  }

  // Of `jobs` (every running and waiting job of the (QOS, user) pairs concerned; of every user
  // of a QOS that limitsTheWholeQos), the pending ones that must wait, each with its reason:
  // QOSGrpJobsLimit, QOSMaxWallDurationPerJobLimit, MaxJobsPerAccount, QOSMaxJobsPerUserLimit,
  // QOSMaxNodePerJobLimit, MaxNodePerAccount, QOSGrpCpuLimit, QOSGrpNodeLimit, QOSGrpGRES,
  // QOSMaxCpuPerJobLimit, QOSMaxGRESPerJob, MaxCpuPerAccount, MaxGRESPerAccount,
  // QOSMaxCpuPerUserLimit, QOSMaxNodePerUserLimit, QOSMaxGRESPerUser.
  std::map<sched::JobId, std::string_view> withheld(std::vector<QosLimitJob> jobs) const;

  // Jobs of a QOS not yet ended, as the submit limits count them.
  struct Submitted {
    std::uint32_t user = 0;       // the submitting user's
    std::uint32_t account = 0;    // charged to the job's account, all users'
    std::uint32_t qos = 0;        // all of the QOS
  };
  // At submission of `adding` jobs like `job` (an array's tasks) with `existing` jobs of that
  // QOS not yet ended: the reason it is refused (the reference's note before "Job violates
  // accounting/QOS policy ..."), or nullopt.
  static std::optional<std::string_view> refusal(const config::QosConfig& qos,
                                                 const QosLimitJob& job, std::uint32_t adding,
                                                 const Submitted& existing);

 private:
  std::map<std::string, const config::QosConfig*, std::less<>> limited_;
};

// The run limits of every QOS in one string: equal for equal limits (a reconfigure that
// changed none need not look at held-back jobs again).
std::string qosLimitsKey(const config::ClusterConfig& config);

// The text Slurm gives every QOS-limit refusal at submission.
inline constexpr std::string_view kQosPolicyViolation =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

}  // namespace drover::jobs
