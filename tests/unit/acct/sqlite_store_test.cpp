// SqliteAccountingStore on real database files in a temporary directory.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "acct/report/sacct_format.h"
#include "acct/sqlite_store.h"
#include "golden_jobs.h"
#include "../temp_dir.h"

namespace drover::acct {
namespace {

using testing::JobBuilder;
using testing::kT0;

std::unique_ptr<SqliteAccountingStore> openStore(const std::string& path, SqliteOptions o = {}) {
  auto s = SqliteAccountingStore::open(path, o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return s.ok() ? std::move(*s) : nullptr;
}

AcctBatch batchOf(const std::vector<JobWithSteps>& jobs) {
  AcctBatch b;
  for (const auto& jw : jobs) {
    b.jobs.push_back(jw.job);
    for (const auto& s : jw.steps) b.steps.push_back(s);
  }
  return b;
}

std::vector<std::uint64_t> ids(const Result<std::vector<JobWithSteps>>& r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
  std::vector<std::uint64_t> out;
  if (r.ok()) {
    for (const auto& jw : *r) out.push_back(jw.job.job_id);
  }
  return out;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = openStore(dir_.file("acct.db"));
    ASSERT_TRUE(store_);
    auto jobs = testing::goldenJobs();
    jobs.push_back(JobWithSteps{testing::bobJob(), {}, true});
    auto r = store_->apply(batchOf(jobs));
    ASSERT_TRUE(r.ok()) << r.error();
  }
  TempDir dir_;
  std::unique_ptr<SqliteAccountingStore> store_;
};

TEST_F(StoreTest, RoundTripsEveryFieldAndPrintsGolden109) {
  AcctFilter alice;
  alice.uids = {1001};
  auto got = store_->query(alice);
  ASSERT_TRUE(got.ok()) << got.error();
  auto want = testing::goldenJobs();
  ASSERT_EQ(got->size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((*got)[i].job, want[i].job) << want[i].job.job_id;
    EXPECT_EQ((*got)[i].steps, want[i].steps) << want[i].job.job_id;
  }
  EXPECT_EQ(report::renderSacct(*got, report::defaultColumns(), {}),
            testing::goldenStdout("109-sacct-default.txt"));
}

// An array's tasks take ids as they start, the last one the array's own (50 here): sacct lists
// them in task order, as real Slurm 22.05 did for `--array=0-3%1` with task 2 cancelled while
// pending (1_0 raw 2, 1_1 raw 3, 1_3 raw 1; checked on the reference cluster).
TEST_F(StoreTest, ArrayTasksListInTaskOrderWhateverIdsTheyTook) {
  const std::int64_t t = kT0 + 5000;
  for (auto [id, task] : {std::pair{52, 1}, std::pair{50, 3}, std::pair{51, 0}}) {
    JobRecord j = JobBuilder(id).name("arr").submit(t).arrayTask(50, task).ran("node01", 1, 2);
    ASSERT_TRUE(store_->upsertJob(j).ok());
  }
  AcctFilter f;
  f.jobs = {JobSelector{50, {}, {}}};
  auto got = store_->query(f);
  ASSERT_TRUE(got.ok()) << got.error();
  std::vector<std::uint64_t> order;
  for (const auto& r : *got) order.push_back(r.job.job_id);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{51, 52, 50}));
}

TEST_F(StoreTest, UpsertIsIdempotentAndReplacesFields) {
  JobRecord j = JobBuilder(100).pending();
  ASSERT_TRUE(store_->upsertJob(j).ok());
  ASSERT_TRUE(store_->upsertJob(j).ok());
  j.state = JobState::kRunning;
  j.start = kT0 + 2000;
  j.node_list = "node09";
  j.comment = "now running";
  ASSERT_TRUE(store_->upsertJob(j).ok());
  StepRecord s = testing::step(j, kBatchStep, "batch", 1, JobState::kRunning);
  ASSERT_TRUE(store_->upsertStep(s).ok());
  s.state = JobState::kCompleted;
  s.usage.max_rss_kb = 4096;
  s.usage.user_cpu_usec = 12;
  ASSERT_TRUE(store_->upsertStep(s).ok());

  AcctFilter f;
  f.jobs = {JobSelector{100, {}, {}}};
  auto got = store_->query(f);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].job, j);
  ASSERT_EQ((*got)[0].steps.size(), 1u);
  EXPECT_EQ((*got)[0].steps[0], s);
}

