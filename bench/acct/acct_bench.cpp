// Accounting benchmark: fill a SQLite store with a year of jobs (default 1,000,000, each with a
// batch step, a third with a numbered step too) over many users, then time the queries sacct
// makes. Prints a markdown table for docs/performance.md.
//
//   acct_bench [--jobs N] [--users N] [--batch N] [--db PATH] [--reuse]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "acct/report/sacct_format.h"
#include "acct/sqlite_store.h"

using namespace drover::acct;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kNow = 1796040000;  // 2026-11-30
constexpr std::int64_t kYearStart = kNow - 365 * kDay;

struct Options {
  std::uint64_t jobs = 1'000'000;
  std::uint32_t users = 2000;
  std::size_t batch = 1000;
  std::string db = "/tmp/drover-acct-bench.db";
  bool reuse = false;
};

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Users are skewed as on real clusters: a few submit most jobs.
std::uint32_t pickUser(std::mt19937_64& rng, std::uint32_t users) {
  std::uniform_real_distribution<double> u(0, 1);
  double x = u(rng);
  return static_cast<std::uint32_t>(static_cast<double>(users) * x * x * x);
}

JobWithSteps makeJob(std::uint64_t id, std::uint64_t total, std::mt19937_64& rng,
                     std::uint32_t users) {
  std::uniform_real_distribution<double> u(0, 1);
  JobRecord j;
  j.job_id = id;
  const std::uint32_t user = pickUser(rng, users);
  j.uid = 10000 + user;
  j.user = "user" + std::to_string(user);
  j.gid = j.uid;
  j.group = j.user;
  j.account = "acct" + std::to_string(user % 50);
  j.partition = u(rng) < 0.8 ? "gpu" : "debug";
  j.qos = "normal";
  j.cluster = "drover";
  static const char* kNames[] = {"train", "eval", "preprocess", "sweep", "wrap", "bash",
                                 "notebook", "bench"};
  j.name = kNames[rng() % 8];
  // Submissions spread evenly over the year, in id order.
  j.submit = kYearStart + static_cast<std::int64_t>((365 * kDay) * id / (total + 1));
  j.eligible = j.submit;
  const double wait = std::exp(u(rng) * std::log(3600.0));
  const double run = std::exp(std::log(10.0) + u(rng) * (std::log(2 * kDay) - std::log(10.0)));
  j.time_limit_min = 2 * 24 * 60;
  j.ncpus = j.req_cpus = 1u << (rng() % 6);
  j.nnodes = j.req_nodes = 1 + static_cast<std::uint32_t>(rng() % 4);
  j.req_mem_mb = 4000ull * j.ncpus;
  j.node_list = "gpu" + std::to_string(100 + rng() % 800);
  j.req_tres = j.alloc_tres = "billing=" + std::to_string(j.ncpus) +
                              ",cpu=" + std::to_string(j.ncpus) +
                              ",gres/gpu=8,mem=" + std::to_string(j.req_mem_mb) + "M,node=1";
  j.work_dir = "/home/" + j.user;
  j.start = j.submit + static_cast<std::int64_t>(wait);
  j.end = j.start + static_cast<std::int64_t>(run);
  const double s = u(rng);
  j.state = s < 0.80   ? JobState::kCompleted
            : s < 0.90 ? JobState::kFailed
            : s < 0.95 ? JobState::kCancelled
            : s < 0.98 ? JobState::kTimeout
                       : JobState::kOutOfMemory;
  if (j.state == JobState::kFailed) j.exit = {1, 0};
  if (j.state == JobState::kCancelled) j.cancelled_by = j.uid;
  if (j.start > kNow) {
    j.state = JobState::kPending;
    j.start = j.end = 0;
    j.node_list.clear();
  } else if (j.end > kNow) {
    j.state = JobState::kRunning;
    j.end = 0;
  }
  JobWithSteps jw{j, {}, true};
  if (j.start > 0) {
    StepRecord b;
    b.job_id = id;
    b.step_id = kBatchStep;
    b.name = "batch";
    b.state = j.state == JobState::kRunning ? JobState::kRunning : JobState::kCompleted;
    b.start = j.start;
    b.end = j.end;
    b.ncpus = j.ncpus;
    b.ntasks = b.nnodes = 1;
    b.node_list = j.node_list;
    b.usage.user_cpu_usec = static_cast<std::int64_t>(run * 1e6 * 0.9);
    b.usage.max_rss_kb = 1 + static_cast<std::int64_t>(rng() % 8'000'000);
    b.usage.max_rss_node = j.node_list;
    b.usage.max_rss_task = 0;
    jw.steps.push_back(b);
    if (rng() % 3 == 0) {
      StepRecord s0 = b;
      s0.step_id = 0;
      s0.name = "python";
      s0.ntasks = 8 * j.nnodes;
      jw.steps.push_back(s0);
    }
  }
  return jw;
}

struct Row {
  std::string name;
  std::size_t rows;
  double median_ms, max_ms;
};

