#include "jobs/usage_store.h"

#include <sqlite3.h>

namespace drover::jobs {

namespace {

std::string lastError(sqlite3* db) { return sqlite3_errmsg(db); }

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

}  // namespace

Result<std::unique_ptr<UsageStore>> UsageStore::open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? lastError(db) : "out of memory";
    sqlite3_close(db);
    return makeError("cannot open " + path + ": " + why);
  }
  std::unique_ptr<UsageStore> store(new UsageStore(db));
  sqlite3_busy_timeout(db, 5000);
  for (const char* sql :
       {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
        "CREATE TABLE IF NOT EXISTS association_usage (account TEXT NOT NULL, user TEXT NOT NULL,"
        " usage REAL NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (account, user))"}) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return makeError(path + ": " + lastError(db));
    }
  }
  return store;
}

UsageStore::~UsageStore() { sqlite3_close(db_); }

Result<std::vector<std::pair<Association, UsageEntry>>> UsageStore::load() {
  Statement st(db_, "SELECT account, user, usage, at FROM association_usage");
  if (!st.ok()) return makeError("reading usage: " + lastError(db_));
  std::vector<std::pair<Association, UsageEntry>> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    Association who{reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)),
                    reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1))};
    out.emplace_back(who, UsageEntry{sqlite3_column_double(st.get(), 2),
                                     sqlite3_column_int64(st.get(), 3)});
  }
  if (rc != SQLITE_DONE) return makeError("reading usage: " + lastError(db_));
  return out;
}

Status UsageStore::save(const std::vector<std::pair<Association, UsageEntry>>& rows) {
  if (rows.empty()) return okStatus();
  if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return makeError("writing usage: " + lastError(db_));
  }
  Statement st(db_,
               "INSERT OR REPLACE INTO association_usage (account, user, usage, at) "
               "VALUES (?, ?, ?, ?)");
  bool ok = st.ok();
  for (const auto& [who, e] : rows) {
    if (!ok) break;
    sqlite3_reset(st.get());
    sqlite3_bind_text(st.get(), 1, who.first.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st.get(), 2, who.second.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st.get(), 3, e.value);
    sqlite3_bind_int64(st.get(), 4, e.at);
    ok = sqlite3_step(st.get()) == SQLITE_DONE;
  }
  if (!ok) {
    std::string why = lastError(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return makeError("writing usage: " + why);
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string why = lastError(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return makeError("writing usage: " + why);
  }
  return okStatus();
}

}  // namespace drover::jobs