// The flags column is bound from a string joined while the job's row is bound; it must still
// hold the flags when the row is written (ASan: heap-use-after-free in apply() when the joined
// string died with the lambda that bound it). Longer than a short string's inline buffer, so
// the joined string lives on the heap.
TEST_F(StoreTest, JobFlagsRoundTrip) {
  JobRecord j = JobBuilder(300).name("flagged").ran("node01", 1, 5);
  j.flags = {"CLEAR_SCHEDULING", "STARTED_ON_SUBMIT", "JOB_WAS_RUNNING"};
  ASSERT_TRUE(store_->upsertJob(j).ok());
  AcctFilter f;
  f.jobs = {JobSelector{300, {}, {}}};
  auto got = store_->query(f);
  ASSERT_TRUE(got.ok()) << got.error();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].job.flags, j.flags);
  EXPECT_EQ((*got)[0].job, j);
}

// DerivedExitCode is the highest exit of the numbered steps (golden 111: 1:0 from 16.1), not
// the batch step's (golden 113: 3:0 batch, 0:0 derived); a later record of the job, which the
// controller writes without it, keeps it.
TEST_F(StoreTest, DerivedExitCodeIsTheHighestNumberedStepExit) {
  JobRecord j = JobBuilder(200).name("steps").ran("node[02-03]", 2, 2);
  j.state = JobState::kRunning;
  j.end = 0;
  AcctBatch first;
  first.jobs.push_back(j);
  first.steps.push_back(testing::step(j, kBatchStep, "batch", 3, JobState::kFailed, {7, 0}));
  first.steps.push_back(testing::step(j, 0, "hostname", 4));
  ASSERT_TRUE(store_->apply(first).ok());
  AcctBatch second;
  second.steps.push_back(testing::step(j, 1, "false", 3, JobState::kFailed, {1, 0}));
  second.steps.push_back(testing::step(j, 2, "kill", 3, JobState::kCancelled, {0, 9}));
  ASSERT_TRUE(store_->apply(second).ok());
  AcctBatch last;
  j.state = JobState::kCompleted;
  j.end = j.start + 2;
  last.jobs.push_back(j);
  ASSERT_TRUE(store_->apply(last).ok());

  AcctFilter f;
  f.jobs = {JobSelector{200, {}, {}}};
  auto got = store_->query(f);
  ASSERT_TRUE(got.ok()) << got.error();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].job.derived_exit, (ExitStatus{1, 0}));

  // Without numbered steps the record's own value stays.
  JobRecord plain = JobBuilder(201).ran("node01", 1, 1).derived(0, 0);
  AcctBatch only_batch;
  only_batch.jobs.push_back(plain);
  only_batch.steps.push_back(testing::step(plain, kBatchStep, "batch", 1, JobState::kFailed, {3, 0}));
  ASSERT_TRUE(store_->apply(only_batch).ok());
  f.jobs = {JobSelector{201, {}, {}}};
  got = store_->query(f);
  ASSERT_TRUE(got.ok()) << got.error();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].job.derived_exit, (ExitStatus{0, 0}));
}

