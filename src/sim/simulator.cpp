#include "sim/simulator.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "sched/cluster_index.h"
#include "sched/scheduler.h"

namespace drover::sim {

namespace {

struct Completion {
  int64_t time;
  size_t runningSlot;  // unused for ordering
  sched::JobId id;
  bool operator>(const Completion& o) const { return std::tie(time, id) > std::tie(o.time, o.id); }
};

}  // namespace

SimMetrics computeMetrics(const std::vector<JobRecord>& jobs, int64_t totalProcs) {
  SimMetrics m;
  m.jobs = static_cast<int64_t>(jobs.size());
  if (jobs.empty()) return m;
  int64_t firstSubmit = jobs.front().submit, lastEnd = 0;
  double work = 0, wait = 0, bsld = 0, resp = 0;
  for (const JobRecord& j : jobs) {
    firstSubmit = std::min(firstSubmit, j.submit);
    lastEnd = std::max(lastEnd, j.end);
    int64_t w = j.start - j.submit;
    wait += static_cast<double>(w);
    m.maxWaitS = std::max(m.maxWaitS, w);
    work += static_cast<double>(j.runtime) * static_cast<double>(j.procs);
    bsld += std::max(1.0, static_cast<double>(w + j.runtime) /
                              static_cast<double>(std::max<int64_t>(j.runtime, 10)));
    resp += static_cast<double>(w + j.runtime);
  }
  double n = static_cast<double>(jobs.size());
  m.makespanS = lastEnd - firstSubmit;
  m.utilization = m.makespanS > 0 ? work / (static_cast<double>(totalProcs) *
                                            static_cast<double>(m.makespanS))
                                  : 0;
  m.meanWaitS = wait / n;
  m.meanBoundedSlowdown = bsld / n;
  m.meanResponseS = resp / n;
  return m;
}

Result<SimResult> simulate(const SwfTrace& trace, const SimConfig& config) {
  if (config.nodes <= 0 || config.cpusPerNode <= 0) {
    return makeError("simulator: --nodes and CPUs per node must be positive");
  }
  SimResult result;
  const int64_t machine = int64_t{config.nodes} * config.cpusPerNode;

  sched::Snapshot snap;
  sched::Partition batch;
  batch.name = "batch";
  snap.partitions.push_back(batch);
  for (int i = 0; i < config.nodes; ++i) {
    sched::Node n;
    n.name = "n" + std::to_string(i);
    n.index = i;
    n.cpus = config.cpusPerNode;
    n.partitions = {"batch"};
    snap.nodes.push_back(std::move(n));
  }
  sched::ClusterIndex index(snap.nodes, snap.partitions);
  // Start estimates (squeue --start) never change decisions, and a replay does not show them.
  sched::SchedulerParams params = config.params;
  params.estimateDepth = 0;

  std::vector<const SwfJob*> arrivals;
  for (const SwfJob& j : trace.jobs) {
    if (j.procs > machine) {
      std::string msg = "line " + std::to_string(j.line) + ": job " + std::to_string(j.id) +
                        " asks for " + std::to_string(j.procs) + " processors but the machine has " +
                        std::to_string(machine) + " (" + std::to_string(config.nodes) + " nodes x " +
                        std::to_string(config.cpusPerNode) + ")";
      if (config.strict) return makeError(msg);
      result.problems.push_back(std::move(msg));
      continue;
    }
    arrivals.push_back(&j);
  }
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [](const SwfJob* a, const SwfJob* b) { return a->submit < b->submit; });

  // Jobs get dense ids in arrival order so the queue stays sorted by (submit, id) for free.
  std::vector<JobRecord> records(arrivals.size());
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions;
  std::unordered_map<sched::JobId, size_t> runningPos;
  size_t next = 0;
  std::vector<char> started(arrivals.size(), 0);

  while (next < arrivals.size() || !completions.empty()) {
    int64_t now = INT64_MAX;
    if (next < arrivals.size()) now = arrivals[next]->submit;
    if (!completions.empty()) now = std::min(now, completions.top().time);
    while (!completions.empty() && completions.top().time == now) {
      sched::JobId id = completions.top().id;
      completions.pop();
      size_t pos = runningPos[id];
      runningPos.erase(id);
      if (pos + 1 != snap.running.size()) {
        snap.running[pos] = std::move(snap.running.back());
        runningPos[snap.running[pos].id] = pos;
      }
      snap.running.pop_back();
    }
    while (next < arrivals.size() && arrivals[next]->submit == now) {
      const SwfJob& s = *arrivals[next];
      sched::Job job;
      job.id = next;
      job.request.partition = "batch";
      job.request.ntasks = static_cast<int>(s.procs);
      job.request.timeLimitS = std::max<int64_t>(1, s.requestedTime);
      job.request.submitTime = s.submit;
      snap.pending.push_back(std::move(job));
      JobRecord& r = records[next];
      r.id = s.id;
      r.submit = s.submit;
      r.procs = s.procs;
      r.requestedTime = s.requestedTime;
      r.runtime = std::min(s.runtime, std::max<int64_t>(1, s.requestedTime));
      ++next;
    }
    if (snap.pending.empty()) continue;
    sched::Plan plan = sched::schedule(index, snap, params, now);
    ++result.metrics.passes;
    if (plan.starts.empty()) continue;
    for (sched::Start& st : plan.starts) {
      JobRecord& r = records[st.id];
      r.start = now;
      r.end = now + r.runtime;
      r.nodes = static_cast<int>(st.allocation.nodes.size());
      r.placement.clear();
      for (const sched::NodeAllocation& a : st.allocation.nodes) r.placement.push_back(a.nodeIndex);
      std::sort(r.placement.begin(), r.placement.end());
      started[st.id] = 1;
      completions.push(Completion{r.end, 0, st.id});
      runningPos[st.id] = snap.running.size();
      snap.running.push_back(sched::RunningJob{st.id, "batch", std::move(st.allocation), st.endTime});
    }
    // Backfilled = started although an earlier-queued job is still waiting.
    size_t firstWaiting = SIZE_MAX;
    for (const sched::Job& j : snap.pending) {
      if (!started[j.id]) {
        firstWaiting = j.id;
        break;
      }
    }
    for (const sched::Start& st : plan.starts) {
      if (st.id > firstWaiting) ++result.metrics.backfilled;
    }
    std::erase_if(snap.pending, [&](const sched::Job& j) { return started[j.id] != 0; });
  }
  std::vector<size_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(records[a].start, a) < std::tie(records[b].start, b);
  });
  for (size_t i : order) result.jobs.push_back(records[i]);
  SimMetrics m = computeMetrics(result.jobs, machine);
  m.passes = result.metrics.passes;
  m.backfilled = result.metrics.backfilled;
  result.metrics = m;
  return result;
}

}  // namespace drover::sim
