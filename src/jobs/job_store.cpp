#include "jobs/job_store.h"

#include <sqlite3.h>

#include <algorithm>

namespace drover::jobs {

namespace {

constexpr int kSchemaVersion = 2;

// Finalizes on scope exit, so every early return releases the statement.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return s_; }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_OK;
};

Error sqlError(sqlite3* db, const std::string& what) {
  return makeError("job store: " + what + ": " + sqlite3_errmsg(db));
}

std::string serializeEnv(const std::map<std::string, std::string>& env) {
  v1::JobSpec holder;
  holder.mutable_environment()->insert(env.begin(), env.end());
  return holder.SerializeAsString();
}

void bindBlob(sqlite3_stmt* s, int i, const std::string& bytes) {
  sqlite3_bind_blob(s, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

std::string columnBlob(sqlite3_stmt* s, int i) {
  const void* p = sqlite3_column_blob(s, i);
  int n = sqlite3_column_bytes(s, i);
  return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

Result<std::unique_ptr<JobStore>> JobStore::open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return makeError("job store: cannot open " + path + ": " + msg);
  }
  std::unique_ptr<JobStore> store(new JobStore(db));
  sqlite3_busy_timeout(db, 5000);
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"}) {
    if (auto st = store->exec(pragma); !st) return makeError(st.error() + " (" + path + ")");
  }
  if (auto st = store->migrate(); !st) return makeError(st.error() + " (" + path + ")");
  Stmt q(db, "SELECT value FROM meta WHERE key = 'next_job_id'");
  if (!q.ok()) return sqlError(db, "reading next job id");
  if (sqlite3_step(q.get()) == SQLITE_ROW) {
    store->next_id_ = static_cast<JobId>(sqlite3_column_int64(q.get(), 0));
  }
  // Never hand out an id at or below one already stored, whatever the counter says.
  // Rows of array tasks that have not started are keyed above every id (job.h, kTaskKeyBit).
  const std::string max_sql =
      "SELECT MAX(id) FROM jobs WHERE id < " + std::to_string(static_cast<sqlite3_int64>(kTaskKeyBit));
  Stmt m(db, max_sql.c_str());
  if (m.ok() && sqlite3_step(m.get()) == SQLITE_ROW && sqlite3_column_type(m.get(), 0) != SQLITE_NULL) {
    store->next_id_ = std::max<JobId>(store->next_id_,
                                      static_cast<JobId>(sqlite3_column_int64(m.get(), 0)) + 1);
  }
  store->committed_next_id_ = store->next_id_;
  return store;
}

JobStore::~JobStore() {
  for (sqlite3_stmt* s : stmts_) sqlite3_finalize(s);
  sqlite3_close(db_);
}

Status JobStore::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return makeError(std::string("job store: ") + msg + " in: " + sql);
  }
  return okStatus();
}

Status JobStore::migrate() {
  if (auto st = exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); !st)
    return st;
  int version = 0;
  {
    Stmt q(db_, "SELECT MAX(version) FROM schema_version");
    if (!q.ok()) return sqlError(db_, "reading schema version");
    if (sqlite3_step(q.get()) == SQLITE_ROW) version = sqlite3_column_int(q.get(), 0);
  }
  if (version > kSchemaVersion) {
    return makeError("job store: schema version " + std::to_string(version) +
                     " is newer than this build understands (" + std::to_string(kSchemaVersion) +
                     ")");
  }
  if (version < 1) {
    if (auto st = exec(
            "BEGIN;"
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
            "CREATE TABLE IF NOT EXISTS jobs ("
            "  id INTEGER PRIMARY KEY, state INTEGER NOT NULL, end_time INTEGER NOT NULL,"
            "  pending_end INTEGER NOT NULL, info BLOB NOT NULL, script BLOB, environment BLOB);"
            "CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, end_time);"
            "INSERT INTO schema_version(version) VALUES (1);"
            "COMMIT;");
        !st) {
      exec("ROLLBACK");
      return st;
    }
  }
  if (version < 2) {
    if (auto st = exec(
            "BEGIN;"
            "CREATE TABLE IF NOT EXISTS array_payloads ("
            "  array_id INTEGER PRIMARY KEY, script BLOB, environment BLOB);"
            "INSERT INTO schema_version(version) VALUES (2);"
            "COMMIT;");
        !st) {
      exec("ROLLBACK");
      return st;
    }
  }
  return okStatus();
}

JobId JobStore::allocateIds(std::uint32_t count) {
  JobId first = next_id_;
  next_id_ += count;
  return first;
}

JobStore::Staged JobStore::rowOf(Staged::Kind kind, const Job& job) {
  return Staged{kind, job.id(), job.state(), job.info.end_time(),
                static_cast<std::uint32_t>(job.pending_end), job.info.SerializeAsString(),
                nullptr};
}

void JobStore::stageInsert(const Job& job, JobPayload payload) {
  Staged s = rowOf(Staged::kInsert, job);
  s.payload = std::make_unique<JobPayload>(std::move(payload));
  staged_.push_back(std::move(s));
}

