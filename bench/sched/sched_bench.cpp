// Times full scheduling passes on a synthetic AI cluster: 12,500 nodes x 8 GPUs, 10,000 running
// jobs, 100,000 pending jobs of mixed sizes; then passes after one submission and after one
// completion, and through the stateful Scheduler the controller's sequence (a pass, its starts
// applied, the next submission or completion, a pass), each checked against a full pass, and
// last-ranked submissions (priority 0) after a pass that started nothing.
// Plain timed executable so the numbers and the command go into docs/performance.md.
//   sched_bench [--nodes N] [--pending N] [--running N] [--policy easy|fcfs|conservative]
//               [--horizon SECONDS] [--estimates N] [--full-only 1] [--laid-out PERCENT]
//               [--listed PERCENT] [--prefer PERCENT]
// It also reports the memory the scheduling state holds (malloc bytes in use, mallinfo2).
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>

#include "bench_cluster.h"
#include "sched/cluster_index.h"
#include "sched/incremental.h"
#include "sched/scheduler.h"

using namespace drover::sched;

namespace {

using bench::cpuNow;
double seconds(double start) { return cpuNow() - start; }

// Bytes the allocator has handed out and not taken back (arenas + large mmapped blocks): the
// difference around building a structure is what that structure holds.
double heapMb() {
  struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / (1024.0 * 1024.0);
}

long maxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Job shapes as GPUs per node and node count: many small jobs, whole-node jobs, some large.
struct Shape {
  int nodes, gpusPerNode;
};
Shape randomShape(std::mt19937& rng) {
  int r = std::uniform_int_distribution<int>(0, 99)(rng);
  if (r < 40) return {1, 1};
  if (r < 60) return {1, 2};
  if (r < 70) return {1, 4};
  if (r < 90) return {1, 8};
  return {std::uniform_int_distribution<int>(2, 16)(rng), 8};
}

// --laid-out: this share of the jobs (by id, so the random mix is the same) ask as
// `sbatch -n T --gpus-per-task=1` does, with no -N: their tasks are laid out at start and a job
// that fits no single node walks the nodes (sched/task_layout.h walkNodes).
int laidOutPercent = 0;
// --listed: this share of the jobs ask for two partitions (`-p gpu,spot`; "spot" holds every
// other node); --prefer: this share (a different slice of ids) prefer the feature "nvlink",
// which every fourth node has. Either gives the cluster its second partition and the feature.
int listedPercent = 0, preferPercent = 0;

Job makeJob(std::mt19937& rng, JobId id) {
  Shape s = randomShape(rng);
  Job j;
  j.id = id;
  j.request.partition = "gpu";
  j.request.minNodes = s.nodes;
  j.request.ntasks = s.nodes * s.gpusPerNode;
  j.request.cpusPerTask = 8;
  j.request.gpusPerTask = 1;
  j.request.memPerGpuMb = 100000;
  j.request.timeLimitS = 3600 * std::uniform_int_distribution<int>(1, 24)(rng);
  j.request.submitTime = static_cast<int64_t>(id);
  j.priority = std::uniform_int_distribution<int>(0, 100000)(rng);
  if (static_cast<int>(id % 100) < laidOutPercent) {
    j.request.ntasksGiven = true;
    j.request.minNodes = 0;
  }
  if (static_cast<int>(id % 100) >= 100 - listedPercent) j.request.partitions = {"gpu", "spot"};
  if (static_cast<int>(id * 37 % 100) < preferPercent) j.request.prefer = "nvlink";
  return j;
}

// The partition a start runs in: its own for a job of several, else the only one.
std::string partitionOf(const Start& st) { return st.partition.empty() ? "gpu" : st.partition; }

}  // namespace

