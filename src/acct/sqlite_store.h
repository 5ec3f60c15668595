#pragma once
// AccountingStore on one SQLite file (WAL). One instance = one connection, used by one thread;
// readers in other threads or processes (sacct) open their own instance on the same file and
// see committed snapshots while the controller writes.
#include <memory>
#include <string>
#include <unordered_map>

#include "drover/accounting.h"

struct sqlite3;
struct sqlite3_stmt;

namespace drover::acct {

// The schema version this build writes; older files are migrated forward on open.
inline constexpr int kSchemaVersion = 3;

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

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, std::unique_ptr<Stmt>> stmts_;
  int version_ = 0;
  std::int64_t max_span_ = 0;  // longest eligible-to-end of any finished job, see query()
};

}  // namespace drover::acct
