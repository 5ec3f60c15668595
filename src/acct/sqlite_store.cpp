#include "acct/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <variant>

#include "acct/sqlite_stmt.h"
#include "acct/usage_json.h"
#include "drover/hostlist.h"

namespace drover::acct {
namespace {

// Unfinished jobs sort after every real end time, so "not ended before S" is one index range.
constexpr std::int64_t kOpenEnd = std::numeric_limits<std::int64_t>::max();

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
};
static_assert(std::size(kMigrations) == kSchemaVersion);

constexpr const char* kJobColumns =
    "job_id, array_job_id, array_task_id, array_task_str, array_max_running, name, uid, user, "
    "gid, grp, account, partition, qos, cluster, reservation, wckey, submit, eligible, start, "
    "end_time, end_key, suspended, time_limit, state, cancelled_by, reason, exit_code, "
    "exit_signal, dexit_code, dexit_signal, nnodes, node_list, ncpus, req_cpus, req_nodes, "
    "req_mem_mb, req_mem_per_cpu, req_tres, alloc_tres, work_dir, submit_line, comment, "
    "admin_comment, system_comment, constraints, flags, restart_count, priority";
constexpr int kJobColumnCount = 48;

constexpr const char* kStepColumns =
    "job_id, step_id, name, state, exit_code, exit_signal, start, end_time, suspended, nnodes, "
    "ntasks, ncpus, node_list, req_tres, alloc_tres, layout, freq_min, freq_max, freq_gov, "
    "submit_line, usage";
constexpr int kStepColumnCount = 21;

std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ",?" : "?";
  return s;
}

std::string upsertSql(const char* table, const char* columns, int count, const char* key) {
  std::string sql = std::string("INSERT INTO ") + table + "(" + columns + ") VALUES(" +
                    placeholders(count) + ") ON CONFLICT(" + key + ") DO UPDATE SET ";
  std::string cols = columns;
  bool first = true;
  std::size_t pos = 0;
  while (pos < cols.size()) {
    auto comma = cols.find(',', pos);
    if (comma == std::string::npos) comma = cols.size();
    std::string c = cols.substr(pos, comma - pos);
    c.erase(0, c.find_first_not_of(' '));
    pos = comma + 1;
    if (std::string(key).find(c) != std::string::npos && (c == "job_id" || c == "step_id")) {
      continue;
    }
    sql += (first ? "" : ", ") + c + "=excluded." + c;
    first = false;
  }
  return sql;
}

std::string joinFlags(const std::vector<std::string>& flags) {
  std::string s;
  for (const auto& f : flags) s += (s.empty() ? "" : ",") + f;
  return s;
}

