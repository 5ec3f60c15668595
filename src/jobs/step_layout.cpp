#include "jobs/step_layout.h"

#include <algorithm>
#include <charconv>

#include "drover/hostlist.h"

namespace drover::jobs {
namespace {

struct Distribution {
  std::string name = "block";
  std::uint32_t plane = 0;
};

Result<Distribution> parseDistribution(const std::string& text) {
  // Only the first level (how tasks go to nodes) matters here: "cyclic:block" is cyclic.
  std::string first = text.substr(0, text.find_first_of(":,"));
  Distribution d;
  if (first.empty() || first == "*" || first == "block") return d;
  if (first == "cyclic") {
    d.name = "cyclic";
    return d;
  }
  if (first.rfind("plane=", 0) == 0) {
    std::string_view n = std::string_view(first).substr(6);
    std::uint32_t v = 0;
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec == std::errc() && p == n.data() + n.size() && v > 0) {
      d.name = "plane";
      d.plane = v;
      return d;
    }
  }
  return makeError(kStepBadDistribution);
}

// Tasks per node: `n` spread as evenly as the per-node limits allow, earlier nodes taking the
// remainder (block and cyclic give the same counts; they differ in which ranks go where).
std::vector<std::uint32_t> evenCounts(std::uint32_t n, const std::vector<std::uint32_t>& limit) {
  std::vector<std::uint32_t> counts(limit.size(), 0);
  std::uint32_t left = n;
  bool progress = true;
  while (left > 0 && progress) {
    progress = false;
    for (std::size_t i = 0; i < limit.size() && left > 0; ++i) {
      if (counts[i] < limit[i]) {
        ++counts[i];
        --left;
        progress = true;
      }
    }
  }
  return counts;
}

// The ranks on each node for the distribution.
std::vector<std::vector<std::uint32_t>> assignRanks(const Distribution& d,
                                                    const std::vector<std::uint32_t>& counts) {
  std::vector<std::vector<std::uint32_t>> ranks(counts.size());
  std::uint32_t total = 0;
  for (auto c : counts) total += c;
  if (d.name == "block") {
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
      for (std::uint32_t k = 0; k < counts[i]; ++k) ranks[i].push_back(next++);
    return ranks;
  }
  // cyclic = plane of 1: blocks of `chunk` consecutive ranks dealt round-robin over the nodes
  // that still have room.
  const std::uint32_t chunk = d.name == "plane" ? d.plane : 1;
  std::uint32_t next = 0;
  while (next < total) {
    for (std::size_t i = 0; i < counts.size() && next < total; ++i) {
      for (std::uint32_t k = 0; k < chunk && next < total && ranks[i].size() < counts[i]; ++k) {
        ranks[i].push_back(next++);
      }
    }
  }
  return ranks;
}

// Plane distribution decides the counts itself: blocks of `plane` over the nodes in turn.
std::vector<std::uint32_t> planeCounts(std::uint32_t n, std::uint32_t plane,
                                       const std::vector<std::uint32_t>& limit) {
  std::vector<std::uint32_t> counts(limit.size(), 0);
  std::uint32_t left = n;
  bool progress = true;
  while (left > 0 && progress) {
    progress = false;
    for (std::size_t i = 0; i < limit.size() && left > 0; ++i) {
      std::uint32_t take = std::min({plane, left, limit[i] - counts[i]});
      if (take == 0) continue;
      counts[i] += take;
      left -= take;
      progress = true;
    }
  }
  return counts;
}

// GPUs the step asks for on one node with `tasks` tasks; -1 = no request (the step gets what
// the job has there).
std::int64_t gpusWanted(const v1::StepSpec& spec, std::uint32_t tasks, std::int64_t per_step_share) {
  if (spec.gpus_per_task().count() > 0) return static_cast<std::int64_t>(tasks) * spec.gpus_per_task().count();
  if (spec.gpus_per_node().count() > 0) return spec.gpus_per_node().count();
  for (const auto& g : spec.gres()) {
    if (g.name() == "gpu") return g.count();
  }
  if (spec.gpus().count() > 0) return per_step_share;
  return -1;
}

}  // namespace

std::string StepLayout::layout_name() const {
  if (distribution == "cyclic") return "Cyclic";
  if (distribution == "plane") return "Plane";
  return "Block";
}

std::string stepTres(std::int64_t cpus, std::int64_t mem_mb, std::int64_t nodes,
                     std::int64_t gpus) {
  std::string out = "cpu=" + std::to_string(cpus);
  if (gpus > 0) out += ",gres/gpu=" + std::to_string(gpus);
  if (mem_mb > 0) out += ",mem=" + std::to_string(mem_mb) + "M";
  out += ",node=" + std::to_string(nodes);
  return out;
}

