// The accounting store's file: opening it, its schema and migrations, prepared statements.
#include "acct/sqlite_store.h"

#include <sqlite3.h>

#include <iterator>

#include "acct/sqlite_stmt.h"

namespace drover::acct {
namespace {

// Each migration moves the file from version i to i+1, in one transaction.
const char* const kMigrations[] = {
    // 0 -> 1: tables.
    R"sql(
CREATE TABLE jobs(
  job_id INTEGER PRIMARY KEY,
  array_job_id INTEGER NOT NULL, array_task_id INTEGER, array_task_str TEXT NOT NULL,
  array_max_running INTEGER NOT NULL,
  name TEXT NOT NULL, uid INTEGER NOT NULL, user TEXT NOT NULL, gid INTEGER NOT NULL,
  grp TEXT NOT NULL, account TEXT NOT NULL, partition TEXT NOT NULL, qos TEXT NOT NULL,
  cluster TEXT NOT NULL, reservation TEXT NOT NULL, wckey TEXT NOT NULL,
  submit INTEGER NOT NULL, eligible INTEGER NOT NULL, start INTEGER NOT NULL,
  end_time INTEGER NOT NULL, end_key INTEGER NOT NULL, suspended INTEGER NOT NULL,
  time_limit INTEGER NOT NULL, state INTEGER NOT NULL, cancelled_by INTEGER, reason TEXT NOT NULL,
  exit_code INTEGER NOT NULL, exit_signal INTEGER NOT NULL,
  dexit_code INTEGER NOT NULL, dexit_signal INTEGER NOT NULL,
  nnodes INTEGER NOT NULL, node_list TEXT NOT NULL, ncpus INTEGER NOT NULL,
  req_cpus INTEGER NOT NULL, req_nodes INTEGER NOT NULL, req_mem_mb INTEGER NOT NULL,
  req_mem_per_cpu INTEGER NOT NULL, req_tres TEXT NOT NULL, alloc_tres TEXT NOT NULL,
  work_dir TEXT NOT NULL, submit_line TEXT NOT NULL, comment TEXT NOT NULL,
  admin_comment TEXT NOT NULL, system_comment TEXT NOT NULL, constraints TEXT NOT NULL,
  flags TEXT NOT NULL, restart_count INTEGER NOT NULL, priority INTEGER NOT NULL);
CREATE TABLE steps(
  job_id INTEGER NOT NULL, step_id INTEGER NOT NULL, name TEXT NOT NULL, state INTEGER NOT NULL,
  exit_code INTEGER NOT NULL, exit_signal INTEGER NOT NULL, start INTEGER NOT NULL,
  end_time INTEGER NOT NULL, suspended INTEGER NOT NULL, nnodes INTEGER NOT NULL,
  ntasks INTEGER NOT NULL, ncpus INTEGER NOT NULL, node_list TEXT NOT NULL,
  req_tres TEXT NOT NULL, alloc_tres TEXT NOT NULL, layout TEXT NOT NULL,
  freq_min INTEGER, freq_max INTEGER, freq_gov INTEGER, submit_line TEXT NOT NULL, usage TEXT,
  PRIMARY KEY(job_id, step_id)) WITHOUT ROWID;
)sql",
    // 1 -> 2: indexes for sacct's query shapes, and the span bound used by window queries.
    R"sql(
CREATE INDEX jobs_uid_eligible ON jobs(uid, eligible);
CREATE INDEX jobs_eligible ON jobs(eligible);
CREATE INDEX jobs_end ON jobs(end_key);
CREATE INDEX jobs_state_end ON jobs(state, end_key);
CREATE INDEX jobs_name ON jobs(name);
CREATE INDEX jobs_array ON jobs(array_job_id) WHERE array_job_id != 0;
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO meta(key, value)
  SELECT 'max_span', COALESCE(MAX(end_time - eligible), 0) FROM jobs
  WHERE end_time > 0 AND eligible > 0;
)sql",
    // 2 -> 3: earlier runs of requeued jobs (sacct -D), one row per (job, restart count), with
    // the columns of jobs.
    R"sql(
CREATE TABLE job_runs(
  job_id INTEGER NOT NULL,
  array_job_id INTEGER NOT NULL, array_task_id INTEGER, array_task_str TEXT NOT NULL,
  array_max_running INTEGER NOT NULL,
  name TEXT NOT NULL, uid INTEGER NOT NULL, user TEXT NOT NULL, gid INTEGER NOT NULL,
  grp TEXT NOT NULL, account TEXT NOT NULL, partition TEXT NOT NULL, qos TEXT NOT NULL,
  cluster TEXT NOT NULL, reservation TEXT NOT NULL, wckey TEXT NOT NULL,
  submit INTEGER NOT NULL, eligible INTEGER NOT NULL, start INTEGER NOT NULL,
  end_time INTEGER NOT NULL, end_key INTEGER NOT NULL, suspended INTEGER NOT NULL,
  time_limit INTEGER NOT NULL, state INTEGER NOT NULL, cancelled_by INTEGER, reason TEXT NOT NULL,
  exit_code INTEGER NOT NULL, exit_signal INTEGER NOT NULL,
  dexit_code INTEGER NOT NULL, dexit_signal INTEGER NOT NULL,
  nnodes INTEGER NOT NULL, node_list TEXT NOT NULL, ncpus INTEGER NOT NULL,
  req_cpus INTEGER NOT NULL, req_nodes INTEGER NOT NULL, req_mem_mb INTEGER NOT NULL,
  req_mem_per_cpu INTEGER NOT NULL, req_tres TEXT NOT NULL, alloc_tres TEXT NOT NULL,
  work_dir TEXT NOT NULL, submit_line TEXT NOT NULL, comment TEXT NOT NULL,
  admin_comment TEXT NOT NULL, system_comment TEXT NOT NULL, constraints TEXT NOT NULL,
  flags TEXT NOT NULL, restart_count INTEGER NOT NULL, priority INTEGER NOT NULL,
  PRIMARY KEY(job_id, restart_count)) WITHOUT ROWID;
)sql",
    // 3 -> 4: node and cluster events (sacctmgr show event, sreport's Down). At most one open
    // event (time_end 0) per cluster and node: the partial unique index holds it.
    R"sql(
