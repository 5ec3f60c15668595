#pragma once
// The jobs of the table that have not ended, indexed for what would otherwise walk the whole
// table each time:
//  - how many each QOS has, in all, per account and per user: what the QOS submit limits
//    (MaxSubmitJobsPerUser, MaxSubmitJobsPerAccount, GrpSubmitJobs) compare a submission with;
//  - each user's jobs of one name, in id order: what `--dependency=singleton` waits for.
// Kept as jobs enter the table, end, are requeued, take an id of their own (array tasks) and
// change QOS, account or name: JobManager calls sync() after each such change.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "jobs/qos_limits.h"

namespace drover::jobs {

struct Job;
using JobId = std::uint64_t;

// A job in the table as the index holds it; its place in a user's jobs of one name is
// (info.job_id(), its table key): an array's pending tasks sort under their array's id.
struct LiveKey {
  std::string qos;
  std::string account;
  std::uint32_t uid = 0;
  std::string name;
  JobId job_id = 0;
  JobId id = 0;
  bool operator==(const LiveKey&) const = default;
};

class LiveJobs {
 public:
  using Place = std::pair<JobId, JobId>;  // (info.job_id(), table key)

  // Brings what `job` is indexed as (job.live) in line with the job: indexed while it has not
  // ended, not once it has. Idempotent: call it after any change.
  void sync(Job& job);
  // A job that leaves the table.
  void forget(Job& job);
  // The jobs not ended of `qos`: all of them, `account`'s and `uid`'s.
  QosLimits::Submitted submitted(const std::string& qos, const std::string& account,
                                 std::uint32_t uid) const;
  // The places of `uid`'s jobs named `name` not ended (empty when none).
  const std::set<Place>& named(std::uint32_t uid, const std::string& name) const;
  void clear();

 private:
  void add(const LiveKey& key, int delta);

  std::map<std::string, std::uint32_t> by_qos_;
  std::map<std::pair<std::string, std::string>, std::uint32_t> by_account_;
  std::map<std::pair<std::string, std::uint32_t>, std::uint32_t> by_user_;
  std::map<std::pair<std::uint32_t, std::string>, std::set<Place>> by_name_;
};

}  // namespace drover::jobs
