// sreport benchmark: `sreport cluster AccountUtilizationByUser` over a month holding N job
// records (default 1,000,000), the old data path against the new, in one run on one file:
//   old: QueryAccounting returns every job record of the window (the controller's handler,
//        the reply serialized and parsed as the wire would), and the CLI sums allocated
//        TRES-seconds per account and user (the loop sreport had, kept here to measure it);
//   new: QueryUsage, whose SQL clips and sums per key in SQLite and returns per-association
//        totals, serialized and parsed the same way.
// Both run in this process on the same store (no daemon, no socket): the figures are the
// controller's work plus the encoding, which is what the change moves. The two answers are
// checked equal before anything is printed. Prints a markdown table for docs/performance.md.
//
//   sreport_bench [--jobs N] [--reps N] [--db PATH] [--reuse]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acct/sqlite_store.h"
#include "acct/tres_counts.h"
#include "ctld/accounting_query.h"
#include "ctld/acct_wire.h"
#include "ctld/usage_query.h"

using namespace drover;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kMonthStart = 1793491200;   // 2026-11-01T00:00:00Z
constexpr std::int64_t kMonthEnd = kMonthStart + 30 * kDay;
constexpr std::int64_t kNow = kMonthEnd - 3600;    // the month's last hour: some jobs still run

struct Options {
  std::uint64_t jobs = 1'000'000;
  int reps = 3;
  std::string db = "/tmp/drover-sreport-bench.db";
  bool reuse = false;
};

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A month of jobs from 500 users in 40 accounts, submitted evenly, running 10 s to 2 days.
acct::JobRecord makeJob(std::uint64_t id, std::uint64_t total, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  acct::JobRecord j;
  j.job_id = id;
  const auto user = static_cast<std::uint32_t>(500 * std::pow(u(rng), 3));
  j.uid = j.gid = 10000 + user;
  j.user = j.group = "user" + std::to_string(user);
  j.account = "acct" + std::to_string(user % 40);
  j.partition = u(rng) < 0.8 ? "gpu" : "debug";
  j.qos = "normal";
  j.cluster = "drover";
  j.name = "train";
  j.submit = j.eligible = kMonthStart + static_cast<std::int64_t>((30 * kDay) * id / (total + 1));
  j.ncpus = j.req_cpus = 1u << (rng() % 6);
  j.nnodes = j.req_nodes = 1;
  j.req_mem_mb = 4000ull * j.ncpus;
  j.node_list = "gpu" + std::to_string(100 + rng() % 800);
  j.req_tres = j.alloc_tres = "billing=" + std::to_string(j.ncpus) + ",cpu=" + std::to_string(j.ncpus) +
                              ",gres/gpu=" + std::to_string(1 + rng() % 8) + ",mem=" +
                              std::to_string(j.req_mem_mb) + "M,node=1";
  j.work_dir = "/home/" + j.user;
  j.submit_line = "sbatch --wrap=train.py";
  j.time_limit_min = 2 * 24 * 60;
  j.start = j.submit + static_cast<std::int64_t>(std::exp(u(rng) * std::log(3600.0)));
  j.end = j.start + static_cast<std::int64_t>(std::exp(std::log(10.0) + u(rng) * (std::log(2.0 * kDay) - std::log(10.0))));
  j.state = acct::JobState::kCompleted;
  if (j.start > kNow) {
    j.state = acct::JobState::kPending;
    j.start = j.end = 0;
    j.node_list.clear();
  } else if (j.end > kNow) {
    j.state = acct::JobState::kRunning;
    j.end = 0;
  }
  return j;
}

using Sums = std::map<std::pair<std::string, std::string>, std::map<std::string, double>>;

// The old sreport: what its CLI did with the records (a job's run clipped to the window, times
// each allocated TRES), as src/cli/sreport_usage.cpp had it before QueryUsage.
Sums clientSums(const v1::QueryAccountingReply& reply, std::int64_t start, std::int64_t end, std::int64_t now) {
  Sums out;
  for (const auto& w : reply.jobs()) {
    const acct::JobRecord job = ctld::fromWire(w).job;
    if (job.start <= 0) continue;
    const std::int64_t to = std::max(job.start, job.end > 0 ? job.end : now);
    const std::int64_t secs = std::min(to, end) - std::max(job.start, start);
    if (secs <= 0) continue;
    auto& row = out[{job.account, job.user}];
    for (const auto& [name, count] : acct::allocatedCounts(job.alloc_tres, job.ncpus))
      row[name] += count * static_cast<double>(secs);
    row["cpu"] += 0;
  }
  return out;
}

Sums serverSums(const v1::QueryUsageReply& reply) {
  Sums out;
  for (const auto& t : reply.totals()) out[{t.account(), t.user()}] = {t.allocated().begin(), t.allocated().end()};
  return out;
}

bool same(const Sums& a, const Sums& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, row] : a) {
    auto it = b.find(key);
    if (it == b.end() || it->second.size() != row.size()) return false;
    for (const auto& [name, v] : row) {
      auto o = it->second.find(name);
      if (o == it->second.end() || std::fabs(o->second - v) > 1e-9 * std::max(1.0, std::fabs(v))) return false;
    }
  }
  return true;
}

