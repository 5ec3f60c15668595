#pragma once
// How many jobs not yet ended each QOS has, in all, per account and per user: what the QOS
// submit limits (MaxSubmitJobsPerUser, MaxSubmitJobsPerAccount, GrpSubmitJobs) compare a new
// submission with. Kept as jobs enter the table, end, are requeued and change QOS or account, so
// that a submission costs a lookup, not a walk over every job in the table.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "drover/v1/jobs.pb.h"
#include "jobs/qos_limits.h"

namespace drover::jobs {

// What one job counts for: its QOS, account and user.
struct LiveKey {
  std::string qos;
  std::string account;
  std::uint32_t uid = 0;
  bool operator==(const LiveKey&) const = default;
};

class LiveJobCounts {
 public:
  // Brings what a job counts for (`counted`, kept in the job) in line with `info`: its key
  // while it has not ended, nothing once it has. Idempotent: call it after any change.
  void sync(std::optional<LiveKey>& counted, const v1::JobInfo& info);
  // A job that leaves the table.
  void forget(std::optional<LiveKey>& counted);
  // The jobs not ended of `qos`: all of them, `account`'s and `uid`'s.
  QosLimits::Submitted of(const std::string& qos, const std::string& account, std::uint32_t uid) const;
  void clear();

 private:
  void add(const LiveKey& key, int delta);

  std::map<std::string, std::uint32_t> by_qos_;
  std::map<std::pair<std::string, std::string>, std::uint32_t> by_account_;
  std::map<std::pair<std::string, std::uint32_t>, std::uint32_t> by_user_;
};

}  // namespace drover::jobs
