// The accounting store's queries: sacct's jobs and steps, and sreport's usage sums.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include "acct/sqlite_columns.h"
#include "acct/sqlite_stmt.h"
#include "acct/sqlite_store.h"
#include "acct/usage_json.h"
#include "drover/hostlist.h"

namespace drover::acct {

namespace {

using detail::kJobColumns;
using detail::kOpenEnd;
using detail::kStepColumnCount;
using detail::kStepColumns;
using detail::placeholders;

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
// job's current record (the `earlier` column: 1 for job_runs rows).
std::string jobSql(const Sql& common, const std::vector<Sql>& windows, bool may_overlap,
                   bool runs = false) {
  std::string sql;
  for (const char* table : {"jobs", "job_runs"}) {
    if (std::string(table) == "job_runs" && !runs) break;
    const std::string earlier = std::string(table) == "jobs" ? "0" : "1";
    for (const auto& w : windows) {
      if (!sql.empty()) sql += may_overlap ? " UNION " : " UNION ALL ";
      // Array remainder records sort after the tasks split from them, and an array's tasks in
      // task order whatever ids they took when they started (the last takes the array's own),
      // as Slurm prints them.
      sql += std::string("SELECT ") + kJobColumns +
             ", (array_job_id != 0 AND array_task_id IS NULL) AS rest, " + earlier +
             " AS earlier, CASE WHEN array_job_id != 0 THEN array_job_id ELSE job_id END AS grp"
             " FROM " + table + " WHERE " + common.where + " AND (" + w.where + ")";
    }
  }
  return sql + " ORDER BY submit, rest, grp, array_task_id, job_id, earlier DESC, restart_count";
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
    if (!nodes.empty() && !ranOn(j.node_list, nodes)) continue;
    out.push_back(JobWithSteps{std::move(j), {}, true});
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
                     placeholders(kChunk) + ") ORDER BY job_id, run, step_id");
  if (!ss) return makeError(ss.error());
  Stmt& q = **ss;
  // Each step is listed under the row of its own run (sacct -D: a requeued job's earlier runs
  // each with theirs); a run not listed (no -D) shows none.
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::size_t> row_of;  // (job, run)
  std::vector<std::uint64_t> wanted;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const JobRecord& job = out[i].job;
    if (!filter.include_steps && !only_steps.count(job.job_id)) continue;
    wanted.push_back(job.job_id);
    row_of[{job.job_id, job.restart_count}] = i;
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (std::size_t first = 0; first < wanted.size(); first += kChunk) {
    q.reset();
    for (std::size_t k = 0; k < static_cast<std::size_t>(kChunk); ++k) {
      q.bind(static_cast<std::int64_t>(first + k < wanted.size() ? wanted[first + k] : 0));
    }
    while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
      StepRecord st;
      int c = 0;
      st.job_id = static_cast<std::uint64_t>(q.i64(c++));
      st.step_id = q.i64(c++);
      st.run = static_cast<std::uint32_t>(q.i64(kStepColumnCount - 1));  // the last column
      auto row = row_of.find({st.job_id, st.run});
      if (row == row_of.end()) continue;
      JobWithSteps& jw = out[row->second];
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

Result<std::optional<JobScript>> SqliteAccountingStore::jobScript(std::uint64_t job_id) {
  if (version_ < 5) return std::optional<JobScript>{};
  auto stmt = prepared("SELECT script, environment FROM job_scripts WHERE job_id = ?");
  if (!stmt) return makeError(stmt.error());
  Stmt& s = **stmt;
  s.bind(static_cast<std::int64_t>(job_id));
  std::optional<JobScript> out;
  if (sqlite3_step(s.get()) == SQLITE_ROW) {
    out = JobScript{job_id, {}, {}};
    if (!s.isNull(0)) out->script = s.str(0);
    if (!s.isNull(1)) out->environment = s.str(1);
  }
  s.reset();
  return out;
}

}  // namespace drover::acct