struct Timed {
  double median_ms = 0, max_ms = 0;
  std::size_t bytes = 0, groups = 0;
  Sums sums;
};

template <typename Fn>
Timed timeIt(int reps, Fn&& once) {
  Timed t;
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    once(t);
    ms.push_back(msSince(start));
  }
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  t.max_ms = ms.back();
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--jobs") o.jobs = std::stoull(next());
    else if (a == "--reps") o.reps = std::max(1, std::stoi(next()));
    else if (a == "--db") o.db = next();
    else if (a == "--reuse") o.reuse = true;
    else {
      std::fprintf(stderr, "usage: sreport_bench [--jobs N] [--reps N] [--db PATH] [--reuse]\n");
      return 2;
    }
  }
  std::printf("jobs=%llu reps=%d db=%s\n", static_cast<unsigned long long>(o.jobs), o.reps, o.db.c_str());
  if (!o.reuse) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(o.db + suffix);
    auto store = acct::SqliteAccountingStore::open(o.db);
    if (!store.ok()) {
      std::fprintf(stderr, "%s\n", store.error().c_str());
      return 1;
    }
    std::mt19937_64 rng(42);
    auto t = Clock::now();
    acct::AcctBatch batch;
    for (std::uint64_t id = 1; id <= o.jobs; ++id) {
      batch.jobs.push_back(makeJob(id, o.jobs, rng));
      if (batch.jobs.size() >= 1000 || id == o.jobs) {
        if (auto r = (*store)->apply(batch); !r.ok()) {
          std::fprintf(stderr, "%s\n", r.error().c_str());
          return 1;
        }
        batch = {};
      }
    }
    std::printf("filled %llu jobs in %.1f s\n", static_cast<unsigned long long>(o.jobs), msSince(t) / 1000);
  }
  auto opened = acct::SqliteAccountingStore::open(o.db);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.error().c_str());
    return 1;
  }
  auto& store = **opened;
  const rpc::Caller root{};

  // What sreport sends: the month (start=2026-11-01 end=2026-12-01), every user.
  v1::QueryAccountingRequest old_request;
  old_request.set_window_start(kMonthStart);
  old_request.set_window_end(kMonthEnd - 1);
  old_request.set_include_steps(false);
  old_request.set_duplicates(true);
  old_request.set_all_users(true);
  const Timed old_path = timeIt(o.reps, [&](Timed& t) {
    auto reply = ctld::queryAccounting(store, root, old_request, "drover");
    if (!reply.ok()) {
      std::fprintf(stderr, "QueryAccounting: %s\n", reply.error().c_str());
      std::exit(1);
    }
    const std::string wire = reply->SerializeAsString();
    v1::QueryAccountingReply parsed;
    if (!parsed.ParseFromString(wire)) std::exit(3);
    t.bytes = wire.size();
    t.groups = static_cast<std::size_t>(parsed.jobs_size());
    t.sums = clientSums(parsed, kMonthStart, kMonthEnd, kNow);
  });

  v1::QueryUsageRequest new_request;
  *new_request.mutable_filter() = old_request;
  new_request.set_start(kMonthStart);
  new_request.set_end(kMonthEnd);
  new_request.set_now(kNow);
  new_request.set_grouping(v1::USAGE_BY_ASSOCIATION);
  const Timed new_path = timeIt(o.reps, [&](Timed& t) {
    auto reply = ctld::queryUsage(store, root, new_request, "drover", kNow);
    if (!reply.ok()) {
      std::fprintf(stderr, "QueryUsage: %s\n", reply.error().c_str());
      std::exit(1);
    }
    const std::string wire = reply->SerializeAsString();
    v1::QueryUsageReply parsed;
    if (!parsed.ParseFromString(wire)) std::exit(3);
    t.bytes = wire.size();
    t.groups = static_cast<std::size_t>(parsed.totals_size());
    t.sums = serverSums(parsed);
  });
  if (!same(old_path.sums, new_path.sums)) {
    std::fprintf(stderr, "the two paths disagree (%zu vs %zu associations)\n", old_path.sums.size(),
                 new_path.sums.size());
    return 4;
  }
  auto plan = store.explainUsage(ctld::accountingFilterFor(root, old_request),
                                 acct::UsageWindow{kMonthStart, kMonthEnd, kNow});
  std::printf("\nQueryUsage plan:\n%s", plan.ok() ? plan->c_str() : plan.error().c_str());
  std::printf("\n| path | reply | reply bytes | median ms | max ms |\n|---|---:|---:|---:|---:|\n");
  std::printf("| old: QueryAccounting + client sums | %zu jobs | %zu | %.0f | %.0f |\n", old_path.groups,
              old_path.bytes, old_path.median_ms, old_path.max_ms);
  std::printf("| new: QueryUsage | %zu associations | %zu | %.0f | %.0f |\n", new_path.groups, new_path.bytes,
              new_path.median_ms, new_path.max_ms);
  std::printf("\nnew/old time: %.3f (old %.1fx slower); bytes: %.5f\n", new_path.median_ms / old_path.median_ms,
              old_path.median_ms / new_path.median_ms,
              static_cast<double>(new_path.bytes) / static_cast<double>(old_path.bytes));
  return 0;
}