std::vector<std::string> splitFlags(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    auto comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

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

Result<std::size_t> SqliteAccountingStore::apply(const AcctBatch& batch) {
  if (batch.empty()) return std::size_t{0};
  static const std::string kJobUpsert = upsertSql("jobs", kJobColumns, kJobColumnCount, "job_id");
  static const std::string kStepUpsert =
      upsertSql("steps", kStepColumns, kStepColumnCount, "job_id, step_id");
  static const std::string kRunUpsert =
      upsertSql("job_runs", kJobColumns, kJobColumnCount, "job_id, restart_count");
  if (!batch.events.empty() && version_ < 4) {
    return makeError("accounting database " + path_ + " has schema version " +
                     std::to_string(version_) + ", which keeps no events; migrate it to 4");
  }
  if (!batch.runs.empty() && version_ < 3) {
    return makeError("accounting database " + path_ + " has schema version " +
                     std::to_string(version_) + ", which keeps no earlier runs; migrate it to 3");
  }
  auto begin = prepared("BEGIN IMMEDIATE");
  auto commit = prepared("COMMIT");
  auto job_stmt = prepared(kJobUpsert);
  auto step_stmt = prepared(kStepUpsert);
  for (auto* r : {&begin, &commit, &job_stmt, &step_stmt}) {
    if (!*r) return makeError(r->error());
  }
  auto fail = [&](const std::string& what) -> Result<std::size_t> {
    std::string msg = sqlite3_errmsg(db_);
    exec("ROLLBACK");
    return makeError("accounting database " + path_ + ": " + what + ": " + msg);
  };
  if (sqlite3_step((*begin)->get()) != SQLITE_DONE) return fail("begin");
  std::int64_t span = 0;
  auto bindJob = [](Stmt& s, const JobRecord& j) {
    s.reset();
    s.bind(static_cast<std::int64_t>(j.job_id));
    s.bind(static_cast<std::int64_t>(j.array_job_id));
    s.bind(j.array_task_id);
    s.bind(j.array_task_str);
    s.bind(std::int64_t{j.array_max_running});
    s.bind(j.name);
    s.bind(std::int64_t{j.uid});
    s.bind(j.user);
    s.bind(std::int64_t{j.gid});
    s.bind(j.group);
    s.bind(j.account);
    s.bind(j.partition);
    s.bind(j.qos);
    s.bind(j.cluster);
    s.bind(j.reservation);
    s.bind(j.wckey);
    s.bind(j.submit);
    s.bind(j.eligible);
    s.bind(j.start);
    s.bind(j.end);
    s.bind(j.end > 0 ? j.end : kOpenEnd);
    s.bind(j.suspended_sec);
    s.bind(j.time_limit_min);
    s.bind(static_cast<std::int64_t>(j.state));
    s.bind(j.cancelled_by);
    s.bind(j.reason);
    s.bind(std::int64_t{j.exit.code});
    s.bind(std::int64_t{j.exit.signal});
    s.bind(std::int64_t{j.derived_exit.code});
    s.bind(std::int64_t{j.derived_exit.signal});
    s.bind(std::int64_t{j.nnodes});
    s.bind(j.node_list);
    s.bind(std::int64_t{j.ncpus});
    s.bind(std::int64_t{j.req_cpus});
    s.bind(std::int64_t{j.req_nodes});
    s.bind(static_cast<std::int64_t>(j.req_mem_mb));
    s.bind(std::int64_t{j.req_mem_per_cpu});
    s.bind(j.req_tres);
    s.bind(j.alloc_tres);
    s.bind(j.work_dir);
    s.bind(j.submit_line);
    s.bind(j.comment);
    s.bind(j.admin_comment);
    s.bind(j.system_comment);
    s.bind(j.constraints);
    s.bind(joinFlags(j.flags));  // copied by bind: the joined text dies with this statement
    s.bind(std::int64_t{j.restart_count});
    s.bind(std::int64_t{j.priority});
  };
  for (const JobRecord& j : batch.jobs) {
    Stmt& s = **job_stmt;
    bindJob(s, j);
    if (sqlite3_step(s.get()) != SQLITE_DONE) {
      return fail("writing job " + std::to_string(j.job_id));
    }
    if (j.end > 0 && j.eligible > 0) span = std::max(span, j.end - j.eligible);
  }
  if (!batch.runs.empty()) {
    auto run_stmt = prepared(kRunUpsert);
    if (!run_stmt) return fail(run_stmt.error());
    for (const JobRecord& j : batch.runs) {
      Stmt& s = **run_stmt;
      bindJob(s, j);
      if (sqlite3_step(s.get()) != SQLITE_DONE) {
        return fail("writing run " + std::to_string(j.restart_count) + " of job " +
                    std::to_string(j.job_id));
      }
      if (j.end > 0 && j.eligible > 0) span = std::max(span, j.end - j.eligible);
    }
  }
  for (const StepRecord& st : batch.steps) {
    Stmt& s = **step_stmt;
    s.reset();
    s.bind(static_cast<std::int64_t>(st.job_id));
    s.bind(st.step_id);
    s.bind(st.name);
    s.bind(static_cast<std::int64_t>(st.state));
    s.bind(std::int64_t{st.exit.code});
    s.bind(std::int64_t{st.exit.signal});
    s.bind(st.start);
    s.bind(st.end);
    s.bind(st.suspended_sec);
    s.bind(std::int64_t{st.nnodes});
    s.bind(std::int64_t{st.ntasks});
    s.bind(std::int64_t{st.ncpus});
    s.bind(st.node_list);
    s.bind(st.req_tres);
    s.bind(st.alloc_tres);
    s.bind(st.layout);
    s.bind(st.req_cpu_freq_min);
    s.bind(st.req_cpu_freq_max);
    s.bind(st.req_cpu_freq_gov);
    s.bind(st.submit_line);
    std::optional<std::string> usage;
    if (!(st.usage == Usage{})) usage = usageToJson(st.usage);
    if (usage) {
      s.bind(*usage);
    } else {
      sqlite3_bind_null(s.get(), ++s.idx);
    }
    if (sqlite3_step(s.get()) != SQLITE_DONE) {
      return fail("writing step " + std::to_string(st.job_id) + "." + stepIdName(st.step_id));
    }
  }
  // DerivedExitCode: the highest exit of the job's numbered steps (srun), as Slurm's; the batch
  // step's exit is the job's ExitCode only (goldens 111, 113). Kept here, where the steps are,
  // for each job with a new numbered step record, and for each started job whose record
  // (written by the controller without it) replaced the value.
  std::vector<std::uint64_t> derived;
  for (const JobRecord& j : batch.jobs)
    if (j.start > 0) derived.push_back(j.job_id);
  for (const StepRecord& st : batch.steps)
    if (st.step_id >= 0) derived.push_back(st.job_id);
  if (!derived.empty()) {
    std::sort(derived.begin(), derived.end());
    derived.erase(std::unique(derived.begin(), derived.end()), derived.end());
    auto derived_stmt = prepared(
        "UPDATE jobs SET (dexit_code, dexit_signal) = (SELECT exit_code, exit_signal FROM steps "
        "WHERE steps.job_id = ?1 AND steps.step_id >= 0 ORDER BY exit_code DESC, exit_signal DESC "
        "LIMIT 1) WHERE job_id = ?1 AND EXISTS (SELECT 1 FROM steps WHERE steps.job_id = ?1 AND "
        "steps.step_id >= 0)");
    if (!derived_stmt) return fail(derived_stmt.error());
    for (std::uint64_t id : derived) {
      Stmt& s = **derived_stmt;
      s.reset();
      s.bind(static_cast<std::int64_t>(id));
      if (sqlite3_step(s.get()) != SQLITE_DONE) {
        return fail("deriving the exit code of job " + std::to_string(id));
      }
    }
  }
  if (span > max_span_ && version_ >= 2) {
    auto span_stmt = prepared("UPDATE meta SET value=max(value, ?) WHERE key='max_span'");
    if (!span_stmt) return fail(span_stmt.error());
    Stmt& s = **span_stmt;
    s.bind(span);
    if (sqlite3_step(s.get()) != SQLITE_DONE) return fail("updating max_span");
  }
  if (!batch.events.empty()) {
    if (auto applied = applyEvents(batch.events); !applied) {
      exec("ROLLBACK");
      return makeError(applied.error());
    }
  }
  if (sqlite3_step((*commit)->get()) != SQLITE_DONE) return fail("commit");
  max_span_ = std::max(max_span_, span);
  return batch.jobs.size() + batch.steps.size() + batch.runs.size() + batch.events.size();
}

namespace {

struct Sql {
  std::string where;  // conjunction, starts with "1"
  std::vector<Value> args;
};

template <typename T>
void addIn(Sql& q, const char* column, const std::vector<T>& values) {
  if (values.empty()) return;
  q.where += std::string(" AND ") + column + " IN (" + placeholders(static_cast<int>(values.size())) + ")";
  for (const auto& v : values) {
    if constexpr (std::is_same_v<T, std::string>) {
      q.args.emplace_back(v);
    } else {
      q.args.emplace_back(static_cast<std::int64_t>(v));
    }
  }
}

// The filters that do not depend on time.
Sql commonFilter(const AcctFilter& f) {
  Sql q{"1", {}};
  if (!f.uids.empty() || !f.users.empty()) {
    std::string terms;
    if (!f.uids.empty()) {
      terms += "uid IN (" + placeholders(static_cast<int>(f.uids.size())) + ")";
      for (auto u : f.uids) q.args.emplace_back(static_cast<std::int64_t>(u));
    }
    if (!f.users.empty()) {
      terms += std::string(terms.empty() ? "" : " OR ") + "user IN (" +
               placeholders(static_cast<int>(f.users.size())) + ")";
      for (const auto& u : f.users) q.args.emplace_back(u);
    }
    q.where += " AND (" + terms + ")";
  }
  addIn(q, "gid", f.gids);
  addIn(q, "account", f.accounts);
  addIn(q, "partition", f.partitions);
  addIn(q, "name", f.names);
  if (!f.jobs.empty()) {
    std::string terms;
    for (const auto& sel : f.jobs) {
      if (!terms.empty()) terms += " OR ";
      if (sel.array_task) {
        terms += "(array_job_id = ? AND array_job_id != 0 AND array_task_id = ?)";
        q.args.emplace_back(static_cast<std::int64_t>(sel.job_id));
        q.args.emplace_back(static_cast<std::int64_t>(*sel.array_task));
      } else {
        // The extra term lets SQLite use the partial index on array_job_id.
        terms += "job_id = ? OR (array_job_id = ? AND array_job_id != 0)";
        q.args.emplace_back(static_cast<std::int64_t>(sel.job_id));
        q.args.emplace_back(static_cast<std::int64_t>(sel.job_id));
      }
    }
    q.where += " AND (" + terms + ")";
  }
  return q;
}

// Window clauses; each entry becomes one SELECT of a UNION ALL so every one can use an index.
std::vector<Sql> windowClauses(const AcctFilter& f, std::int64_t max_span) {
  const bool windowed = f.window_start || f.window_end;
  const std::int64_t s = f.window_start.value_or(std::numeric_limits<std::int64_t>::min());
  const std::int64_t e = f.window_end.value_or(kOpenEnd - 1);
  std::vector<Sql> out;
  auto add = [&](std::string where, std::vector<Value> args) {
    out.push_back(Sql{std::move(where), std::move(args)});
  };
  if (f.states.empty()) {
    if (!windowed) {
      add("1", {});
      return out;
    }
    // Not ended before S and eligible by E. Finished jobs: their eligible time is at least
    // end - max_span >= S - max_span, which bounds the index range on eligible.
    add("end_key = " + std::to_string(kOpenEnd) + " AND eligible > 0 AND eligible <= ?", {e});
    std::int64_t lo = s > std::numeric_limits<std::int64_t>::min() + max_span ? s - max_span : 1;
    add("eligible BETWEEN max(1, ?) AND ? AND end_key >= ? AND end_key < " +
            std::to_string(kOpenEnd),
        {lo, e, s});
    return out;
  }
  std::set<JobState> states(f.states.begin(), f.states.end());
  for (JobState st : states) {
    const auto code = static_cast<std::int64_t>(st);
    if (!windowed) {
      add("state = ?", {code});
      continue;
    }
    switch (st) {
      case JobState::kPending:
        add("eligible > 0 AND eligible <= ? AND (start = 0 OR start >= ?)", {e, s});
        break;
      case JobState::kRunning:
      case JobState::kSuspended:
      case JobState::kCompleting:
        add("start > 0 AND start <= ? AND end_key >= ?", {e, s});
        break;
      default:
        add("state = ? AND end_key BETWEEN ? AND ?", {code, s, e});
        break;
    }
  }
  return out;
}

// Clauses of one window query can overlap only when several states are asked for in a window
// (a job can have been PENDING and RUNNING in it); otherwise skip UNION's de-duplication.
// With `runs` (sacct -D) every clause is asked of job_runs too; an earlier run sorts before the
// job's current record (the `run` column: 1 for job_runs rows).
std::string jobSql(const Sql& common, const std::vector<Sql>& windows, bool may_overlap,
                   bool runs = false) {
  std::string sql;
  for (const char* table : {"jobs", "job_runs"}) {
    if (std::string(table) == "job_runs" && !runs) break;
    const std::string run = std::string(table) == "jobs" ? "0" : "1";
    for (const auto& w : windows) {
      if (!sql.empty()) sql += may_overlap ? " UNION " : " UNION ALL ";
      // Array remainder records sort after the tasks split from them, and an array's tasks in
      // task order whatever ids they took when they started (the last takes the array's own),
      // as Slurm prints them.
      sql += std::string("SELECT ") + kJobColumns +
             ", (array_job_id != 0 AND array_task_id IS NULL) AS rest, " + run +
             " AS run, CASE WHEN array_job_id != 0 THEN array_job_id ELSE job_id END AS grp"
             " FROM " + table + " WHERE " + common.where + " AND (" + w.where + ")";
    }
  }
  return sql + " ORDER BY submit, rest, grp, array_task_id, job_id, run DESC, restart_count";
}

bool mayOverlap(const AcctFilter& f) {
  return (f.window_start || f.window_end) && f.states.size() > 1;
}

bool ranOn(const std::string& node_list, const std::set<std::string>& nodes) {
  if (node_list.empty()) return false;
  auto hosts = hostlist::expand(node_list);
  if (!hosts) return false;
  return std::any_of(hosts->begin(), hosts->end(),
                     [&](const std::string& h) { return nodes.count(h) > 0; });
}

// usage(): one SELECT per window clause and table, each job's seconds clipped to the window
// [?1, ?2) with running jobs' end at ?3, then summed per key. The window clauses are the ones of
// query() (an index range each); without states they never overlap, so UNION ALL.
std::string usageSql(const Sql& common, const std::vector<Sql>& windows, bool runs, bool by_nodes) {
  std::string inner;
  for (const char* table : {"jobs", "job_runs"}) {
    if (std::string(table) == "job_runs" && !runs) break;
    for (const auto& w : windows) {
      if (!inner.empty()) inner += " UNION ALL ";
      inner += std::string(
                   "SELECT account, user, alloc_tres, ncpus, req_tres, req_cpus, ") +
               (by_nodes ? "node_list" : "''") +
               " AS nodes,"
               " CASE WHEN start > 0 THEN max(0, min(max(start, CASE WHEN end_time > 0 THEN end_time"
               " ELSE ?3 END), ?2) - max(start, ?1)) ELSE 0 END AS ran,"
               " CASE WHEN eligible > 0 THEN max(0, min(max(eligible, CASE WHEN start > 0 THEN start"
               " WHEN end_time > 0 THEN end_time ELSE ?3 END), ?2) - max(eligible, ?1)) ELSE 0 END"
               " AS waited FROM " + table + " WHERE " + common.where + " AND (" + w.where + ")";
    }
  }
  return "SELECT account, user, alloc_tres, ncpus, req_tres, req_cpus, nodes, sum(ran), sum(waited),"
         " sum(ran > 0), count(*) FROM (" + inner +
         ") GROUP BY account, user, alloc_tres, ncpus, req_tres, req_cpus, nodes";
}

// usage()'s filter: query()'s, over the usage window ([start, end - 1], as sacct's inclusive
// end), any state, job selectors by job.
AcctFilter usageFilter(AcctFilter f, const UsageWindow& w) {
  f.window_start = w.start;
  f.window_end = w.end - 1;
  f.states.clear();
  for (auto& sel : f.jobs) sel.step_id.reset();
  return f;
}

}  // namespace

Result<std::string> SqliteAccountingStore::explain(const AcctFilter& filter) {
  Sql common = commonFilter(filter);
  auto windows = windowClauses(filter, max_span_);
  auto st = prepared("EXPLAIN QUERY PLAN " + jobSql(common, windows, mayOverlap(filter)));
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  for (const auto& w : windows) {
    for (const auto& a : common.args) s.bindValue(a);
    for (const auto& a : w.args) s.bindValue(a);
  }
  std::string plan;
  while (sqlite3_step(s.get()) == SQLITE_ROW) plan += s.str(3) + "\n";
  s.reset();
  return plan;
}

Result<std::vector<JobWithSteps>> SqliteAccountingStore::query(const AcctFilter& filter) {
  Sql common = commonFilter(filter);
  auto windows = windowClauses(filter, max_span_);
  const bool runs = filter.duplicates && version_ >= 3;
  auto st = prepared(jobSql(common, windows, mayOverlap(filter), runs));
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  for (int table = 0; table < (runs ? 2 : 1); ++table) {
    for (const auto& w : windows) {
      for (const auto& a : common.args) s.bindValue(a);
      for (const auto& a : w.args) s.bindValue(a);
    }
  }
  const std::set<std::string> nodes(filter.nodes.begin(), filter.nodes.end());
  std::vector<JobWithSteps> out;
  std::vector<bool> earlier_run;  // per row of `out`: a run of job_runs (its steps are gone)
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    JobRecord j;
    int c = 0;
    j.job_id = static_cast<std::uint64_t>(s.i64(c++));
    j.array_job_id = static_cast<std::uint64_t>(s.i64(c++));
    if (!s.isNull(c)) j.array_task_id = static_cast<std::uint32_t>(s.i64(c));
    ++c;
    j.array_task_str = s.str(c++);
    j.array_max_running = static_cast<std::uint32_t>(s.i64(c++));
    j.name = s.str(c++);
    j.uid = static_cast<std::uint32_t>(s.i64(c++));
    j.user = s.str(c++);
    j.gid = static_cast<std::uint32_t>(s.i64(c++));
    j.group = s.str(c++);
    j.account = s.str(c++);
    j.partition = s.str(c++);
    j.qos = s.str(c++);
    j.cluster = s.str(c++);
    j.reservation = s.str(c++);
    j.wckey = s.str(c++);
    j.submit = s.i64(c++);
    j.eligible = s.i64(c++);
    j.start = s.i64(c++);
    j.end = s.i64(c++);
    ++c;  // end_key
    j.suspended_sec = s.i64(c++);
    j.time_limit_min = s.i64(c++);
    j.state = static_cast<JobState>(s.i64(c++));
    if (!s.isNull(c)) j.cancelled_by = static_cast<std::uint32_t>(s.i64(c));
    ++c;
    j.reason = s.str(c++);
    j.exit.code = static_cast<std::int32_t>(s.i64(c++));
    j.exit.signal = static_cast<std::int32_t>(s.i64(c++));
    j.derived_exit.code = static_cast<std::int32_t>(s.i64(c++));
    j.derived_exit.signal = static_cast<std::int32_t>(s.i64(c++));
    j.nnodes = static_cast<std::uint32_t>(s.i64(c++));
    j.node_list = s.str(c++);
    j.ncpus = static_cast<std::uint32_t>(s.i64(c++));
    j.req_cpus = static_cast<std::uint32_t>(s.i64(c++));
    j.req_nodes = static_cast<std::uint32_t>(s.i64(c++));
    j.req_mem_mb = static_cast<std::uint64_t>(s.i64(c++));
    j.req_mem_per_cpu = s.i64(c++) != 0;
    j.req_tres = s.str(c++);
    j.alloc_tres = s.str(c++);
    j.work_dir = s.str(c++);
    j.submit_line = s.str(c++);
    j.comment = s.str(c++);
    j.admin_comment = s.str(c++);
    j.system_comment = s.str(c++);
    j.constraints = s.str(c++);
    j.flags = splitFlags(s.str(c++));
    j.restart_count = static_cast<std::uint32_t>(s.i64(c++));
    j.priority = static_cast<std::uint32_t>(s.i64(c++));
    ++c;  // rest
    const bool run = s.i64(c++) != 0;
    if (!nodes.empty() && !ranOn(j.node_list, nodes)) continue;
    out.push_back(JobWithSteps{std::move(j), {}, true});
    earlier_run.push_back(run);
  }
  s.reset();
  if (rc != SQLITE_DONE) {
    return makeError("accounting database " + path_ + ": query: " + sqlite3_errmsg(db_));
  }

  // Which steps to show per job: all, or only the ones a selector named.
  std::map<std::uint64_t, std::set<std::int64_t>> only_steps;
  std::set<std::uint64_t> whole_jobs;
  auto selectorMatches = [](const JobSelector& sel, const JobRecord& j) {
    if (sel.array_task) {
      return j.array_job_id == sel.job_id && j.array_task_id == sel.array_task;
    }
    return j.job_id == sel.job_id || j.array_job_id == sel.job_id;
  };
  for (auto& jw : out) {
    if (filter.jobs.empty()) break;
    bool whole = false;
    std::set<std::int64_t> steps;
    for (const auto& sel : filter.jobs) {
      if (!selectorMatches(sel, jw.job)) continue;
      if (sel.step_id) {
        steps.insert(*sel.step_id);
      } else {
        whole = true;
      }
    }
    if (!whole) {
      jw.show_job = false;
      only_steps[jw.job.job_id] = std::move(steps);
    }
  }
  const bool want_steps = filter.include_steps || !only_steps.empty();
  if (!want_steps) return out;
  // Steps for many jobs per statement: a fixed-size IN list (padded with job id 0, which never
  // exists) keeps one cached statement and avoids one round trip per job.
  constexpr int kChunk = 128;
  auto ss = prepared(std::string("SELECT ") + kStepColumns + " FROM steps WHERE job_id IN (" +
                     placeholders(kChunk) + ") ORDER BY job_id, step_id");
  if (!ss) return makeError(ss.error());
  Stmt& q = **ss;
  std::vector<std::size_t> wanted;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (earlier_run[i]) continue;  // steps are kept for the current run only
    if (filter.include_steps || only_steps.count(out[i].job.job_id)) wanted.push_back(i);
  }
  std::unordered_map<std::uint64_t, std::size_t> index_of;
  for (std::size_t first = 0; first < wanted.size(); first += kChunk) {
    q.reset();
    index_of.clear();
    for (std::size_t k = 0; k < static_cast<std::size_t>(kChunk); ++k) {
      if (first + k < wanted.size()) {
        const JobRecord& job = out[wanted[first + k]].job;
        index_of[job.job_id] = wanted[first + k];
        q.bind(static_cast<std::int64_t>(job.job_id));
      } else {
        q.bind(std::int64_t{0});
      }
    }
    while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
      StepRecord st;
      int c = 0;
      st.job_id = static_cast<std::uint64_t>(q.i64(c++));
      st.step_id = q.i64(c++);
      JobWithSteps& jw = out[index_of.at(st.job_id)];
      auto only = only_steps.find(st.job_id);
      if (only != only_steps.end() && only->second.count(st.step_id) == 0) continue;
      st.name = q.str(c++);
      st.state = static_cast<JobState>(q.i64(c++));
      st.exit.code = static_cast<std::int32_t>(q.i64(c++));
      st.exit.signal = static_cast<std::int32_t>(q.i64(c++));
      st.start = q.i64(c++);
      st.end = q.i64(c++);
      st.suspended_sec = q.i64(c++);
      st.nnodes = static_cast<std::uint32_t>(q.i64(c++));
      st.ntasks = static_cast<std::uint32_t>(q.i64(c++));
      st.ncpus = static_cast<std::uint32_t>(q.i64(c++));
      st.node_list = q.str(c++);
      st.req_tres = q.str(c++);
      st.alloc_tres = q.str(c++);
      st.layout = q.str(c++);
      for (auto* freq : {&st.req_cpu_freq_min, &st.req_cpu_freq_max, &st.req_cpu_freq_gov}) {
        if (!q.isNull(c)) *freq = static_cast<std::uint32_t>(q.i64(c));
        ++c;
      }
      st.submit_line = q.str(c++);
      if (!q.isNull(c)) {
        auto usage = usageFromJson(q.str(c));
        if (!usage) {
          q.reset();
          return makeError("step " + std::to_string(st.job_id) + "." + stepIdName(st.step_id) +
                           ": " + usage.error());
        }
        st.usage = std::move(*usage);
      }
      jw.steps.push_back(std::move(st));
    }
    if (rc != SQLITE_DONE) {
      return makeError("accounting database " + path_ + ": steps: " + sqlite3_errmsg(db_));
    }
  }
  q.reset();
  // A selector that named only steps of a job the other filters matched, but none of whose
  // steps exist, shows nothing.
  std::erase_if(out, [](const JobWithSteps& jw) { return !jw.show_job && jw.steps.empty(); });
  return out;
}

}  // namespace drover::acct