int main(int argc, char** argv) {
  int nodes = 12500, pending = 100000, runningJobs = 10000;
  int64_t horizon = 0;
  int estimates = SchedulerParams{}.estimateDepth;
  bool fullOnly = false;  // --full-only 1: stop after the one-shot full pass
  Policy policy = Policy::Easy;
  const char* policyName = "easy";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--pending")) pending = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--running")) runningJobs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--horizon")) horizon = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--estimates")) estimates = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--full-only")) fullOnly = std::atoi(argv[i + 1]) != 0;
    else if (!std::strcmp(argv[i], "--laid-out")) laidOutPercent = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--listed")) listedPercent = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--prefer")) preferPercent = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--policy")) {
      policyName = argv[i + 1];
      policy = !std::strcmp(policyName, "fcfs")           ? Policy::Fcfs
               : !std::strcmp(policyName, "conservative") ? Policy::Conservative
                                                          : Policy::Easy;
    }
  }
  std::mt19937 rng(42);
  long rss0 = maxRssKb();
  const double heap0 = heapMb();
  Snapshot snap;
  Partition part;
  part.name = "gpu";
  snap.partitions.push_back(part);
  const bool mixed = listedPercent > 0 || preferPercent > 0;
  if (mixed) {
    part.name = "spot";
    snap.partitions.push_back(part);
  }
  for (int i = 0; i < nodes; ++i) {
    Node n = bench::h100Node(i, {"gpu"});
    if (mixed && i % 2 == 1) n.partitions.push_back("spot");
    if (mixed && i % 4 == 0) n.features = {"nvlink"};
    snap.nodes.push_back(std::move(n));
  }
  // Fill the cluster in hostlist order with running jobs of the same mix.
  int node = 0, gpuUsed = 0;
  const int64_t now = 1'000'000;
  for (int r = 0; r < runningJobs && node < nodes; ++r) {
    Shape s = randomShape(rng);
    RunningJob job;
    job.id = 10'000'000 + r;
    job.partition = "gpu";
    job.expectedEnd = now + 60 * std::uniform_int_distribution<int>(1, 24 * 60)(rng);
    if (s.gpusPerNode < 8 && gpuUsed + s.gpusPerNode <= 8) {
      NodeAllocation a;
      a.node = snap.nodes[node].name;
      a.cpus = 8 * s.gpusPerNode;
      a.memoryMb = 100000 * s.gpusPerNode;
      for (int g = 0; g < s.gpusPerNode; ++g) a.gpus.push_back(gpuUsed + g);
      gpuUsed += s.gpusPerNode;
      job.allocation.nodes.push_back(a);
    } else {
      if (gpuUsed > 0) {
        ++node;
        gpuUsed = 0;
      }
      if (node + s.nodes > nodes) break;
      for (int k = 0; k < s.nodes; ++k, ++node) {
        NodeAllocation a;
        a.node = snap.nodes[node].name;
        a.cpus = 64;
        a.memoryMb = 800000;
        a.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
        job.allocation.nodes.push_back(a);
      }
    }
    if (gpuUsed == 8) {
      ++node;
      gpuUsed = 0;
    }
    snap.running.push_back(std::move(job));
  }
  for (int p = 0; p < pending; ++p) snap.pending.push_back(makeJob(rng, p + 1));
  long rssSnapshot = maxRssKb();
  const double heapSnapshot = heapMb();

  SchedulerParams params;
  params.policy = policy;
  params.reserveHorizonS = horizon;
  params.estimateDepth = estimates;

  double t0 = cpuNow();
  ClusterIndex index(snap.nodes, snap.partitions);
  double indexS = seconds(t0);
  long rssIndex = maxRssKb();
  const double heapIndex = heapMb();

  t0 = cpuNow();
  Plan plan = schedule(index, snap, params, now);
  double fullS = seconds(t0);
  long rssPass = maxRssKb();
  const double heapPlan = heapMb();
  if (fullOnly) {
    int reservedOnly = 0;
    for (const auto& p : plan.pending) reservedOnly += p.expectedStart.has_value();
    std::printf("policy %s: full pass %.3f s  starts %zu, reservations %d\n", policyName, fullS,
                plan.starts.size(), reservedOnly);
    return 0;
  }
  // The stateful Scheduler gets the same state (a copy, made after the memory figures above).
  const double heapBeforeScheduler = heapMb();
  Scheduler sched(snap.nodes, snap.partitions, params);
  sched.onJobsStarted(snap.running);
  for (const Job& j : snap.pending) sched.onJobSubmitted(j);
  int reserved = 0, estimated = 0;
  for (const auto& p : plan.pending) {
    reserved += p.expectedStart.has_value();
    estimated += p.estimatedStart.has_value();
  }
  // The same events through the stateful Scheduler: its first pass is a full one; then the
  // starts are applied, one job is submitted, more are submitted (the shortcut where they change
  // nobody's outcome), one running job ends (the replay), its starts are applied, one job is
  // submitted, another running job ends.
  std::mt19937 rngSched = rng;
  t0 = cpuNow();
  const Plan& first = sched.pass(now);
  double schedFullS = seconds(t0);
  // What a controller holds between passes: the Scheduler's snapshot, index, last plan, memo.
  const double heapScheduler = heapMb() - heapBeforeScheduler;
  size_t firstStarts = first.starts.size();
  double firstApplyS = 0;
  {
    std::vector<RunningJob> started;
    for (const Start& st : first.starts) started.push_back(RunningJob{st.id, partitionOf(st), st.allocation, st.endTime});
    t0 = cpuNow();
    sched.onJobsStarted(std::move(started));
    firstApplyS = seconds(t0);
  }
  const bool firstStartsKept = sched.counters().startsKept > 0;
  sched.onJobSubmitted(makeJob(rngSched, pending + 1));
  const int fullBeforeSecond = sched.counters().fullPasses;
  t0 = cpuNow();
  size_t secondStarts = sched.pass(now + 1).starts.size();
  double schedSecondS = seconds(t0);
  const bool secondFull = sched.counters().fullPasses > fullBeforeSecond;
  double schedSubmitS = 0;
  size_t submitStarts = 0;
  // Conservative reserves for every job, so each submission is a full pass there: keep it short.
  const int submitRounds = policy == Policy::Conservative ? 3 : 100;
  double shortcutS = 0, shortcutMax = 0;
  const Plan* lastPlan = nullptr;
  int shortcuts = 0;
  for (int k = 0; k < submitRounds; ++k) {
    sched.onJobSubmitted(makeJob(rngSched, pending + 2 + k));
    int before = sched.counters().incrementalPasses;
    t0 = cpuNow();
    const Plan& got = sched.pass(now + 2);
    submitStarts += got.starts.size();
    lastPlan = &got;
    double took = seconds(t0);
    schedSubmitS += took;
    if (sched.counters().incrementalPasses > before) {
      ++shortcuts;
      shortcutS += took;
      shortcutMax = std::max(shortcutMax, took);
    }
  }
  // What the completion changes in the plan, whoever computes it: the lower bound of any exact
  // replay (each moved reservation is at least one search).
  Plan beforeEnd;
  if (lastPlan) beforeEnd = *lastPlan;
  sched.onJobEnded(sched.snapshot().running.front().id);
  const int replaysBefore = sched.counters().completionReplays;
  t0 = cpuNow();
  const Plan& afterEnd = sched.pass(now + 3);
  double schedCompletionS = seconds(t0);
  size_t completionStarts = afterEnd.starts.size();
  const bool replayed = sched.counters().completionReplays > replaysBefore;
  // The replay must give the full pass's plan; checked here at full size too.
  auto equalsFull = [&](const Plan& got, int64_t at) {
    Plan full = schedule(sched.snapshot(), params, at);
    bool same = full.starts.size() == got.starts.size() && full.pending.size() == got.pending.size();
    for (size_t i = 0; same && i < full.starts.size(); ++i) {
      same = full.starts[i].id == got.starts[i].id &&
             full.starts[i].allocation.nodes.size() == got.starts[i].allocation.nodes.size();
      for (size_t k = 0; same && k < full.starts[i].allocation.nodes.size(); ++k) {
        same = full.starts[i].allocation.nodes[k].node == got.starts[i].allocation.nodes[k].node &&
               full.starts[i].allocation.nodes[k].gpus == got.starts[i].allocation.nodes[k].gpus;
      }
    }
    for (size_t i = 0; same && i < full.pending.size(); ++i) {
      const PendingInfo& a = full.pending[i];
      const PendingInfo& b = got.pending[i];
      same = a.id == b.id && a.reason == b.reason && a.expectedStart == b.expectedStart &&
             a.estimatedStart == b.estimatedStart && a.plannedNodes == b.plannedNodes;
    }
    return same && full.stats.jobsConsidered == got.stats.jobsConsidered &&
           full.stats.skippedSameShape == got.stats.skippedSameShape &&
           full.stats.reservationsMade == got.stats.reservationsMade;
  };
  const bool sameAsFull = equalsFull(afterEnd, now + 3);
  int movedReservations = 0, movedInTime = 0, movedEstimates = 0, firstMoved = -1;
  {
    std::unordered_map<JobId, const PendingInfo*> was;
    for (const PendingInfo& p : beforeEnd.pending) was.emplace(p.id, &p);
    for (size_t i = 0; i < afterEnd.pending.size(); ++i) {
      const PendingInfo& p = afterEnd.pending[i];
      auto it = was.find(p.id);
      if (it == was.end()) continue;
      const PendingInfo& o = *it->second;
      if (p.expectedStart != o.expectedStart ||
          (p.expectedStart && p.plannedNodes != o.plannedNodes)) {
        ++movedReservations;
        movedInTime += p.expectedStart != o.expectedStart;
        if (firstMoved < 0) firstMoved = static_cast<int>(i);
      } else if (p.estimatedStart != o.estimatedStart) {
        ++movedEstimates;
      }
    }
  }

  // What the controller does next: it applies the replay's starts exactly as planned
  // (onJobsStarted), then the next event's pass runs. Neither a submission nor another completion
  // should need a full pass for that.
  auto applyStarts = [&](const Plan& p) {
    std::vector<RunningJob> started;
    for (const Start& st : p.starts) started.push_back(RunningJob{st.id, partitionOf(st), st.allocation, st.endTime});
    double t = cpuNow();
    if (!started.empty()) sched.onJobsStarted(std::move(started));
    return seconds(t);
  };
  auto kind = [&](const Scheduler::Counters& before) {
    const Scheduler::Counters& c = sched.counters();
    return c.fullPasses > before.fullPasses               ? "full"
           : c.completionReplays > before.completionReplays ? "replay"
                                                            : "shortcut";
  };
  const int keptBefore = sched.counters().startsKept;
  const double applyReplayS = applyStarts(afterEnd);
  const bool replayStartsKept = sched.counters().startsKept > keptBefore;
  // One timed pass at `at`: its CPU time, what kind of pass it was and whether its plan equals a
  // full pass's; the plan stays readable until the next pass.
  struct TimedPass {
    const Plan* plan;
    double s;
    const char* kind;
    bool same;
    const char* verdict() const { return same ? "equals" : "DIFFERS FROM"; }
  };
  auto timedPass = [&](int64_t at) {
    const Scheduler::Counters before = sched.counters();
    const double t = cpuNow();
    const Plan& got = sched.pass(at);
    TimedPass r{&got, seconds(t), kind(before), false};
    r.same = equalsFull(got, at);
    return r;
  };
  sched.onJobSubmitted(makeJob(rngSched, pending + 2 + submitRounds));
  const TimedPass startSubmit = timedPass(now + 4);
  const size_t startSubmitStarts = startSubmit.plan->starts.size();
  applyStarts(*startSubmit.plan);
  // Another completion: a job that ran before the bench's passes (not one they started).
  sched.onJobEnded(sched.snapshot().running[1].id);
  const TimedPass secondEnd = timedPass(now + 5);
  const size_t secondEndStarts = secondEnd.plan->starts.size();
  // Its starts applied, then a completion straight away.
  applyStarts(*secondEnd.plan);
  sched.onJobEnded(sched.snapshot().running[2].id);
  const TimedPass thirdEnd = timedPass(now + 6);
  const size_t thirdEndStarts = thirdEnd.plan->starts.size();

  // Submissions ranked behind the whole queue (priority 0, the latest ids), the usual case, after
  // a pass that started nothing: under conservative the last plan plus their own start-now
  // checks and reservation searches on the profile the memo keeps (appendLastRanked).
  applyStarts(*thirdEnd.plan);
  int settlePasses = 0;
  for (; settlePasses < 5; ++settlePasses) {
    const Plan& p = sched.pass(now + 7);
    if (p.starts.empty()) break;
    applyStarts(p);
  }
  const size_t keptProfileBytes = sched.keptProfileBytes();
  constexpr int kLastRounds = 20;
  double lastS = 0, lastMax = 0;
  int lastAppended = 0, lastFull = 0;
  size_t lastStarts = 0;
  bool lastSame = true;
  double fullSameStateS = 0;
  for (int k = 0; k < kLastRounds; ++k) {
    Job j = makeJob(rngSched, pending + 100 + k);
    j.priority = 0;
    sched.onJobSubmitted(std::move(j));
    const Scheduler::Counters c0 = sched.counters();
    t0 = cpuNow();
    const Plan& got = sched.pass(now + 8);
    const double took = seconds(t0);
    lastS += took;
    lastMax = std::max(lastMax, took);
    lastStarts += got.starts.size();
    lastAppended += sched.counters().lastRankedAppends > c0.lastRankedAppends;
    lastFull += sched.counters().fullPasses > c0.fullPasses;
    if (k == 0 || k == kLastRounds - 1) {
      t0 = cpuNow();
      lastSame = equalsFull(got, now + 8) && lastSame;
      fullSameStateS = seconds(t0);  // schedule() on the same state, plus the comparison
    }
    applyStarts(got);
  }

  // The controller applies the plan: started jobs become running, then events arrive.
  for (auto& st : plan.starts) {
    snap.running.push_back(RunningJob{st.id, partitionOf(st), std::move(st.allocation), st.endTime});
  }
  std::erase_if(snap.pending, [&](const Job& j) {
    for (const auto& st : plan.starts)
      if (st.id == j.id) return true;
    return false;
  });
  snap.pending.push_back(makeJob(rng, pending + 1));
  t0 = cpuNow();
  Plan afterSubmit = schedule(index, snap, params, now + 1);
  double submitS = seconds(t0);

  snap.running.erase(snap.running.begin());
  t0 = cpuNow();
  Plan afterCompletion = schedule(index, snap, params, now + 2);
  double completionS = seconds(t0);

  std::printf("(times are CPU seconds of one thread)\n");
  std::printf("policy %s: %d nodes x 8 GPUs, %zu running, %d pending (%d%% of them of two "
              "partitions, %d%% preferring a feature)\n",
              policyName, nodes, snap.running.size() - plan.starts.size(), pending, listedPercent,
              preferPercent);
  std::printf("  cluster index build      %8.3f s (once per node/partition change)\n", indexS);
  std::printf("  full pass                %8.3f s  starts %zu, reservations %d, same-shape skips %d\n",
              fullS, plan.starts.size(), reserved, plan.stats.skippedSameShape);
  std::printf("  pass after one submit    %8.3f s  starts %zu\n", submitS, afterSubmit.starts.size());
  std::printf("  pass after one completion%8.3f s  starts %zu\n", completionS,
              afterCompletion.starts.size());
  std::printf("  full pass estimates       %d jobs got an estimated start (--estimates)\n", estimated);
  std::printf("stateful Scheduler (%d full passes, %d shortcut passes):\n",
              sched.counters().fullPasses, sched.counters().incrementalPasses);
  std::printf("  first pass (full)        %8.3f s  starts %zu\n", schedFullS, firstStarts);
  std::printf("  apply its starts         %8.3f s\n", firstApplyS);
  std::printf("  after starts + 1 submit  %8.3f s  starts %zu (%s; the starts %s the memo)\n",
              schedSecondS, secondStarts, secondFull ? "full" : "shortcut",
              firstStarts == 0 ? "(none) left" : firstStartsKept ? "kept" : "dropped");
  std::printf("  per further submission   %8.6f s  starts %zu (mean of %d)\n",
              schedSubmitS / submitRounds, submitStarts, submitRounds);
  std::printf("    of which shortcuts     %8.6f s  mean, %8.6f s max (%d of %d submissions)\n",
              shortcuts ? shortcutS / shortcuts : 0.0, shortcutMax, shortcuts, submitRounds);
  std::printf("  after one completion     %8.3f s  starts %zu (%s; plan %s a full pass's)\n",
              schedCompletionS, completionStarts, replayed ? "replay" : "full",
              sameAsFull ? "equals" : "DIFFERS FROM");
  std::printf("    the completion moved %d reservations (%d in time, the rest to other nodes; "
              "first at queue position %d) and %d estimates\n",
              movedReservations, movedInTime, firstMoved, movedEstimates);
  std::printf("  apply the replay's starts %8.6f s  (%s)\n", applyReplayS,
              replayStartsKept ? "memo kept" : "memo dropped");
  std::printf("  then one submission      %8.6f s  starts %zu (%s; plan %s a full pass's)\n",
              startSubmit.s, startSubmitStarts, startSubmit.kind, startSubmit.verdict());
  std::printf("  then a completion        %8.6f s  starts %zu (%s; plan %s a full pass's)\n",
              secondEnd.s, secondEndStarts, secondEnd.kind, secondEnd.verdict());
  std::printf("  its starts, a completion %8.6f s  starts %zu (%s; plan %s a full pass's)\n",
              thirdEnd.s, thirdEndStarts, thirdEnd.kind, thirdEnd.verdict());
  std::printf("  plans whose applied starts kept the memo: %d\n", sched.counters().startsKept);
  std::printf("  last-ranked submission   %8.6f s  mean, %8.6f s max over %d (%d appended, %d full; "
              "starts %zu; plans %s a full pass's)\n",
              lastS / kLastRounds, lastMax, kLastRounds, lastAppended, lastFull, lastStarts,
              lastSame ? "equal" : "DIFFER FROM");
  std::printf("    a full schedule() on that state %.3f s; profile kept for it %.1f MB "
              "(after %d settling passes)\n",
              fullSameStateS, static_cast<double>(keptProfileBytes) / (1024.0 * 1024.0),
              settlePasses + 1);
  std::printf("  memory: snapshot %ld MB, index %ld MB, pass peak %ld MB (max RSS deltas)\n",
              (rssSnapshot - rss0) / 1024, (rssIndex - rssSnapshot) / 1024,
              (rssPass - rssIndex) / 1024);
  std::printf("  memory held (malloc bytes in use): snapshot %.1f MB, cluster index %.1f MB, "
              "plan %.1f MB;\n    stateful Scheduler after its first pass (own snapshot + index + "
              "plan + memo) %.1f MB\n",
              heapSnapshot - heap0, heapIndex - heapSnapshot, heapPlan - heapIndex, heapScheduler);
  return 0;
}
