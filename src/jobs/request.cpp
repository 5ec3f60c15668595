#include "jobs/request.h"

#include <algorithm>

#include "common/comma_list.h"
#include "drover/hostlist.h"
#include "jobspec/filename_pattern.h"

namespace drover::jobs {

namespace {

sched::PartitionState toSched(config::PartitionState s) {
  switch (s) {
    case config::PartitionState::kDown: return sched::PartitionState::Down;
    case config::PartitionState::kDrain: return sched::PartitionState::Drain;
    case config::PartitionState::kInactive: return sched::PartitionState::Inactive;
    case config::PartitionState::kUp: break;
  }
  return sched::PartitionState::Up;
}

std::vector<std::string> expandList(const std::string& expr) {
  if (expr.empty()) return {};
  auto hosts = hostlist::expand(expr);
  return hosts ? *hosts : std::vector<std::string>{expr};
}

}  // namespace

std::vector<sched::Partition> schedPartitions(const config::ClusterConfig& config) {
  std::vector<sched::Partition> out;
  for (const auto& p : config.partitions) {
    sched::Partition sp;
    sp.name = p.name;
    sp.state = toSched(p.state);
    sp.maxTimeS = p.max_time_min == config::kUnlimited ? 0 : p.max_time_min * 60;
    sp.defaultTimeS = p.default_time_min == config::kUnlimited ? 0 : p.default_time_min * 60;
    sp.maxNodes = p.max_nodes == config::kUnlimited ? 0 : static_cast<int>(p.max_nodes);
    sp.priorityTier = static_cast<int>(p.priority_tier);
    sp.priorityJobFactor = static_cast<int>(p.priority_job_factor);
    sp.exclusive = p.exclusive;
    sp.allowedAccounts = p.allow_accounts;
    sp.preemptable = config::effectivePreemptMode(config.scheduler, p) != config::PreemptMode::kOff;
    out.push_back(std::move(sp));
  }
  return out;
}

std::vector<sched::Node> schedNodes(const config::ClusterConfig& config) {
  std::vector<sched::Node> out;
  int index = 0;
  for (const auto& n : config.nodes) {
    sched::Node sn;
    sn.name = n.name;
    sn.index = index++;
    sn.cpus = static_cast<int>(n.cpus);
    sn.memoryMb = static_cast<std::int64_t>(n.real_memory_mb);
    sn.gpuTypes.assign(n.gpus.count, n.gpus.type);
    sn.features = n.features;
    sn.weight = static_cast<int>(n.weight);
    for (const auto& p : config.partitions) {
      if (std::find(p.nodes.begin(), p.nodes.end(), n.name) != p.nodes.end()) {
        sn.partitions.push_back(p.name);
      }
    }
    out.push_back(std::move(sn));
  }
  return out;
}

namespace {

// The job's least node count: -N's, else as many distinct hosts as -w names (Slurm's
// `-w node[1-2]` is a two-node job from its submission on), else 0 (not given).
std::uint32_t minNodesOf(const v1::JobSpec& spec, std::vector<std::string> required) {
  if (spec.min_nodes() > 0) return spec.min_nodes();
  std::sort(required.begin(), required.end());
  return static_cast<std::uint32_t>(std::unique(required.begin(), required.end()) - required.begin());
}

// Tasks when -n was not given: one per node (or --ntasks-per-node per node), as Slurm.
std::uint32_t tasksOf(const v1::JobSpec& spec, std::uint32_t min_nodes) {
  if (spec.ntasks() > 0) return spec.ntasks();
  const std::uint32_t nodes = std::max<std::uint32_t>(1, min_nodes);
  return spec.ntasks_per_node() > 0 ? spec.ntasks_per_node() * nodes : nodes;
}

}  // namespace

std::string partitionList(std::string_view text) {
  std::vector<std::string> names;
  for (std::string& name : splitCommas(text)) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return joinCommas(names);
}

bool takesNewJobs(const config::PartitionConfig& p) {
  return p.state != config::PartitionState::kDrain && p.state != config::PartitionState::kInactive;
}

sched::JobRequest buildRequest(const v1::JobInfo& info) {
  const v1::JobSpec& s = info.spec();
  sched::JobRequest r;
  r.user = info.user();
  r.account = info.account();
  r.partition = info.partition();
  // A pending job of several partitions holds their list (`gpu,debug`, as squeue shows it);
  // the controller orders them (sched::orderPartitions) once it knows the partitions.
  if (r.partition.find(',') != std::string::npos) {
    r.partitions = splitCommas(r.partition);
    if (!r.partitions.empty()) r.partition = r.partitions.front();
    if (r.partitions.size() < 2) r.partitions.clear();
  }
  r.requiredNodes = expandList(s.nodelist());
  const std::uint32_t min_nodes = minNodesOf(s, r.requiredNodes);
  r.minNodes = static_cast<int>(min_nodes);
  r.maxNodes = static_cast<int>(s.max_nodes());
  r.ntasks = static_cast<int>(tasksOf(s, min_nodes));
  r.ntasksPerNode = static_cast<int>(s.ntasks_per_node());
  r.ntasksGiven = s.ntasks() > 0;
  r.cpusPerTask = s.cpus_per_task() > 0 ? static_cast<int>(s.cpus_per_task()) : 1;
  r.cpusPerGpu = static_cast<int>(s.cpus_per_gpu());
  if (s.mem_set()) {
    r.memPerNodeMb = static_cast<std::int64_t>(s.mem_per_node_mb());
    r.allMemory = r.memPerNodeMb == 0;
  }
  r.memPerCpuMb = static_cast<std::int64_t>(s.mem_per_cpu_mb());
  r.memPerGpuMb = static_cast<std::int64_t>(s.mem_per_gpu_mb());
  for (const auto& g : s.gres()) {
    if (g.name() == "gpu") {
      r.gpusPerNode = static_cast<int>(g.count());
      r.gpuType = g.type();
    }
  }
  if (s.gpus().count() > 0) {
    r.gpusPerJob = static_cast<int>(s.gpus().count());
    r.gpuType = s.gpus().type();
  }
  if (s.gpus_per_node().count() > 0) {
    r.gpusPerNode = static_cast<int>(s.gpus_per_node().count());
    r.gpuType = s.gpus_per_node().type();
  }
  if (s.gpus_per_task().count() > 0) {
    r.gpusPerTask = static_cast<int>(s.gpus_per_task().count());
    r.gpuType = s.gpus_per_task().type();
  }
  r.exclusive = s.exclusive();
  r.excludedNodes = expandList(s.exclude());
  r.constraint = s.constraint();
  r.prefer = s.prefer();
  // Resolved at submission: minutes, or unlimited (a year, the scheduler's horizon).
  r.timeLimitS = info.time_limit_min() < 0 ? 365LL * 24 * 3600 : info.time_limit_min() * 60;
  r.submitTime = info.submit_time();
  r.rankId = info.array_job_id();  // an array's tasks rank as their array (0: not an array)
  r.beginTime = s.begin_time();
  r.hold = info.held_admin()  ? sched::Hold::Admin
           : info.held_user() ? sched::Hold::User
                              : sched::Hold::None;
  r.reservation = s.reservation();
  r.nice = info.nice();
  r.qos = info.qos();
  return r;
}

std::int64_t requestedMemPerNodeMb(const sched::JobRequest& r, int cpusPerNode, int gpusPerNode) {
  if (r.memPerNodeMb > 0) return r.memPerNodeMb;
  if (r.memPerCpuMb > 0) return r.memPerCpuMb * cpusPerNode;
  if (r.memPerGpuMb > 0) return r.memPerGpuMb * gpusPerNode;
  return 0;
}

std::int64_t requestedGpus(const sched::JobRequest& r, int nodes) {
  if (r.gpusPerJob > 0) return r.gpusPerJob;
  if (r.gpusPerNode > 0) return static_cast<std::int64_t>(r.gpusPerNode) * nodes;
  if (r.gpusPerTask > 0) return static_cast<std::int64_t>(r.gpusPerTask) * r.ntasks;
  return 0;
}

std::int64_t requestedCpus(const sched::JobRequest& r, int nodes) {
  std::int64_t for_tasks = static_cast<std::int64_t>(r.ntasks) * std::max(1, r.cpusPerTask);
  return std::max(for_tasks, r.cpusPerGpu * requestedGpus(r, nodes));
}

std::string tresString(std::int64_t cpus, std::int64_t mem_mb, std::int64_t nodes,
                       std::int64_t gpus) {
  std::string out = "billing=" + std::to_string(cpus) + ",cpu=" + std::to_string(cpus);
  if (gpus > 0) out += ",gres/gpu=" + std::to_string(gpus);
  if (mem_mb > 0) out += ",mem=" + std::to_string(mem_mb) + "M";
  out += ",node=" + std::to_string(nodes);
  return out;
}

std::string reqTres(const sched::JobRequest& r, std::int64_t nodeMemoryMb) {
  std::int64_t nodes = std::max<std::int64_t>(1, r.minNodes);
  std::int64_t cpus = requestedCpus(r, static_cast<int>(nodes));
  std::int64_t gpus = requestedGpus(r, static_cast<int>(nodes));
  std::int64_t mem = 0;
  if (r.allMemory) mem = nodeMemoryMb * nodes;
  else if (r.memPerNodeMb > 0) mem = r.memPerNodeMb * nodes;
  else if (r.memPerCpuMb > 0) mem = r.memPerCpuMb * cpus;
  else if (r.memPerGpuMb > 0) mem = r.memPerGpuMb * gpus;
  return tresString(cpus, mem, nodes, gpus);
}

std::string allocTres(const v1::JobInfo& info) {
  std::int64_t cpus = 0, mem = 0, gpus = 0;
  for (const auto& a : info.allocation()) {
    cpus += a.cpus();
    mem += static_cast<std::int64_t>(a.memory_mb());
    gpus += a.gpu_indices_size();
  }
  return tresString(cpus, mem, info.allocation_size(), gpus);
}

std::string expandJobPath(const std::string& pattern, const v1::JobInfo& info,
                          const std::string& node) {
  jobspec::PatternContext ctx;
  ctx.job_id = static_cast<std::uint32_t>(info.job_id());
  if (info.array_job_id() != 0) {
    ctx.array_job_id = static_cast<std::uint32_t>(info.array_job_id());
    ctx.array_task_id = static_cast<std::uint32_t>(info.array_task_id());
  }
  ctx.user = info.user();
  ctx.job_name = info.name();
  ctx.node = node;
  std::string path = jobspec::expandFilenamePattern(pattern, ctx);
  if (path.empty() || path.front() == '/') return path;
  std::string dir = info.work_dir();
  if (dir.empty()) return path;
  if (dir.back() != '/') dir += '/';
  return dir + path;
}

void expandJobPaths(v1::JobInfo& info, const std::string& node) {
  const v1::JobSpec& s = info.spec();
  std::string out = s.std_out();
  if (out.empty()) out = info.array_job_id() != 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
  std::string err = s.std_err().empty() ? out : s.std_err();
  info.set_std_out(expandJobPath(out, info, node));
  info.set_std_err(expandJobPath(err, info, node));
  info.set_std_in(s.std_in().empty() ? "/dev/null" : expandJobPath(s.std_in(), info, node));
}

}  // namespace drover::jobs