// A requeued job: its first run ended REQUEUED (kept in AcctBatch::runs), its record moved on to
// the second run. sacct shows the current record; sacct -D the earlier run too, before it, each
// with its own steps (the reference's `63 REQUEUED`, `63.batch`, `63.0`, then the next run).
TEST_F(StoreTest, EarlierRunsOfRequeuedJobsShowWithDuplicates) {
  JobRecord first = JobBuilder(200).ran("node01", 1, 30);
  first.state = JobState::kRequeued;
  JobRecord current = JobBuilder(200).ran("node02", 1, 60);
  current.start = first.end + 5;
  current.end = current.start + 60;
  current.restart_count = 1;
  AcctBatch batch;
  batch.jobs.push_back(current);
  batch.runs.push_back(first);
  batch.steps.push_back(testing::step(first, kBatchStep, "batch", 1, JobState::kCancelled));
  batch.steps.push_back(testing::step(first, 0, "false", 1, JobState::kFailed, {3, 0}));
  batch.steps.push_back(testing::step(current, kBatchStep, "batch", 1, JobState::kCompleted));
  ASSERT_TRUE(store_->apply(batch).ok());
  ASSERT_TRUE(store_->apply(batch).ok());  // idempotent: one row per (job, run)

  AcctFilter f;
  f.jobs = {JobSelector{200, {}, {}}};
  auto plain = store_->query(f);
  ASSERT_TRUE(plain.ok()) << plain.error();
  ASSERT_EQ(plain->size(), 1u);
  EXPECT_EQ((*plain)[0].job, current);  // DerivedExitCode is its run's: 0:0
  ASSERT_EQ((*plain)[0].steps.size(), 1u);
  EXPECT_EQ((*plain)[0].steps[0].state, JobState::kCompleted);

  f.duplicates = true;
  auto all = store_->query(f);
  ASSERT_TRUE(all.ok()) << all.error();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].job, first);
  ASSERT_EQ((*all)[0].steps.size(), 2u);
  EXPECT_EQ((*all)[0].steps[0].state, JobState::kCancelled);
  EXPECT_EQ((*all)[0].steps[1].exit, (ExitStatus{3, 0}));
  EXPECT_EQ((*all)[1].job, current);
  ASSERT_EQ((*all)[1].steps.size(), 1u);
  EXPECT_EQ((*all)[1].steps[0].state, JobState::kCompleted);

  // A state filter sees each run in its own state.
  f.states = {JobState::kRequeued};
  EXPECT_EQ(ids(store_->query(f)), std::vector<std::uint64_t>{200});
}

struct FilterCase {
  std::string name;
  AcctFilter filter;
  std::vector<std::uint64_t> want;
};

TEST_F(StoreTest, Filters) {
  auto sel = [](const char* text) { return *parseJobSelector(text); };
  std::vector<FilterCase> cases;
  {
    AcctFilter f;
    f.uids = {1002};
    cases.push_back({"uid", f, {35}});
  }
  {
    AcctFilter f;
    f.users = {"bob"};
    cases.push_back({"user name", f, {35}});
  }
  {
    AcctFilter f;
    f.names = {"env", "big"};
    cases.push_back({"names", f, {20, 21, 22, 23, 33}});
  }
  {
    AcctFilter f;
    f.accounts = {"nobody"};
    cases.push_back({"account", f, {}});
  }
  {
    AcctFilter f;
    f.partitions = {"gpu"};
    f.uids = {1002};
    cases.push_back({"partition", f, {35}});
  }
  {
    AcctFilter f;
    f.states = {JobState::kTimeout, JobState::kCancelled};
    cases.push_back({"states (no window)", f, {4, 28, 36, 37, 29, 33}});
  }
  {
    AcctFilter f;
    f.nodes = {"node04"};
    cases.push_back({"node", f, {19, 28, 34}});
  }
  {
    AcctFilter f;
    f.jobs = {sel("29")};
    cases.push_back({"array id selects every task", f, {36, 37, 29}});
  }
  {
    AcctFilter f;
    f.jobs = {sel("29_1"), sel("9")};
    cases.push_back({"array task and plain id", f, {9, 37}});
  }
  {
    AcctFilter f;
    f.jobs = {sel("37")};
    cases.push_back({"raw id of a task", f, {37}});
  }
  for (const auto& c : cases) {
    EXPECT_EQ(ids(store_->query(c.filter)), c.want) << c.name;
  }
}

