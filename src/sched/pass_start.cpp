// Starting a pending job now: the nodes it may start on, which of them it takes, and
// what it holds on each (sched/pass.h).
#include "sched/pass.h"

#include <tuple>

namespace drover::sched::detail {

namespace {

// Prefer the smallest run of adjacent free GPUs that holds the request, so pairs and quads
// stay together and large runs stay whole; otherwise the lowest free indices.
std::vector<int> pickGpus(uint64_t free, int count) {
  std::vector<int> out;
  if (count <= 0) return out;
  int bestStart = -1, bestLen = 65;
  for (int i = 0; i < 64;) {
    if (!(free >> i & 1)) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 64 && (free >> j & 1)) ++j;
    int len = j - i;
    if (len >= count && len < bestLen) {
      bestLen = len;
      bestStart = i;
    }
    i = j;
  }
  if (bestStart >= 0) {
    for (int k = 0; k < count; ++k) out.push_back(bestStart + k);
    return out;
  }
  for (int i = 0; i < 64 && static_cast<int>(out.size()) < count; ++i) {
    if (free >> i & 1) out.push_back(i);
  }
  return out;
}

}  // namespace

void Pass::prepare() {
  const int n = index_.nodeCount();
  maxGpus_ = index_.maxGpus();
  freeGpuMask_.resize(n);
  for (int i = 0; i < n; ++i) freeGpuMask_[i] = index_.gpuMask(i, "");
  for (const RunningJob& r : snap_.running) {
    for (const NodeAllocation& a : r.allocation.nodes) {
      int node = a.nodeIndex;
      if (node < 0 || node >= n || snap_.nodes[node].name != a.node) node = index_.node(a.node);
      if (node < 0) continue;
      profile_.addRunning(node, Capacity{a.cpus, a.memoryMb, static_cast<int>(a.gpus.size())},
                          r.expectedEnd);
      for (int g : a.gpus) {
        if (g >= 0 && g < 64) freeGpuMask_[node] &= ~(uint64_t{1} << g);
      }
    }
  }
  prepareReservations();
  buckets_.assign(maxGpus_ + 1, {});
  nodeBucket_.assign(n, -1);
  seen_.assign(n, 0);
  for (int i = 0; i < n; ++i) bucketUpdate(i);
}

void Pass::bucketUpdate(int node) {
  const Capacity& f = profile_.freeNow(node);
  int b = (!snap_.nodes[node].usable || f.cpus <= 0) ? -1 : std::clamp(f.gpus, 0, maxGpus_);
  if (b == nodeBucket_[node]) return;
  nodeBucket_[node] = b;
  if (b >= 0) buckets_[b].push_back(node);
}