void JobStore::stageArrayPayload(JobId array_id, JobPayload payload) {
  staged_.push_back(Staged{Staged::kArrayInsert, array_id, 0, 0, 0, {},
                           std::make_unique<JobPayload>(std::move(payload))});
}

void JobStore::stageInsertTask(const Job& job) { staged_.push_back(rowOf(Staged::kInsert, job)); }

void JobStore::stageArrayPayloadDelete(JobId array_id) {
  staged_.push_back(Staged{Staged::kArrayDelete, array_id, 0, 0, 0, {}, nullptr});
}

void JobStore::stageUpdate(const Job& job) { staged_.push_back(rowOf(Staged::kUpdate, job)); }

void JobStore::stageDelete(JobId id) {
  staged_.push_back(Staged{Staged::kDelete, id, 0, 0, 0, {}, nullptr});
}

void JobStore::stageRename(JobId from, const Job& job) {
  Staged s = rowOf(Staged::kRename, job);
  s.from = from;
  staged_.push_back(std::move(s));
}

// The statements of commit() are prepared on first use and kept for the store's life: parsing
// them again for every group commit was a tenth of the controller's CPU per trivial job.
sqlite3_stmt* JobStore::cached(CachedStmt which) {
  static constexpr const char* kSql[kCachedStmtCount] = {
      "BEGIN IMMEDIATE",
      "COMMIT",
      "ROLLBACK",
      "INSERT OR REPLACE INTO jobs(id, state, end_time, pending_end, info, script, environment)"
      " VALUES (?, ?, ?, ?, ?, ?, ?)",
      "UPDATE jobs SET state = ?2, end_time = ?3, pending_end = ?4, info = ?5 WHERE id = ?1",
      "DELETE FROM jobs WHERE id = ?",
      "INSERT OR REPLACE INTO meta(key, value) VALUES ('next_job_id', ?)",
      "SELECT script, environment FROM jobs WHERE id = ?",
      "UPDATE jobs SET id = ?6, state = ?2, end_time = ?3, pending_end = ?4, info = ?5"
      " WHERE id = ?1",
      "INSERT OR REPLACE INTO array_payloads(array_id, script, environment) VALUES (?, ?, ?)",
      "DELETE FROM array_payloads WHERE array_id = ?",
      "SELECT script, environment FROM array_payloads WHERE array_id = ?",
  };
  sqlite3_stmt*& s = stmts_[which];
  if (s == nullptr &&
      sqlite3_prepare_v3(db_, kSql[which], -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    s = nullptr;
  }
  return s;
}

// Runs a cached statement that returns no rows, and leaves it reset for its next use.
bool JobStore::runCached(sqlite3_stmt* s) {
  if (s == nullptr) return false;
  const int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc == SQLITE_DONE;
}

void JobStore::rollback() {
  if (!runCached(cached(kRollback))) exec("ROLLBACK");
}

Status JobStore::commit() {
  if (staged_.empty() && next_id_ == committed_next_id_) return okStatus();
  if (!runCached(cached(kBegin))) return sqlError(db_, "BEGIN IMMEDIATE");
  auto fail = [&](const std::string& what) -> Status {
    Error e = sqlError(db_, what);
    rollback();
    return e;
  };
  sqlite3_stmt* ins = cached(kInsert);
  sqlite3_stmt* upd = cached(kUpdate);
  sqlite3_stmt* del = cached(kDelete);
  sqlite3_stmt* meta = cached(kMeta);
  sqlite3_stmt* ren = cached(kRename);
  sqlite3_stmt* ains = cached(kArrayInsert);
  sqlite3_stmt* adel = cached(kArrayDelete);
  if (ins == nullptr || upd == nullptr || del == nullptr || meta == nullptr || ren == nullptr ||
      ains == nullptr || adel == nullptr) {
    return fail("preparing writes");
  }
  for (const Staged& s : staged_) {
    sqlite3_stmt* st = nullptr;
    if (s.kind == Staged::kArrayInsert) {
      st = ains;
      sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(s.id));
      bindBlob(st, 2, s.payload->script);
      bindBlob(st, 3, serializeEnv(s.payload->environment));
    } else if (s.kind == Staged::kArrayDelete) {
      st = adel;
      sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(s.id));
    } else if (s.kind == Staged::kDelete) {
      st = del;
      sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(s.id));
    } else {
      st = s.kind == Staged::kInsert ? ins : s.kind == Staged::kRename ? ren : upd;
      sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(s.kind == Staged::kRename ? s.from : s.id));
      if (s.kind == Staged::kRename) sqlite3_bind_int64(st, 6, static_cast<sqlite3_int64>(s.id));
      sqlite3_bind_int(st, 2, s.state);
      sqlite3_bind_int64(st, 3, s.end_time);
      sqlite3_bind_int64(st, 4, s.pending_end);
      bindBlob(st, 5, s.info);
      if (s.kind == Staged::kInsert && s.payload) {
        bindBlob(st, 6, s.payload->script);
        bindBlob(st, 7, serializeEnv(s.payload->environment));
      } else if (s.kind == Staged::kInsert) {
        sqlite3_bind_null(st, 6);  // a task: its array's payload
        sqlite3_bind_null(st, 7);
      }
    }
    if (!runCached(st)) return fail("writing job " + std::to_string(s.id));
  }
  sqlite3_bind_int64(meta, 1, static_cast<sqlite3_int64>(next_id_));
  if (!runCached(meta)) return fail("writing next job id");
  if (!runCached(cached(kCommit))) return fail("COMMIT");
  staged_.clear();
  committed_next_id_ = next_id_;
  ++commits_;
  return okStatus();
}

