#pragma once
// The durable side of fair-share usage: one row per association with its decayed usage and the
// time it was decayed to, in <state_dir>/usage.db (SQLite, WAL, synchronous=NORMAL like the job
// table). The controller writes the rows a commit changed right after the job table's commit,
// so a restarted controller remembers who used the cluster.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "drover/result.h"
#include "jobs/fair_share.h"

struct sqlite3;

namespace drover::jobs {

class UsageStore {
 public:
  static Result<std::unique_ptr<UsageStore>> open(const std::string& path);
  ~UsageStore();
  UsageStore(const UsageStore&) = delete;
  UsageStore& operator=(const UsageStore&) = delete;

  Result<std::vector<std::pair<Association, UsageEntry>>> load();
  // One transaction for all rows.
  Status save(const std::vector<std::pair<Association, UsageEntry>>& rows);

 private:
  explicit UsageStore(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace drover::jobs