// sacct's common queries must never scan the whole jobs table.
TEST_F(StoreTest, QueriesUseIndexes) {
  std::vector<AcctFilter> filters(5);
  filters[0].jobs = {*parseJobSelector("29")};
  filters[1].jobs = {*parseJobSelector("29_1")};
  filters[2].uids = {1001};
  filters[2].window_start = kT0;
  filters[2].window_end = kT0 + 86400;
  filters[3].states = {JobState::kFailed};
  filters[3].window_start = kT0;
  filters[3].window_end = kT0 + 86400;
  filters[4].window_start = kT0;
  filters[4].window_end = kT0 + 3600;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    auto plan = store_->explain(filters[i]);
    ASSERT_TRUE(plan.ok()) << plan.error();
    EXPECT_EQ(plan->find("SCAN jobs"), std::string::npos) << "filter " << i << ":\n" << *plan;
  }
}

TEST_F(StoreTest, StepSelectorsAndNoSteps) {
  AcctFilter f;
  f.jobs = {*parseJobSelector("16.1"), *parseJobSelector("11.batch")};
  auto got = store_->query(f);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_FALSE((*got)[0].show_job);
  ASSERT_EQ((*got)[0].steps.size(), 1u);
  EXPECT_EQ((*got)[0].steps[0].step_id, kBatchStep);
  ASSERT_EQ((*got)[1].steps.size(), 1u);
  EXPECT_EQ((*got)[1].steps[0].step_id, 1);

  // -X with a step selector still shows the named step (sacct -X -j 16.1 prints the step).
  f.include_steps = false;
  got = store_->query(f);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), 2u);

  AcctFilter x;
  x.include_steps = false;
  x.jobs = {*parseJobSelector("16")};
  got = store_->query(x);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_TRUE((*got)[0].steps.empty());
}

// Time windows on a small timeline (times relative to T):
//   1 done:     eligible 0,   start 10,  end 100   COMPLETED
//   2 done:     eligible 200, start 210, end 300   FAILED
//   3 running:  eligible 50,  start 150, end -     RUNNING
//   4 pending:  eligible 250, start -,   end -     PENDING
//   5 held:     eligible -,   start -,   end -     PENDING (never eligible)
//   6 long:     eligible 0,   start 5,   end 1000  TIMEOUT
TEST(StoreWindows, SlurmSemantics) {
  TempDir dir;
  auto store = openStore(dir.file("w.db"));
  const std::int64_t T = kT0 + 100000;
  auto job = [&](std::uint64_t id, std::int64_t elig, std::int64_t start, std::int64_t end,
                 JobState st) {
    JobRecord j = JobBuilder(id).submit(T + std::max<std::int64_t>(elig, 0)).state(st);
    j.eligible = elig < 0 ? 0 : T + elig;
    j.start = start < 0 ? 0 : T + start;
    j.end = end < 0 ? 0 : T + end;
    return j;
  };
  AcctBatch b;
  b.jobs = {job(1, 0, 10, 100, JobState::kCompleted), job(2, 200, 210, 300, JobState::kFailed),
            job(3, 50, 150, -1, JobState::kRunning), job(4, 250, -1, -1, JobState::kPending),
            job(5, -1, -1, -1, JobState::kPending), job(6, 0, 5, 1000, JobState::kTimeout)};
  ASSERT_TRUE(store->apply(b).ok());
  struct W {
    std::string name;
    std::int64_t s, e;
    std::vector<JobState> states;
    std::set<std::uint64_t> want;
  };
  using S = JobState;
  const std::vector<W> cases = {
      {"before everything", -100, -50, {}, {}},
      {"early window", 20, 40, {}, {1, 6}},
      {"middle", 120, 180, {}, {3, 6}},
      {"late", 260, 400, {}, {2, 3, 4, 6}},
      {"after all ended", 1100, 1200, {}, {3, 4}},
      {"boundary: end == S counts", 100, 110, {}, {1, 3, 6}},
      {"completed in window", 0, 150, {S::kCompleted}, {1}},
      {"completed, ended outside", 101, 150, {S::kCompleted}, {}},
      {"failed or timeout", 0, 2000, {S::kFailed, S::kTimeout}, {2, 6}},
      {"running during", 160, 170, {S::kRunning}, {3, 6}},
      {"pending during (waited 0..10, 0..5)", 0, 20, {S::kPending}, {1, 6}},
      {"pending late", 260, 270, {S::kPending}, {4}},
  };
  for (const auto& c : cases) {
    AcctFilter f;
    f.window_start = T + c.s;
    f.window_end = T + c.e;
    f.states = c.states;
    auto got = ids(store->query(f));
    EXPECT_EQ(std::set<std::uint64_t>(got.begin(), got.end()), c.want) << c.name;
  }
}