Result<LoadedJobs> JobStore::load(std::int64_t finished_since) {
  LoadedJobs out;
  out.next_job_id = next_id_;
  Stmt q(db_, "SELECT id, info, pending_end, state, end_time FROM jobs ORDER BY id");
  if (!q.ok()) return sqlError(db_, "loading jobs");
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    auto state = static_cast<v1::JobState>(sqlite3_column_int(q.get(), 3));
    if (isFinal(state) && sqlite3_column_int64(q.get(), 4) < finished_since) continue;
    Job job;
    std::string blob = columnBlob(q.get(), 1);
    if (!job.info.ParseFromString(blob)) {
      return makeError("job store: the record of job " +
                       std::to_string(sqlite3_column_int64(q.get(), 0)) + " is corrupt");
    }
    job.pending_end = static_cast<PendingEnd>(sqlite3_column_int(q.get(), 2));
    const auto row = static_cast<JobId>(sqlite3_column_int64(q.get(), 0));
    if (row != job.info.job_id()) job.key = row;
    if (!job.info.dependency().empty()) {
      auto dep = jobspec::parseDependencySpec(job.info.dependency());
      if (dep) job.dependency = *dep;
    }
    out.jobs.push_back(std::move(job));
  }
  if (rc != SQLITE_DONE) return sqlError(db_, "loading jobs");
  return out;
}

namespace {

// Reads (script, environment) from a cached statement bound to one id and resets it.
Result<JobPayload> readPayload(sqlite3_stmt* q, sqlite3_int64 key, bool& found, bool& shared) {
  struct Reset {
    sqlite3_stmt* s;
    ~Reset() {
      sqlite3_reset(s);
      sqlite3_clear_bindings(s);
    }
  } reset{q};
  sqlite3_bind_int64(q, 1, key);
  found = sqlite3_step(q) == SQLITE_ROW;
  shared = found && sqlite3_column_type(q, 0) == SQLITE_NULL;
  JobPayload p;
  if (!found || shared) return p;
  p.script = columnBlob(q, 0);
  v1::JobSpec holder;
  if (!holder.ParseFromString(columnBlob(q, 1))) {
    return makeError("job store: the environment of job " + std::to_string(key) + " is corrupt");
  }
  p.environment.insert(holder.environment().begin(), holder.environment().end());
  return p;
}

}  // namespace

Result<JobPayload> JobStore::payload(JobId id, JobId array_id) {
  // Newest first: a staged rename to `id` means the payload is under its old id.
  for (auto it = staged_.rbegin(); it != staged_.rend(); ++it) {
    if (it->id != id || (it->kind != Staged::kInsert && it->kind != Staged::kRename)) continue;
    if (it->kind == Staged::kRename) {
      id = it->from;
      continue;
    }
    if (it->payload) return *it->payload;
    return arrayPayload(array_id);  // a task inserted with its array's payload
  }
  // Read at every launch: the cached statement, reset on every way out.
  sqlite3_stmt* q = cached(kPayload);
  if (q == nullptr) return sqlError(db_, "reading script");
  bool found = false;
  bool shared = false;
  auto p = readPayload(q, static_cast<sqlite3_int64>(id), found, shared);
  if (!p) return p;
  if (!found) return makeError("job store: no stored script for job " + std::to_string(id));
  if (shared) return arrayPayload(array_id);
  return p;
}

Result<JobPayload> JobStore::arrayPayload(JobId array_id) {
  for (auto it = staged_.rbegin(); it != staged_.rend(); ++it) {
    if (it->id == array_id && it->kind == Staged::kArrayInsert) return *it->payload;
  }
  sqlite3_stmt* q = cached(kArrayPayload);
  if (q == nullptr) return sqlError(db_, "reading an array's script");
  bool found = false;
  bool shared = false;
  auto p = readPayload(q, static_cast<sqlite3_int64>(array_id), found, shared);
  if (!p) return p;
  if (!found || shared) {
    return makeError("job store: no stored script for array " + std::to_string(array_id));
  }
  return p;
}

Status JobStore::purgeFinished(std::int64_t before) {
  std::string sql = "DELETE FROM jobs WHERE end_time < " + std::to_string(before) +
                    " AND state NOT IN (" + std::to_string(v1::JOB_PENDING) + "," +
                    std::to_string(v1::JOB_RUNNING) + "," + std::to_string(v1::JOB_SUSPENDED) +
                    "," + std::to_string(v1::JOB_COMPLETING) + "," +
                    std::to_string(v1::JOB_REQUEUED) + ")";
  return exec(sql.c_str());
}

}  // namespace drover::jobs
