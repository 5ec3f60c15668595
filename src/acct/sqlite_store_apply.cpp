// The accounting store's writes: one batch of jobs, steps, job runs and events per transaction.
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "acct/sqlite_columns.h"
#include "acct/sqlite_stmt.h"
#include "acct/sqlite_store.h"
#include "acct/usage_json.h"

namespace drover::acct {
namespace {

using detail::kJobColumnCount;
using detail::kJobColumns;
using detail::kOpenEnd;
using detail::kStepColumnCount;
using detail::kStepColumns;
using detail::placeholders;

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

}  // namespace

Result<std::size_t> SqliteAccountingStore::apply(const AcctBatch& batch) {
  if (batch.empty()) return std::size_t{0};
  static const std::string kJobUpsert = upsertSql("jobs", kJobColumns, kJobColumnCount, "job_id");
  static const std::string kStepUpsert =
      upsertSql("steps", kStepColumns, kStepColumnCount, "job_id, run, step_id");
  static const std::string kRunUpsert =
      upsertSql("job_runs", kJobColumns, kJobColumnCount, "job_id, restart_count");
  if (!batch.events.empty() && version_ < 4) {
    return makeError("accounting database " + path_ + " has schema version " +
                     std::to_string(version_) + ", which keeps no events; migrate it to 4");
  }
  if (!batch.steps.empty() && version_ < 6) {
    return makeError("accounting database " + path_ + " has schema version " +
                     std::to_string(version_) + ", which keeps no step runs; migrate it to 6");
  }
  if (!batch.scripts.empty() && version_ < 5) {
    return makeError("accounting database " + path_ + " has schema version " +
                     std::to_string(version_) + ", which keeps no job scripts; migrate it to 5");
  }
  if (!batch.runs.empty() && version_ < 3) {
    return makeError("accounting database " + path_ + " has schema version " +
                     std::to_string(version_) + ", which keeps no earlier runs; migrate it to 3");
  }
  auto begin = prepared("BEGIN IMMEDIATE");
  auto commit = prepared("COMMIT");
  auto job_stmt = prepared(kJobUpsert);
  for (auto* r : {&begin, &commit, &job_stmt}) {
    if (!*r) return makeError(r->error());
  }
  // Only where steps are written: a file older than version 6 has no steps.run (tests open one).
  Result<Stmt*> step_stmt = batch.steps.empty() ? Result<Stmt*>(nullptr) : prepared(kStepUpsert);
  if (!step_stmt) return makeError(step_stmt.error());
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
    s.bind(usage);
    s.bind(std::int64_t{st.run});
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
  if (!derived.empty() && version_ >= 6) {
    std::sort(derived.begin(), derived.end());
    derived.erase(std::unique(derived.begin(), derived.end()), derived.end());
    auto derived_stmt = prepared(
        "UPDATE jobs SET (dexit_code, dexit_signal) = (SELECT exit_code, exit_signal FROM steps "
        "WHERE steps.job_id = ?1 AND steps.run = jobs.restart_count AND steps.step_id >= 0 "
        "ORDER BY exit_code DESC, exit_signal DESC LIMIT 1) WHERE job_id = ?1 AND EXISTS "
        "(SELECT 1 FROM steps WHERE steps.job_id = ?1 AND steps.run = jobs.restart_count AND "
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
  if (!batch.scripts.empty()) {
    auto script_stmt = prepared("INSERT OR REPLACE INTO job_scripts(job_id, script, environment) VALUES(?, ?, ?)");
    if (!script_stmt) return fail(script_stmt.error());
    for (const JobScript& js : batch.scripts) {
      Stmt& s = **script_stmt;
      s.reset();
      s.bind(static_cast<std::int64_t>(js.job_id));
      s.bind(js.script);
      s.bind(js.environment);
      if (sqlite3_step(s.get()) != SQLITE_DONE) return fail("keeping the script of job " + std::to_string(js.job_id));
    }
  }
  if (sqlite3_step((*commit)->get()) != SQLITE_DONE) return fail("commit");
  max_span_ = std::max(max_span_, span);
  return batch.jobs.size() + batch.steps.size() + batch.runs.size() + batch.events.size() +
         batch.scripts.size();
}

}  // namespace drover::acct