TEST(StoreMigrations, OldFileIsMigratedWithItsData) {
  TempDir dir;
  const auto path = dir.file("old.db");
  {
    SqliteOptions v1;
    v1.migrate_to = 1;
    auto old = openStore(path, v1);
    ASSERT_TRUE(old);
    EXPECT_EQ(*old->schemaVersion(), 1);
    ASSERT_TRUE(old->upsertJob(JobBuilder(7).ran("node01", 1, 500)).ok());
  }
  {
    SqliteOptions ro;
    ro.read_only = true;
    auto r = SqliteAccountingStore::open(path, ro);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("schema version 1"), std::string::npos) << r.error();
  }
  auto store = openStore(path);
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  AcctFilter f;
  f.window_start = kT0 + 70 + 400;  // needs max_span computed from the old rows
  f.window_end = kT0 + 70 + 450;
  EXPECT_EQ(ids(store->query(f)), std::vector<std::uint64_t>{7});
  auto plan = store->explain(f);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("USING INDEX"), std::string::npos) << *plan;
}

// Version 6 keys steps by run: a version 5 file's steps (its jobs' current runs) are migrated
// to the run of their job's record, and still listed under it; until then steps are refused.
TEST(StoreMigrations, StepsOfAVersion5FileBelongToTheirJobsCurrentRun) {
  TempDir dir;
  const auto path = dir.file("v5.db");
  JobRecord job = JobBuilder(9).ran("node01", 1, 50);
  job.restart_count = 2;
  {
    SqliteOptions v5;
    v5.migrate_to = 5;
    auto old = openStore(path, v5);
    ASSERT_TRUE(old);
    ASSERT_TRUE(old->upsertJob(job).ok());
    AcctBatch steps;
    steps.steps.push_back(testing::step(job, kBatchStep, "batch", 1));
    auto refused = old->apply(steps);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("keeps no step runs"), std::string::npos) << refused.error();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "INSERT INTO steps VALUES(9, -5, 'batch', 3, 0, 0, 100, 150, 0, 1, 1, 1, "
                         "'node01', '', '', 'Unknown', NULL, NULL, NULL, '', NULL)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto store = openStore(path);
  ASSERT_TRUE(store);
  AcctFilter f;
  f.jobs = {JobSelector{9, {}, {}}};
  auto got = store->query(f);
  ASSERT_TRUE(got.ok()) << got.error();
  ASSERT_EQ(got->size(), 1u);
  ASSERT_EQ((*got)[0].steps.size(), 1u);
  EXPECT_EQ((*got)[0].steps[0].run, 2u);
  EXPECT_EQ((*got)[0].steps[0].end, 150);
}

TEST(StoreMigrations, NewerFileIsRefused) {
  TempDir dir;
  const auto path = dir.file("new.db");
  { openStore(path); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "UPDATE schema_version SET version=99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto r = SqliteAccountingStore::open(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("newer"), std::string::npos) << r.error();
}

TEST(StoreDurability, ReopenSeesCommittedBatches) {
  TempDir dir;
  const auto path = dir.file("d.db");
  {
    auto s = openStore(path);
    AcctBatch b;
    for (std::uint64_t id = 1; id <= 500; ++id) {
      b.jobs.push_back(JobBuilder(id).ran("n1", 1, 1));
      b.steps.push_back(testing::step(b.jobs.back(), kBatchStep, "batch", 1));
      if (id % 3 == 0) b.steps.push_back(testing::step(b.jobs.back(), 0, "s0", 1));
    }
    ASSERT_EQ(*s->apply(b), 500u + 500u + 166u);
  }
  auto s = openStore(path);
  auto got = s->query({});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 500u);
  // Steps are fetched for many jobs per statement; each must land on its own job.
  for (const auto& jw : *got) {
    ASSERT_EQ(jw.steps.size(), jw.job.job_id % 3 == 0 ? 2u : 1u) << jw.job.job_id;
    for (const auto& st : jw.steps) EXPECT_EQ(st.job_id, jw.job.job_id);
    EXPECT_EQ(jw.steps[0].step_id, kBatchStep);
  }
}

