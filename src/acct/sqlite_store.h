#pragma once
// AccountingStore on one SQLite file (WAL). One instance = one connection, used by one thread;
// readers in other threads or processes (sacct) open their own instance on the same file and
// see committed snapshots while the controller writes.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "drover/accounting.h"

struct sqlite3;
struct sqlite3_stmt;

namespace drover::acct {

// usage(): the report window [start, end) each job's time is clipped to, and the time running
// jobs count up to.
struct UsageWindow {
  std::int64_t start = 0, end = 0, now = 0;
};
// usage(): the jobs with one (account, user, AllocTRES, NCPUS, ReqTRES, ReqCPUS), their
// seconds summed: run inside the window (`ran`), and eligible but pending inside it (`waited`).
struct UsageRow {
  std::string account, user, alloc_tres, req_tres;
  std::uint32_t ncpus = 0, req_cpus = 0;
  std::int64_t ran_sec = 0, waited_sec = 0;
  std::uint64_t jobs_ran = 0;   // jobs with ran > 0
  std::uint64_t jobs = 0;       // jobs the filter matched
};

// downTime(): the node events with one TRES string, their seconds inside the window summed.
struct DownRow {
  std::string tres;
  std::int64_t seconds = 0;
};

// The schema version this build writes; older files are migrated forward on open.
inline constexpr int kSchemaVersion = 6;

struct SqliteOptions {
  bool read_only = false;
  // FULL fsyncs every commit (survives power loss); NORMAL, the default, survives process
  // crashes and is what accounting needs.
  bool full_sync = false;
  // Tests: stop migrating at this version to build an "old" file.
  int migrate_to = kSchemaVersion;
};

class SqliteAccountingStore final : public AccountingStore {
 public:
  static Result<std::unique_ptr<SqliteAccountingStore>> open(const std::string& path,
                                                              SqliteOptions options = {});
  ~SqliteAccountingStore() override;
  SqliteAccountingStore(const SqliteAccountingStore&) = delete;
  SqliteAccountingStore& operator=(const SqliteAccountingStore&) = delete;

  Result<std::size_t> apply(const AcctBatch& batch) override;
  Result<std::vector<JobWithSteps>> query(const AcctFilter& filter) override;

  // sreport's sums: the jobs query() would return for `filter` (its window replaced by the
  // usage window's; states and include_steps not used; a step selector counts its whole job),
  // summed per UsageRow key by SQLite, so a month of records never leaves the database.
  Result<std::vector<UsageRow>> usage(const AcctFilter& filter, const UsageWindow& window);
  // The SQLite query plan of usage() (for tests and the benchmark).
  Result<std::string> explainUsage(const AcctFilter& filter, const UsageWindow& window);

  // sacctmgr show event: the events `filter` matches, by start time, then node name.
  // `now` ends the open events for the window test.
  Result<std::vector<EventRecord>> events(const EventFilter& filter, std::int64_t now);
  // The events open now: the controller carries them on at start-up.
  Result<std::vector<EventRecord>> openEvents();
  // sreport's Down: the node events' seconds inside [start, end) (open ones up to `now`), summed
  // per TRES string.
  Result<std::vector<DownRow>> downTime(const UsageWindow& window);

  // sacct -B / --env-vars: what job `job_id` (an array's first id for its tasks) was submitted
  // with, if it was kept; nullopt otherwise.
  Result<std::optional<JobScript>> jobScript(std::uint64_t job_id) override;

  // The schema version recorded in the file.
  Result<int> schemaVersion();
  // The SQLite query plan for a filter's job query (for tests and the benchmark).
  Result<std::string> explain(const AcctFilter& filter);

 private:
  class Stmt;
  SqliteAccountingStore(sqlite3* db, std::string path);
  Result<int> exec(const std::string& sql);
  Result<int> migrate(int target);
  Result<Stmt*> prepared(const std::string& sql);
  Result<std::int64_t> maxSpan();
  // apply()'s event changes, inside its transaction (sqlite_events.cpp).
  Status applyEvents(const std::vector<EventChange>& changes);
  // usage()'s statement, bound; `prefix` "EXPLAIN QUERY PLAN " for its plan.
  Result<Stmt*> usageStatement(const AcctFilter& filter, const UsageWindow& window,
                               const std::string& prefix);

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, std::unique_ptr<Stmt>> stmts_;
  int version_ = 0;
  std::int64_t max_span_ = 0;  // longest eligible-to-end of any finished job, see query()
};

}  // namespace drover::acct