Row timeQuery(SqliteAccountingStore& store, const std::string& name, const AcctFilter& f,
              int reps = 9) {
  std::vector<double> times;
  std::size_t rows = 0;
  for (int i = 0; i < reps; ++i) {
    auto t = Clock::now();
    auto r = store.query(f);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), r.error().c_str());
      std::exit(1);
    }
    // Include formatting: what the user waits for is the printed table.
    std::string text = drover::acct::report::renderSacct(*r, drover::acct::report::defaultColumns(),
                                                         {});
    times.push_back(msSince(t));
    rows = 0;
    for (const auto& jw : *r) rows += 1 + jw.steps.size();
    if (text.empty()) std::exit(2);
  }
  std::sort(times.begin(), times.end());
  return Row{name, rows, times[times.size() / 2], times.back()};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--jobs") o.jobs = std::stoull(next());
    else if (a == "--users") o.users = static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--batch") o.batch = std::stoul(next());
    else if (a == "--db") o.db = next();
    else if (a == "--reuse") o.reuse = true;
    else {
      std::fprintf(stderr, "usage: acct_bench [--jobs N] [--users N] [--batch N] [--db PATH] [--reuse]\n");
      return 2;
    }
  }
  if (!o.reuse) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(o.db + suffix);
  }
  std::printf("jobs=%llu users=%u batch=%zu db=%s\n", static_cast<unsigned long long>(o.jobs),
              o.users, o.batch, o.db.c_str());

  if (!o.reuse) {
    auto store = SqliteAccountingStore::open(o.db);
    if (!store.ok()) {
      std::fprintf(stderr, "%s\n", store.error().c_str());
      return 1;
    }
    std::mt19937_64 rng(42);
    std::size_t records = 0;
    auto t = Clock::now();
    AcctBatch batch;
    for (std::uint64_t id = 1; id <= o.jobs; ++id) {
      auto jw = makeJob(id, o.jobs, rng, o.users);
      batch.jobs.push_back(std::move(jw.job));
      for (auto& s : jw.steps) batch.steps.push_back(std::move(s));
      if (batch.jobs.size() >= o.batch || id == o.jobs) {
        auto r = (*store)->apply(batch);
        if (!r.ok()) {
          std::fprintf(stderr, "%s\n", r.error().c_str());
          return 1;
        }
        records += *r;
        batch = {};
      }
    }
    double ms = msSince(t);
    std::printf("\n| insert | records | seconds | records/s |\n|---|---:|---:|---:|\n");
    std::printf("| %llu jobs + steps, batches of %zu jobs | %zu | %.1f | %.0f |\n",
                static_cast<unsigned long long>(o.jobs), o.batch, records, ms / 1000,
                records / (ms / 1000));
    // Unbatched: one transaction per record, the cost group commit avoids.
    t = Clock::now();
    const int single = 2000;
    for (int i = 0; i < single; ++i) {
      auto jw = makeJob(o.jobs + 1 + static_cast<std::uint64_t>(i), o.jobs, rng, o.users);
      if (!(*store)->upsertJob(jw.job).ok()) return 1;
    }
    ms = msSince(t);
    std::printf("| %d jobs, one transaction each | %d | %.2f | %.0f |\n", single, single,
                ms / 1000, single / (ms / 1000));
  }

  // A fresh connection per query run, as a sacct process would have.
  auto t = Clock::now();
  auto opened = SqliteAccountingStore::open(o.db);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.error().c_str());
    return 1;
  }
  double open_ms = msSince(t);
  auto& store = **opened;

  std::vector<Row> rows;
  const std::uint32_t heavy = 10000, typical = 10000 + o.users / 2;
  {
    AcctFilter f;
    f.uids = {heavy};
    f.window_start = kNow - kDay;
    f.window_end = kNow;
    rows.push_back(timeQuery(store, "busiest user, last day, with steps", f));
    f.uids = {typical};
    f.window_start = kNow - 7 * kDay;
    rows.push_back(timeQuery(store, "typical user, last week, with steps", f));
    f.window_start = kNow - kDay;
    f.uids = {heavy};
    f.window_start = kNow - 7 * kDay;
    f.include_steps = false;
    rows.push_back(timeQuery(store, "busiest user, last week, -X", f));
    f.include_steps = true;
    rows.push_back(timeQuery(store, "busiest user, last week, with steps", f));
  }
  {
    AcctFilter f;
    f.jobs = {JobSelector{o.jobs / 2, {}, {}}};
    rows.push_back(timeQuery(store, "one job id (-j), with steps", f));
  }
  {
    AcctFilter f;
    f.states = {JobState::kFailed};
    f.window_start = kNow - 7 * kDay;
    f.window_end = kNow;
    f.include_steps = false;
    rows.push_back(timeQuery(store, "-s FAILED over last week, all users, -X", f));
  }
  {
    AcctFilter f;
    f.window_start = kYearStart + 180 * kDay;
    f.window_end = *f.window_start + 3600;
    f.include_steps = false;
    rows.push_back(timeQuery(store, "all jobs in one hour (mid-year), -X", f));
    f.include_steps = true;
    rows.push_back(timeQuery(store, "all jobs in one hour (mid-year), with steps", f));
    f.window_start = kNow - 3600;
    f.window_end = kNow;
    rows.push_back(timeQuery(store, "all jobs in the last hour, with steps", f));
  }
  std::printf("\nopen existing store: %.1f ms\n", open_ms);
  std::printf("\n| query (includes formatting) | rows | median ms | max ms |\n|---|---:|---:|---:|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %zu | %.2f | %.2f |\n", r.name.c_str(), r.rows, r.median_ms, r.max_ms);
  }
  auto size = std::filesystem::file_size(o.db);
  std::printf("\ndatabase file: %.0f MiB\n", static_cast<double>(size) / (1024 * 1024));
  return 0;
}