// WAL: a reader on its own connection never sees half a batch and never goes backwards.
TEST(StoreConcurrency, ReadersSeeWholeBatchesWhileWriting) {
  TempDir dir;
  const auto path = dir.file("c.db");
  auto writer = openStore(path);
  ASSERT_TRUE(writer);
  constexpr int kBatches = 40, kPerBatch = 50;
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::string reader_error;
  std::thread reader([&] {
    auto r = openStore(path);
    std::size_t last = 0;
    while (!done.load() || reads.load() < 5) {
      AcctFilter f;
      f.include_steps = false;
      auto got = r->query(f);
      if (!got.ok()) {
        reader_error = got.error();
        return;
      }
      if (got->size() % kPerBatch != 0 || got->size() < last) {
        reader_error = "saw " + std::to_string(got->size()) + " jobs after " +
                       std::to_string(last);
        return;
      }
      last = got->size();
      reads.fetch_add(1);
    }
  });
  for (int b = 0; b < kBatches; ++b) {
    AcctBatch batch;
    for (int i = 0; i < kPerBatch; ++i) {
      batch.jobs.push_back(JobBuilder(static_cast<std::uint64_t>(b * kPerBatch + i + 1))
                               .ran("node01", 1, 1));
    }
    ASSERT_TRUE(writer->apply(batch).ok());
  }
  done.store(true);
  reader.join();
  EXPECT_EQ(reader_error, "");
  EXPECT_GE(reads.load(), 5);
}

TEST(JobSelectors, Parse) {
  struct C {
    std::string text;
    bool ok;
    JobSelector want;
  };
  const std::vector<C> cases = {
      {"123", true, {123, {}, {}}},
      {"123_4", true, {123, 4u, {}}},
      {"123.batch", true, {123, {}, kBatchStep}},
      {"123_4.0", true, {123, 4u, 0}},
      {"123.extern", true, {123, {}, kExternStep}},
      {"abc", false, {}},
      {"12_x", false, {}},
      {"12.foo", false, {}},
      {"0", false, {}},
  };
  for (const auto& c : cases) {
    auto r = parseJobSelector(c.text);
    EXPECT_EQ(r.ok(), c.ok) << c.text;
    if (r.ok() && c.ok) {
      EXPECT_EQ(*r, c.want) << c.text;
    }
  }
  EXPECT_EQ(parseJobState("cd"), JobState::kCompleted);
  EXPECT_EQ(parseJobState("OUT_OF_MEMORY"), JobState::kOutOfMemory);
  EXPECT_FALSE(parseJobState("bogus").has_value());
}

// sacct -B / --env-vars: what a job was submitted with, kept when asked (NULL where not).
TEST_F(StoreTest, KeepsScriptsAndEnvironments) {
  AcctBatch batch;
  batch.scripts.push_back({41, std::string("#!/bin/sh\ntrue\n"), std::string("A=1\nB=2\n")});
  batch.scripts.push_back({42, std::string("#!/bin/sh\n"), std::nullopt});
  auto applied = store_->apply(batch);
  ASSERT_TRUE(applied.ok()) << applied.error();
  EXPECT_EQ(*applied, 2u);  // the records written: the two kept scripts
  auto both = store_->jobScript(41);
  ASSERT_TRUE(both.ok()) << both.error();
  ASSERT_TRUE(both->has_value());
  EXPECT_EQ(**both, (JobScript{41, std::string("#!/bin/sh\ntrue\n"), std::string("A=1\nB=2\n")}));
  auto script_only = store_->jobScript(42);
  ASSERT_TRUE(script_only.ok() && script_only->has_value());
  EXPECT_FALSE((*script_only)->environment.has_value());
  auto none = store_->jobScript(43);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace drover::acct
