// Times sched::planPreemptions (sched/preemption.h) after a full pass on a synthetic AI cluster
// whose nodes all run jobs of a preemptable scavenger partition (tier 1) while jobs of the
// training partition (tier 10) queue: what preemption adds to each of the controller's passes.
// Plain timed executable so the numbers and the command go into docs/performance.md.
//   preempt_bench [--nodes N] [--running N] [--pending N] [--trials N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <unordered_set>

#include "bench_cluster.h"
#include "sched/preemption.h"
#include "sched/scheduler.h"

using namespace drover::sched;

namespace {

using bench::cpuNow;

// GPUs per node and nodes: many one-node jobs, some whole nodes, a few large.
std::pair<int, int> shape(std::mt19937& rng) {
  const int r = std::uniform_int_distribution<int>(0, 99)(rng);
  if (r < 50) return {1, 1 << std::uniform_int_distribution<int>(0, 2)(rng)};
  if (r < 90) return {1, 8};
  return {std::uniform_int_distribution<int>(2, 16)(rng), 8};
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 12500, running = 10000, pending = 10000, trials = PreemptionQuery{}.maxTrials;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--running")) running = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--pending")) pending = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
  }
  std::mt19937 rng(7);
  const int64_t now = 1'000'000;
  Snapshot snap;
  Partition train;
  train.name = "train";
  train.priorityTier = 10;
  Partition scavenger;
  scavenger.name = "scavenger";
  scavenger.priorityTier = 1;
  scavenger.preemptable = true;
  snap.partitions = {train, scavenger};
  for (int i = 0; i < nodes; ++i) snap.nodes.push_back(bench::h100Node(i, {"train", "scavenger"}));
  // Scavenger jobs fill the nodes in order, whole and shared.
  int node = 0, used = 0;
  for (int r = 0; r < running && node < nodes; ++r) {
    auto [count, gpus] = shape(rng);
    if (count > 1 || used + gpus > 8) {
      if (used > 0) ++node;
      used = 0;
    }
    if (node + count > nodes) break;
    RunningJob job;
    job.id = 10'000'000 + r;
    job.partition = "scavenger";
    job.expectedEnd = now + 60 * std::uniform_int_distribution<int>(1, 24 * 60)(rng);
    for (int k = 0; k < count; ++k) {
      NodeAllocation a;
      a.node = snap.nodes[node + k].name;
      a.cpus = 8 * gpus;
      a.memoryMb = 100000 * gpus;
      for (int g = 0; g < gpus; ++g) a.gpus.push_back(used + g);
      job.allocation.nodes.push_back(std::move(a));
    }
    if (count > 1) {
      node += count;
    } else if ((used += gpus) == 8) {
      ++node;
      used = 0;
    }
    snap.running.push_back(std::move(job));
  }
  for (int p = 0; p < pending; ++p) {
    auto [count, gpus] = shape(rng);
    Job j;
    j.id = p + 1;
    j.request.partition = "train";
    j.request.minNodes = count;
    j.request.ntasks = count * gpus;
    j.request.cpusPerTask = 8;
    j.request.gpusPerTask = 1;
    j.request.memPerGpuMb = 100000;
    j.request.timeLimitS = 3600 * std::uniform_int_distribution<int>(1, 24)(rng);
    j.request.submitTime = j.id;
    j.priority = std::uniform_int_distribution<int>(0, 100000)(rng);
    snap.pending.push_back(std::move(j));
  }

  double t0 = cpuNow();
  const Plan plan = schedule(snap, SchedulerParams{}, now);
  const double passS = cpuNow() - t0;
  // The controller's next step: the started jobs run, the rest may preempt.
  std::unordered_set<JobId> started;
  for (const Start& s : plan.starts) {
    started.insert(s.id);
    snap.running.push_back(RunningJob{s.id, "train", s.allocation, s.endTime});
  }
  std::erase_if(snap.pending, [&](const Job& j) { return started.count(j.id) > 0; });
  PreemptionQuery query;
  query.maxTrials = trials;
  for (const PendingInfo& p : plan.pending) {
    if (p.reason == Reason::Resources || p.reason == Reason::Priority) query.blocked.push_back(p.id);
  }
  t0 = cpuNow();
  const auto chosen = planPreemptions(snap, query, SchedulerParams{}, now);
  const double preemptS = cpuNow() - t0;
  std::unordered_set<JobId> preemptors;
  for (const Preemption& p : chosen) preemptors.insert(p.preemptor);
  std::printf("%d nodes, %zu scavenger jobs running, %d training jobs queued (%zu started, %zu "
              "blocked)\n", nodes, snap.running.size() - started.size(), pending, started.size(),
              query.blocked.size());
  std::printf("  full pass                 %.3f s\n", passS);
  std::printf("  planPreemptions           %.3f s  (at most %d trials): %zu jobs preempted for %zu "
              "blocked jobs\n", preemptS, trials, chosen.size(), preemptors.size());
  return 0;
}