Result<StepLayout> layoutStep(const std::vector<StepAllocNode>& job, const v1::StepSpec& spec,
                              const std::map<std::string, StepNodeUse>& exclusive_use) {
  auto dist = parseDistribution(spec.distribution());
  if (!dist) return makeError(dist.error());
  const std::uint32_t cpt = std::max<std::uint32_t>(1, spec.cpus_per_task());
  const bool exclusive = spec.exclusive() && !spec.overlap();

  // Candidate nodes: the job's, less -x; -w names nodes that must be used.
  std::vector<bool> candidate(job.size(), true);
  std::vector<bool> required(job.size(), false);
  auto indexOf = [&](const std::string& name) -> std::int64_t {
    for (std::size_t i = 0; i < job.size(); ++i)
      if (job[i].name == name) return static_cast<std::int64_t>(i);
    return -1;
  };
  if (!spec.exclude().empty()) {
    auto hosts = hostlist::expand(spec.exclude());
    if (!hosts) return makeError(kStepNodeConfigUnavailable);
    for (const auto& h : *hosts)
      if (auto i = indexOf(h); i >= 0) candidate[static_cast<std::size_t>(i)] = false;
  }
  std::size_t nrequired = 0;
  if (!spec.nodelist().empty()) {
    auto hosts = hostlist::expand(spec.nodelist());
    if (!hosts) return makeError(kStepNodeConfigUnavailable);
    for (const auto& h : *hosts) {
      auto i = indexOf(h);
      if (i < 0 || !candidate[static_cast<std::size_t>(i)]) return makeError(kStepNodeConfigUnavailable);
      if (!required[static_cast<std::size_t>(i)]) ++nrequired;
      required[static_cast<std::size_t>(i)] = true;
    }
  }

  // What each node can take: tasks (by CPUs free to this step) and GPUs.
  std::vector<std::uint32_t> capacity(job.size(), 0);
  std::vector<std::vector<std::uint32_t>> free_gpus(job.size());
  bool limited_by_others = false;
  for (std::size_t i = 0; i < job.size(); ++i) {
    std::uint32_t cpus = job[i].cpus;
    free_gpus[i] = job[i].gpus;
    if (exclusive) {
      if (auto u = exclusive_use.find(job[i].name); u != exclusive_use.end()) {
        cpus = cpus > u->second.cpus ? cpus - u->second.cpus : 0;
        std::erase_if(free_gpus[i], [&](std::uint32_t g) { return u->second.gpus.count(g) > 0; });
        if (u->second.cpus > 0 || !u->second.gpus.empty()) limited_by_others = true;
      }
    }
    capacity[i] = cpus / cpt;
  }
  const char* shortage = limited_by_others ? kStepNodesBusy : kStepNodeConfigUnavailable;

  std::size_t ncandidates = 0;
  for (std::size_t i = 0; i < job.size(); ++i) ncandidates += candidate[i] ? 1 : 0;
  const bool as_job = spec.min_nodes() == 0 && spec.ntasks() == 0 && spec.ntasks_per_node() == 0 &&
                      spec.nodelist().empty() && spec.exclude().empty();

  // How many nodes.
  std::size_t count = 0;
  if (spec.min_nodes() > 0) {
    std::size_t lo = spec.min_nodes();
    std::size_t hi = std::max<std::size_t>(lo, spec.max_nodes());
    if (lo > ncandidates || nrequired > hi) return makeError(kStepNodeConfigUnavailable);
    count = std::min(hi, ncandidates);
  } else if (nrequired > 0) {
    count = nrequired;  // -w without -N: exactly the listed nodes
  } else if (spec.ntasks() > 0 && spec.ntasks_per_node() == 0) {
    count = std::min<std::size_t>(spec.ntasks(), ncandidates);
  } else {
    count = ncandidates;
  }
  // Fewer tasks than nodes: one task per node on as many nodes as tasks (srun warns).
  if (spec.ntasks() > 0 && spec.ntasks() < count) count = spec.ntasks();
  count = std::max(count, nrequired);
  if (count == 0 || (spec.ntasks() > 0 && nrequired > spec.ntasks())) {
    return makeError(kStepNodeConfigUnavailable);
  }

  // Which nodes: the required ones, then others in allocation order, skipping full ones.
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < job.size(); ++i) {
    if (!required[i]) continue;
    if (capacity[i] == 0) return makeError(shortage);
    chosen.push_back(i);
  }
  for (std::size_t i = 0; i < job.size() && chosen.size() < count; ++i) {
    if (required[i] || !candidate[i] || capacity[i] == 0) continue;
    chosen.push_back(i);
  }
  if (chosen.size() < count) return makeError(shortage);
  std::sort(chosen.begin(), chosen.end());

  // How many tasks, and how many on each node.
  std::vector<std::uint32_t> limit;
  for (auto i : chosen) {
    limit.push_back(spec.ntasks_per_node() > 0 ? std::min(capacity[i], spec.ntasks_per_node())
                                               : capacity[i]);
  }
  std::uint32_t ntasks = spec.ntasks();
  std::vector<std::uint32_t> counts;
  if (as_job && dist->name == "block") {
    // The job's own layout, as srun inside a batch job runs SLURM_NTASKS over SLURM_NNODES.
    for (auto i : chosen) counts.push_back(std::max<std::uint32_t>(1, job[i].tasks));
    ntasks = 0;
    for (auto c : counts) ntasks += c;
  } else {
    if (ntasks == 0) {
      if (as_job) {
        for (auto i : chosen) ntasks += std::max<std::uint32_t>(1, job[i].tasks);
      } else if (spec.ntasks_per_node() > 0) {
        ntasks = spec.ntasks_per_node() * static_cast<std::uint32_t>(chosen.size());
      } else {
        ntasks = static_cast<std::uint32_t>(chosen.size());
      }
    }
    std::uint64_t room = 0;
    for (auto l : limit) room += l;
    if (ntasks > room) {
      if (spec.ntasks_per_node() > 0 && ntasks > spec.ntasks_per_node() * chosen.size()) {
        return makeError(kStepTooManyProcessors);
      }
      return makeError(limited_by_others ? kStepNodesBusy : kStepTooManyProcessors);
    }
    counts = dist->name == "plane" ? planeCounts(ntasks, dist->plane, limit) : evenCounts(ntasks, limit);
  }
  auto ranks = assignRanks(*dist, counts);

  // GPUs per node.
  std::vector<std::int64_t> step_share(chosen.size(), -1);
  if (spec.gpus().count() > 0 && spec.gpus_per_task().count() == 0 &&
      spec.gpus_per_node().count() == 0) {
    std::vector<std::uint32_t> gpu_room;
    for (auto i : chosen) gpu_room.push_back(static_cast<std::uint32_t>(free_gpus[i].size()));
    std::uint64_t total = 0;
    for (auto r : gpu_room) total += r;
    if (spec.gpus().count() > total) return makeError(limited_by_others ? kStepNodesBusy : kStepNodeConfigUnavailable);
    auto share = evenCounts(spec.gpus().count(), gpu_room);
    for (std::size_t k = 0; k < chosen.size(); ++k) step_share[k] = share[k];
  }

  StepLayout out;
  out.ntasks = ntasks;
  out.cpus_per_task = cpt;
  out.distribution = dist->name;
  // Without -m, an srun inside an allocation it did not make asks for cyclic where there are no
  // more tasks than nodes (one task per node either way), as the reference's (its tasks'
  // SLURM_DISTRIBUTION and sacct's Layout); its own allocation's steps stay block.
  if (spec.distribution().empty() && spec.in_allocation() && ntasks <= chosen.size()) {
    out.distribution = "cyclic";
  }
  out.plane_size = dist->plane;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const std::size_t i = chosen[k];
    if (counts[k] == 0) continue;  // plane may leave a node empty
    v1::StepNode node;
    node.set_node(job[i].name);
    for (auto r : ranks[k]) node.add_ranks(r);
    node.set_cpus(exclusive ? counts[k] * cpt : job[i].cpus);
    std::int64_t want = gpusWanted(spec, counts[k], step_share[k]);
    if (want < 0) {
      for (auto g : free_gpus[i]) node.add_gpu_indices(g);
    } else {
      if (static_cast<std::size_t>(want) > free_gpus[i].size()) {
        bool busy = exclusive && static_cast<std::size_t>(want) <= job[i].gpus.size();
        return makeError(busy ? kStepNodesBusy : kStepNodeConfigUnavailable);
      }
      for (std::int64_t g = 0; g < want; ++g) node.add_gpu_indices(free_gpus[i][static_cast<std::size_t>(g)]);
    }
    out.nodes.push_back(std::move(node));
    out.job_index.push_back(i);
  }
  return out;
}

}  // namespace drover::jobs