namespace drover::acct {

Result<SqliteAccountingStore::Stmt*> SqliteAccountingStore::usageStatement(const AcctFilter& filter,
                                                                           const UsageWindow& window,
                                                                           const std::string& prefix) {
  const AcctFilter f = usageFilter(filter, window);
  Sql common = commonFilter(f);
  auto windows = windowClauses(f, max_span_);
  const bool runs = f.duplicates && version_ >= 3;
  auto st = prepared(prefix + usageSql(common, windows, runs, !f.nodes.empty()));
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  s.bind(window.start);
  s.bind(window.end);
  s.bind(window.now);
  for (int table = 0; table < (runs ? 2 : 1); ++table) {
    for (const auto& w : windows) {
      for (const auto& a : common.args) s.bindValue(a);
      for (const auto& a : w.args) s.bindValue(a);
    }
  }
  return &s;
}

Result<std::string> SqliteAccountingStore::explainUsage(const AcctFilter& filter, const UsageWindow& window) {
  auto st = usageStatement(filter, window, "EXPLAIN QUERY PLAN ");
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  std::string plan;
  while (sqlite3_step(s.get()) == SQLITE_ROW) plan += s.str(3) + "\n";
  s.reset();
  return plan;
}

Result<std::vector<UsageRow>> SqliteAccountingStore::usage(const AcctFilter& filter, const UsageWindow& window) {
  auto st = usageStatement(filter, window, "");
  if (!st) return makeError(st.error());
  Stmt& s = **st;
  // Nodes= needs the hostlist of each job: node_list is then part of the key, and the groups
  // that ran on none of the nodes are dropped here (as query() drops the jobs).
  const std::set<std::string> nodes(filter.nodes.begin(), filter.nodes.end());
  std::map<std::tuple<std::string, std::string, std::string, std::uint32_t, std::string, std::uint32_t>,
           UsageRow>
      merged;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    if (!nodes.empty() && !ranOn(s.str(6), nodes)) continue;
    UsageRow r;
    r.account = s.str(0);
    r.user = s.str(1);
    r.alloc_tres = s.str(2);
    r.ncpus = static_cast<std::uint32_t>(s.i64(3));
    r.req_tres = s.str(4);
    r.req_cpus = static_cast<std::uint32_t>(s.i64(5));
    UsageRow& m = merged[{r.account, r.user, r.alloc_tres, r.ncpus, r.req_tres, r.req_cpus}];
    if (m.jobs == 0) m = r;
    m.ran_sec += s.i64(7);
    m.waited_sec += s.i64(8);
    m.jobs_ran += static_cast<std::uint64_t>(s.i64(9));
    m.jobs += static_cast<std::uint64_t>(s.i64(10));
  }
  s.reset();
  if (rc != SQLITE_DONE) {
    return makeError("accounting database " + path_ + ": usage: " + sqlite3_errmsg(db_));
  }
  std::vector<UsageRow> out;
  out.reserve(merged.size());
  for (auto& [key, row] : merged) out.push_back(std::move(row));
  return out;
}

}  // namespace drover::acct