CREATE TABLE events(
  id INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL, cluster TEXT NOT NULL, node_name TEXT NOT NULL,
  cluster_nodes TEXT NOT NULL, time_start INTEGER NOT NULL, time_end INTEGER NOT NULL,
  state TEXT NOT NULL, state_raw INTEGER NOT NULL, reason TEXT NOT NULL,
  reason_uid INTEGER NOT NULL, reason_user TEXT NOT NULL, tres TEXT NOT NULL);
CREATE INDEX events_start ON events(time_start);
CREATE UNIQUE INDEX events_open ON events(kind, cluster, node_name) WHERE time_end = 0;
)sql",
    // 4 -> 5: batch scripts and environments kept for sacct -B / --env-vars (cluster.conf's
    // controller.accounting_store_flags), NULL where not kept.
    R"sql(
CREATE TABLE job_scripts(job_id INTEGER PRIMARY KEY, script TEXT, environment TEXT);
)sql",
    // 5 -> 6: a step belongs to one run of its job (sacct -D lists each run's steps under it,
    // and a requeued job's next run reuses the step ids). The steps kept so far were of each
    // job's current run.
    R"sql(
CREATE TABLE steps_by_run(
  job_id INTEGER NOT NULL, step_id INTEGER NOT NULL, name TEXT NOT NULL, state INTEGER NOT NULL,
  exit_code INTEGER NOT NULL, exit_signal INTEGER NOT NULL, start INTEGER NOT NULL,
  end_time INTEGER NOT NULL, suspended INTEGER NOT NULL, nnodes INTEGER NOT NULL,
  ntasks INTEGER NOT NULL, ncpus INTEGER NOT NULL, node_list TEXT NOT NULL,
  req_tres TEXT NOT NULL, alloc_tres TEXT NOT NULL, layout TEXT NOT NULL,
  freq_min INTEGER, freq_max INTEGER, freq_gov INTEGER, submit_line TEXT NOT NULL, usage TEXT,
  run INTEGER NOT NULL,
  PRIMARY KEY(job_id, run, step_id)) WITHOUT ROWID;
INSERT INTO steps_by_run
  SELECT s.*, COALESCE((SELECT j.restart_count FROM jobs j WHERE j.job_id = s.job_id), 0)
  FROM steps s;
DROP TABLE steps;
ALTER TABLE steps_by_run RENAME TO steps;
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

}  // namespace

SqliteAccountingStore::SqliteAccountingStore(sqlite3* db, std::string path)
    : db_(db), path_(std::move(path)) {}

