// Property tests over random workloads: a backfilled job never delays any reservation.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "builders.h"
#include "sched/demand.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

struct Use {
  int64_t start, end;
  Capacity held;
};

std::vector<Node> randomCluster(std::mt19937& rng) {
  std::vector<Node> nodes;
  int n = std::uniform_int_distribution<int>(3, 8)(rng);
  for (int i = 0; i < n; ++i) {
    nodes.push_back(NodeBuilder("n" + std::to_string(i), i).cpus(16).memory(0).gpus(8));
  }
  return nodes;
}

Job randomJob(std::mt19937& rng, JobId id) {
  JobBuilder b(id);
  b.nodes(std::uniform_int_distribution<int>(1, 3)(rng));
  if (std::uniform_int_distribution<int>(0, 6)(rng) == 0) b.nodeRange(1, 4);
  if (std::uniform_int_distribution<int>(0, 4)(rng) == 0) {
    b.exclusive();
  } else {
    b.gpusPerNode(std::uniform_int_distribution<int>(1, 8)(rng));
    b.tasks(1).cpusPerTask(std::uniform_int_distribution<int>(1, 4)(rng));
  }
  b.time(50 * std::uniform_int_distribution<int>(1, 40)(rng));
  b.priority(std::uniform_real_distribution<double>(0, 1000)(rng));
  return b;
}

// Checks that running jobs, the plan's starts and every reservation in the plan fit together on
// every node at every moment.
void expectNoOverlap(const Snapshot& s, const Plan& plan, int64_t now) {
  std::map<std::string, std::vector<Use>> uses;
  std::map<std::string, Capacity> total;
  for (const Node& n : s.nodes) total[n.name] = Capacity{n.cpus, n.memoryMb, (int)n.gpuTypes.size()};
  for (const RunningJob& r : s.running) {
    for (const auto& a : r.allocation.nodes)
      uses[a.node].push_back({now, std::max(r.expectedEnd, now + 1), {a.cpus, 0, (int)a.gpus.size()}});
  }
  for (const Start& st : plan.starts) {
    for (const auto& a : st.allocation.nodes)
      uses[a.node].push_back({now, st.endTime, {a.cpus, 0, (int)a.gpus.size()}});
  }
  for (const PendingInfo& p : plan.pending) {
    if (!p.expectedStart) continue;
    const Job& job = *std::find_if(s.pending.begin(), s.pending.end(),
                                   [&](const Job& j) { return j.id == p.id; });
    Demand d = computeDemand(job.request, 16);
    for (const std::string& node : p.plannedNodes) {
      Capacity need = d.wholeNode ? total[node] : d.perNode;
      uses[node].push_back({*p.expectedStart, *p.expectedStart + job.request.timeLimitS, need});
    }
  }
  for (auto& [node, list] : uses) {
    for (const Use& probe : list) {
      Capacity sum;
      for (const Use& u : list) {
        if (u.start <= probe.start && probe.start < u.end) sum += u.held;
      }
      ASSERT_TRUE(total[node].covers(sum))
          << "node " << node << " over-committed at t=" << probe.start << ": " << sum.cpus
          << " cpus " << sum.gpus << " gpus";
    }
  }
}

TEST(Property, PlansNeverOvercommitAnyReservation) {
  for (Policy policy : {Policy::Easy, Policy::Conservative}) {
    for (int seed = 0; seed < 200; ++seed) {
      std::mt19937 rng(seed);
      Snapshot s;
      s.nodes = randomCluster(rng);
      s.partitions = {partition()};
      // Fill some GPUs with running jobs.
      JobId next = 1000;
      for (const Node& n : s.nodes) {
        int busy = std::uniform_int_distribution<int>(0, 8)(rng);
        if (busy == 0) continue;
        std::vector<int> g(busy);
        std::iota(g.begin(), g.end(), 0);
        s.running.push_back(running(next++, n.name, busy, g, 50 * std::uniform_int_distribution<int>(1, 40)(rng)));
      }
      int jobs = std::uniform_int_distribution<int>(5, 30)(rng);
      for (int j = 1; j <= jobs; ++j) s.pending.push_back(randomJob(rng, j));
      SchedulerParams params;
      params.policy = policy;
      Plan plan = schedule(s, params, 0);
      SCOPED_TRACE("seed " + std::to_string(seed));
      expectNoOverlap(s, plan, 0);
    }
  }
}

// Replays random workloads in virtual time (jobs run exactly their limits, all submitted at
// t=0) and checks that under EASY the top job never starts later than first promised.
TEST(Property, EasyReservationIsNeverDelayed) {
  for (int seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    Snapshot s;
    s.nodes = randomCluster(rng);
    s.partitions = {partition()};
    int jobs = std::uniform_int_distribution<int>(5, 30)(rng);
    for (int j = 1; j <= jobs; ++j) s.pending.push_back(randomJob(rng, j));
    std::map<JobId, int64_t> promised;
    std::map<JobId, int64_t> started;
    int64_t now = 0;
    for (int guard = 0; guard < 1000 && !s.pending.empty(); ++guard) {
      Plan plan = schedule(s, SchedulerParams{}, now);
      for (const PendingInfo& p : plan.pending) {
        if (p.expectedStart && !promised.count(p.id)) promised[p.id] = *p.expectedStart;
      }
      for (const Start& st : plan.starts) {
        started[st.id] = now;
        RunningJob r;
        r.id = st.id;
        r.allocation = st.allocation;
        r.expectedEnd = st.endTime;
        s.running.push_back(r);
        std::erase_if(s.pending, [&](const Job& j) { return j.id == st.id; });
      }
      if (s.running.empty()) break;
      // Advance to the next completion.
      int64_t next = INT64_MAX;
      for (const RunningJob& r : s.running) next = std::min(next, r.expectedEnd);
      now = next;
      std::erase_if(s.running, [&](const RunningJob& r) { return r.expectedEnd <= now; });
    }
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_TRUE(s.pending.empty());
    for (auto [id, t] : promised) {
      ASSERT_TRUE(started.count(id));
      EXPECT_LE(started[id], t) << "job " << id << " promised " << t;
    }
  }
}

}  // namespace
}  // namespace drover::sched