int Pass::taskRoom(const JobCtx& ctx, int node, const AvailabilityProfile& profile,
                   int64_t end) const {
  const JobRequest& r = ctx.job->request;
  const Capacity free = profile.minFree(node, now_, end);
  const int typed = ctx.demand.gpuType.empty()
                        ? -1
                        : std::popcount(freeGpuMask_[node] & index_.gpuMask(node, ctx.demand.gpuType));
  auto holds = [&](int tasks) {
    const Capacity need = tasksOn(ctx, tasks, ctx.demand.nodes, node);
    return free.covers(need) && (typed < 0 || typed >= need.gpus);
  };
  if (!holds(1)) return 0;
  int lo = 1, hi = std::max(1, r.ntasks);
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// Picks ctx.demand.nodes of the candidates: required nodes first, then for one node the best fit
// (lowest weight, fewest free GPUs, fewest free CPUs), for several the window in hostlist order
// with the lowest total weight and the smallest span.
std::vector<int> Pass::chooseNodes(const JobCtx& ctx, std::vector<int> cands) const {
  std::vector<int> chosen;
  for (int r : ctx.required) {
    if (std::find(cands.begin(), cands.end(), r) == cands.end()) return {};
    chosen.push_back(r);
  }
  int want = ctx.demand.nodes - static_cast<int>(chosen.size());
  if (want <= 0) return chosen;
  std::erase_if(cands, [&](int c) {
    return std::find(chosen.begin(), chosen.end(), c) != chosen.end();
  });
  if (static_cast<int>(cands.size()) < want) return {};
  if (want == 1) {
    auto key = [&](int i) {
      const Capacity& f = profile_.freeNow(i);
      return std::tuple(snap_.nodes[i].weight, f.gpus, f.cpus, snap_.nodes[i].index);
    };
    chosen.push_back(*std::min_element(cands.begin(), cands.end(),
                                       [&](int a, int b) { return key(a) < key(b); }));
    return chosen;
  }
  std::sort(cands.begin(), cands.end(),
            [&](int a, int b) { return snap_.nodes[a].index < snap_.nodes[b].index; });
  std::vector<int64_t> prefix(cands.size() + 1, 0);
  for (size_t i = 0; i < cands.size(); ++i) prefix[i + 1] = prefix[i] + snap_.nodes[cands[i]].weight;
  size_t best = 0;
  std::pair<int64_t, int> bestKey{INT64_MAX, INT32_MAX};
  for (size_t i = 0; i + want <= cands.size(); ++i) {
    std::pair<int64_t, int> k{prefix[i + want] - prefix[i],
                              snap_.nodes[cands[i + want - 1]].index - snap_.nodes[cands[i]].index};
    if (k < bestKey) {
      bestKey = k;
      best = i;
    }
  }
  chosen.insert(chosen.end(), cands.begin() + best, cands.begin() + best + want);
  return chosen;
}

std::vector<int> Pass::startCandidates(const JobCtx& ctx) {
  std::vector<int> cands;
  const int lowest = ctx.demand.wholeNode ? 0 : startGpus(ctx);
  const bool single = ctx.maxNodes <= 1 && ctx.required.empty();
  ++scan_;
  for (int b = std::min(lowest, maxGpus_ + 1); b <= maxGpus_; ++b) {
    for (int node : buckets_[b]) {
      if (nodeBucket_[node] != b || seen_[node] == scan_) continue;
      seen_[node] = scan_;
      if (startsOn(ctx, node)) cands.push_back(node);
    }
    // Buckets rise in free GPUs, so with equal weights the first bucket that fits is the best.
    if (single && index_.uniformWeight() && !cands.empty()) break;
  }
  return cands;
}

bool Pass::tryStartPreferring(const JobCtx& ctx, Plan& plan) {
  const std::string& prefer = ctx.job->request.prefer;
  if (!prefer.empty()) {
    if (const Constraint* features = constraintFor(prefer)) {
      JobCtx preferring = ctx;
      preferring.constraint = features;
      if (tryStartNow(preferring, plan)) {
        plan.starts.back().preferred = true;
        return true;
      }
    }
  }
  return tryStartNow(ctx, plan);
}

bool Pass::startInListedPartition(const Job& job, const std::vector<char>& blocked, Plan& plan,
                                  JobCtx& ctx, Reason& why) {
  why = Reason::None;
  Reason first = Reason::None;
  std::vector<JobCtx> allowed;
  for (const std::string& name : job.request.partitions) {
    JobCtx in;
    in.job = &job;
    Reason r = staticReason(job, in, name);
    if (r == Reason::None) r = shapeReason(job, in);
    if (r != Reason::None) {
      if (first == Reason::None) first = r;
      continue;
    }
    const bool closed = params_.policy == Policy::Fcfs && blocked[in.partition];
    if (!closed && tryStartPreferring(in, plan)) {
      Start& start = plan.starts.back();
      start.backfill = blocked[in.partition];
      start.partition = name;
      plan.stats.backfilled += start.backfill;
      return true;
    }
    allowed.push_back(std::move(in));
  }
  if (allowed.empty()) {
    why = first;
    return false;
  }
  // It waits in the one "offering earliest initiation" (sbatch(1) -p), the first of them on a
  // tie or when none offers a start.
  size_t best = 0;
  if (allowed.size() > 1) {
    int64_t bestStart = kNever;
    std::vector<int> chosen;
    for (size_t k = 0; k < allowed.size(); ++k) {
      const int64_t t = earliestStart(allowed[k], chosen);
      if (t < bestStart) {
        bestStart = t;
        best = k;
      }
    }
  }
  ctx = std::move(allowed[best]);
  return false;
}

bool Pass::tryStartNow(const JobCtx& ctx, Plan& plan) {
  if (ctx.walked && ctx.walkFewest && ctx.demand.nodes == 1) {
    JobCtx one = ctx;
    one.walked = false;
    return tryStartNow(one, plan) || tryStartWalked(ctx, plan);
  }
  if (ctx.walked) return tryStartWalked(ctx, plan);
  std::vector<int> cands;
  for (int r : ctx.required) {
    if (!startsOn(ctx, r)) return false;
    cands.push_back(r);
  }
  if (static_cast<int>(ctx.required.size()) < ctx.demand.nodes) {
    std::vector<int> more = startCandidates(ctx);
    cands.insert(cands.end(), more.begin(), more.end());
  }
  std::vector<int> chosen;
  if (ctx.maxNodes > ctx.demand.nodes && static_cast<int>(cands.size()) > ctx.demand.nodes) {
    // Every candidate fits for the job's whole run (startsOn asks the profile, reservations
    // included), so taking more of them delays nobody.
    JobCtx wide = ctx;
    wide.demand.nodes = std::min(ctx.maxNodes, static_cast<int>(cands.size()));
    chosen = chooseNodes(wide, std::move(cands));
  } else {
    chosen = chooseNodes(ctx, std::move(cands));
  }
  if (chosen.empty()) return false;
  commitNow(ctx, std::move(chosen), profile_, plan);
  return true;
}

// Through walkNodes, the lightest nodes first (as Slurm fills the lowest weight first), then in
// hostlist order. Any nodes that hold the tasks between them can be laid out in hostlist order
// (blockLayout), so commitNow lays them out afresh.
bool Pass::tryStartWalked(const JobCtx& ctx, Plan& plan) {
  std::vector<int> cands = startCandidates(ctx);
  if (static_cast<int>(cands.size()) < ctx.demand.nodes) return false;
  std::sort(cands.begin(), cands.end(), [&](int a, int b) {
    return std::pair(snap_.nodes[a].weight, snap_.nodes[a].index) <
           std::pair(snap_.nodes[b].weight, snap_.nodes[b].index);
  });
  const int64_t end = ctx.duration >= kNever - now_ ? kNever : now_ + ctx.duration;
  std::vector<int> rooms(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) rooms[i] = taskRoom(ctx, cands[i], profile_, end);
  const JobRequest& r = ctx.job->request;
  std::vector<int> chosen;
  // A -N range takes as many nodes as it can; without -N, the fewest that hold the tasks.
  const int most = ctx.walkFewest
                       ? fewestNodesHolding(r.ntasks, ctx.demand.nodes, ctx.walkMaxNodes, rooms)
                       : ctx.walkMaxNodes;
  if (most == 0) return false;
  for (int at : walkNodes(r.ntasks, std::max(1, r.minNodes), ctx.demand.nodes, most, rooms,
                          !ctx.walkFewest)) {
    chosen.push_back(cands[static_cast<size_t>(at)]);
  }
  if (chosen.empty()) return false;
  commitNow(ctx, std::move(chosen), profile_, plan);
  return true;
}

void Pass::commitNow(const JobCtx& ctx, std::vector<int> chosen, AvailabilityProfile& profile,
                     Plan& plan) {
  Start start;
  start.id = ctx.job->id;
  start.endTime = ctx.duration >= kNever - now_ ? kNever : now_ + ctx.duration;
  std::sort(chosen.begin(), chosen.end(),
            [&](int a, int b) { return snap_.nodes[a].index < snap_.nodes[b].index; });
  const std::vector<int> tasks = layTasks(ctx, chosen, profile, start.endTime);
  for (size_t k = 0; k < chosen.size(); ++k) {
    const int node = chosen[k];
    Capacity need = tasks.empty()
                        ? needOn(ctx, node)
                        : tasksOn(ctx, tasks[k], static_cast<int>(chosen.size()), node);
    NodeAllocation a;
    a.node = snap_.nodes[node].name;
    a.nodeIndex = node;
    a.cpus = need.cpus;
    if (!tasks.empty()) a.tasks = tasks[k];
    // The profile holds the whole node; the allocation records what Slurm would (demand.h).
    a.memoryMb = ctx.demand.wholeNode ? wholeNodeMemoryMb(ctx.job->request, need) : need.memoryMb;
    uint64_t free = freeGpuMask_[node];
    if (!ctx.demand.wholeNode) free &= index_.gpuMask(node, ctx.demand.gpuType);
    a.gpus = pickGpus(free, need.gpus);
    for (int g : a.gpus) freeGpuMask_[node] &= ~(uint64_t{1} << g);
    profile.claim(node, need, now_, start.endTime);
    bucketUpdate(node);
    start.allocation.nodes.push_back(std::move(a));
  }
  plan.starts.push_back(std::move(start));
}

std::vector<int> Pass::layTasks(const JobCtx& ctx, const std::vector<int>& chosen,
                                const AvailabilityProfile& profile, int64_t end) const {
  const JobRequest& r = ctx.job->request;
  const int nodes = static_cast<int>(chosen.size());
  if (!laysOutTasks(r, nodes, ctx.demand.wholeNode)) return {};
  // What stays free on each node until the job's end: claims made for reservations of jobs
  // ahead (and advance reservations) bound a node's share as much as what runs there now.
  std::vector<int> room(chosen.size());
  for (size_t k = 0; k < chosen.size(); ++k) room[k] = taskRoom(ctx, chosen[k], profile, end);
  // Slurm keeps a task for each later node up to the -N minimum the user gave (1 without).
  return blockLayout(r.ntasks, nodes, std::max(1, r.minNodes),
                     [&](int k, int t) { return t <= room[static_cast<size_t>(k)]; });
}

}  // namespace drover::sched::detail