SqliteAccountingStore::~SqliteAccountingStore() {
  stmts_.clear();
  // Keeps the planner's statistics fresh for the next reader (cheap when nothing changed).
  sqlite3_exec(db_, "PRAGMA optimize", nullptr, nullptr, nullptr);
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<SqliteAccountingStore>> SqliteAccountingStore::open(
    const std::string& path, SqliteOptions options) {
  sqlite3* db = nullptr;
  int flags = options.read_only ? SQLITE_OPEN_READONLY
                                : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  flags |= SQLITE_OPEN_NOMUTEX;
  if (int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr); rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return makeError("accounting database " + path + ": cannot open: " + msg);
  }
  std::unique_ptr<SqliteAccountingStore> store(new SqliteAccountingStore(db, path));
  sqlite3_busy_timeout(db, 10'000);
  std::string pragmas = "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;"
                        "PRAGMA mmap_size=268435456;";
  if (!options.read_only) {
    pragmas += "PRAGMA journal_mode=WAL;";
    pragmas += options.full_sync ? "PRAGMA synchronous=FULL;" : "PRAGMA synchronous=NORMAL;";
  }
  if (auto r = store->exec(pragmas); !r) return makeError(r.error());
  auto version = store->schemaVersion();
  if (!version) return makeError(version.error());
  if (*version > kSchemaVersion) {
    return makeError("accounting database " + path + " has schema version " +
                     std::to_string(*version) + ", newer than this build understands (" +
                     std::to_string(kSchemaVersion) + "); upgrade drover");
  }
  if (*version < options.migrate_to) {
    if (options.read_only) {
      return makeError("accounting database " + path + " has schema version " +
                       std::to_string(*version) + " but " + std::to_string(kSchemaVersion) +
                       " is needed; start droverctld once to migrate it");
    }
    if (auto r = store->migrate(options.migrate_to); !r) return makeError(r.error());
  }
  store->version_ = std::max(*version, options.migrate_to);
  if (store->version_ >= 2) {
    if (auto span = store->maxSpan(); !span) return makeError(span.error());
  }
  return store;
}

Result<int> SqliteAccountingStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return makeError("accounting database " + path_ + ": " + msg);
  }
  return 0;
}

Result<int> SqliteAccountingStore::schemaVersion() {
  auto has = prepared("SELECT count(*) FROM sqlite_master WHERE type='table' AND "
                      "name='schema_version'");
  if (!has) return makeError(has.error());
  Stmt& s = **has;
  sqlite3_step(s.get());
  bool exists = s.i64(0) > 0;
  s.reset();
  if (!exists) return 0;
  auto v = prepared("SELECT version FROM schema_version");
  if (!v) return makeError(v.error());
  int version = sqlite3_step((*v)->get()) == SQLITE_ROW ? static_cast<int>((*v)->i64(0)) : 0;
  (*v)->reset();
  return version;
}

Result<int> SqliteAccountingStore::migrate(int target) {
  auto current = schemaVersion();
  if (!current) return current;
  for (int v = *current; v < target; ++v) {
    std::string sql = "BEGIN IMMEDIATE;";
    if (v == 0) sql += "CREATE TABLE schema_version(version INTEGER NOT NULL);"
                       "INSERT INTO schema_version VALUES(0);";
    sql += kMigrations[v];
    sql += "UPDATE schema_version SET version=" + std::to_string(v + 1) + "; COMMIT;";
    // Cached statements may refer to the old schema.
    stmts_.clear();
    if (auto r = exec(sql); !r) {
      exec("ROLLBACK");
      return makeError("migrating to schema version " + std::to_string(v + 1) + ": " +
                       r.error());
    }
  }
  return target;
}

Result<SqliteAccountingStore::Stmt*> SqliteAccountingStore::prepared(const std::string& sql) {
  auto it = stmts_.find(sql);
  if (it != stmts_.end()) {
    it->second->reset();
    return it->second.get();
  }
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                         SQLITE_PREPARE_PERSISTENT, &raw, nullptr) != SQLITE_OK) {
    return makeError("accounting database " + path_ + ": " + sqlite3_errmsg(db_) + " in: " +
                     sql);
  }
  auto [pos, _] = stmts_.emplace(sql, std::make_unique<Stmt>(raw));
  return pos->second.get();
}

Result<std::int64_t> SqliteAccountingStore::maxSpan() {
  auto s = prepared("SELECT value FROM meta WHERE key='max_span'");
  if (!s) return makeError(s.error());
  max_span_ = sqlite3_step((*s)->get()) == SQLITE_ROW ? (*s)->i64(0) : 0;
  (*s)->reset();
  return max_span_;
}

}  // namespace drover::acct
