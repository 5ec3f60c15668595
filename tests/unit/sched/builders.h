#pragma once
// Builders for scheduler inputs, so each test case states only what matters to it.
#include <string>
#include <vector>

#include "sched/types.h"

namespace drover::sched::testing {

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name, int index = 0) {
    n_.name = std::move(name);
    n_.index = index;
    n_.cpus = 64;
    n_.memoryMb = 512000;
    n_.partitions = {"gpu"};
  }
  NodeBuilder& cpus(int c) { n_.cpus = c; return *this; }
  NodeBuilder& memory(int64_t m) { n_.memoryMb = m; return *this; }
  NodeBuilder& gpus(int count, const std::string& type = "h100") {
    n_.gpuTypes.assign(count, type);
    return *this;
  }
  NodeBuilder& features(std::vector<std::string> f) { n_.features = std::move(f); return *this; }
  NodeBuilder& weight(int w) { n_.weight = w; return *this; }
  NodeBuilder& partitions(std::vector<std::string> p) { n_.partitions = std::move(p); return *this; }
  NodeBuilder& down() { n_.usable = false; return *this; }
  Node build() const { return n_; }
  operator Node() const { return n_; }

 private:
  Node n_;
};

class JobBuilder {
 public:
  explicit JobBuilder(JobId id) {
    j_.id = id;
    j_.request.user = "alice";
    j_.request.account = "lab";
    j_.request.partition = "gpu";
    j_.request.timeLimitS = 3600;
    j_.request.submitTime = static_cast<int64_t>(id);
  }
  JobBuilder& nodes(int n) { j_.request.minNodes = n; return *this; }
  JobBuilder& nodeRange(int lo, int hi) {
    j_.request.minNodes = lo;
    j_.request.maxNodes = hi;
    return *this;
  }
  JobBuilder& tasks(int n) { j_.request.ntasks = n; return *this; }
  // -n given on the command line (tasks() alone is the count the controller derived).
  JobBuilder& ntasks(int n) {
    j_.request.ntasks = n;
    j_.request.ntasksGiven = true;
    return *this;
  }
  JobBuilder& tasksPerNode(int n) { j_.request.ntasksPerNode = n; return *this; }
  JobBuilder& cpusPerTask(int n) { j_.request.cpusPerTask = n; return *this; }
  JobBuilder& gpusPerNode(int n, const std::string& type = "") {
    j_.request.gpusPerNode = n;
    j_.request.gpuType = type;
    return *this;
  }
  JobBuilder& gpusPerJob(int n) { j_.request.gpusPerJob = n; return *this; }
  JobBuilder& gpusPerTask(int n) { j_.request.gpusPerTask = n; return *this; }
  JobBuilder& memPerNode(int64_t m) { j_.request.memPerNodeMb = m; return *this; }
  // --mem=0: each node's whole memory.
  JobBuilder& allMemory() { j_.request.allMemory = true; return *this; }
  JobBuilder& memPerCpu(int64_t m) { j_.request.memPerCpuMb = m; return *this; }
  JobBuilder& memPerGpu(int64_t m) { j_.request.memPerGpuMb = m; return *this; }
  JobBuilder& cpusPerGpu(int c) { j_.request.cpusPerGpu = c; return *this; }
  JobBuilder& exclusive() { j_.request.exclusive = true; return *this; }
  JobBuilder& time(int64_t s) { j_.request.timeLimitS = s; return *this; }
  JobBuilder& priority(double p) { j_.priority = p; return *this; }
  JobBuilder& partition(const std::string& p) { j_.request.partition = p; return *this; }
  // Several partitions, in the order the job tries them (as orderPartitions leaves them).
  JobBuilder& partitions(std::vector<std::string> p) {
    j_.request.partition = p.front();
    j_.request.partitions = std::move(p);
    return *this;
  }
  JobBuilder& account(const std::string& a) { j_.request.account = a; return *this; }
  JobBuilder& user(const std::string& u) { j_.request.user = u; return *this; }
  JobBuilder& qos(const std::string& q) { j_.request.qos = q; return *this; }
  JobBuilder& constraint(const std::string& c) { j_.request.constraint = c; return *this; }
  JobBuilder& prefer(const std::string& f) { j_.request.prefer = f; return *this; }
  JobBuilder& require(std::vector<std::string> n) { j_.request.requiredNodes = std::move(n); return *this; }
  JobBuilder& exclude(std::vector<std::string> n) { j_.request.excludedNodes = std::move(n); return *this; }
  JobBuilder& begin(int64_t t) { j_.request.beginTime = t; return *this; }
  JobBuilder& hold(Hold h) { j_.request.hold = h; return *this; }
  JobBuilder& dependency(DependencyState d) { j_.request.dependency = d; return *this; }
  JobBuilder& reservation(const std::string& r) { j_.request.reservation = r; return *this; }
  JobBuilder& submit(int64_t t) { j_.request.submitTime = t; return *this; }
  Job build() const { return j_; }
  operator Job() const { return j_; }

 private:
  Job j_;
};

inline RunningJob running(JobId id, const std::string& node, int cpus, std::vector<int> gpus,
                          int64_t end, int64_t mem = 0) {
  RunningJob r;
  r.id = id;
  r.partition = "gpu";
  r.expectedEnd = end;
  NodeAllocation a;
  a.node = node;
  a.cpus = cpus;
  a.memoryMb = mem;
  a.gpus = std::move(gpus);
  r.allocation.nodes.push_back(std::move(a));
  return r;
}

// n nodes named gpu001.. with 8 H100s and 64 CPUs each, in partition "gpu".
inline std::vector<Node> gpuNodes(int n, int gpus = 8) {
  std::vector<Node> out;
  for (int i = 0; i < n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "gpu%03d", i + 1);
    out.push_back(NodeBuilder(name, i).gpus(gpus));
  }
  return out;
}

inline Partition partition(const std::string& name = "gpu") {
  Partition p;
  p.name = name;
  return p;
}

inline const PendingInfo* pendingOf(const Plan& plan, JobId id) {
  for (const auto& p : plan.pending)
    if (p.id == id) return &p;
  return nullptr;
}
inline const Start* startOf(const Plan& plan, JobId id) {
  for (const auto& s : plan.starts)
    if (s.id == id) return &s;
  return nullptr;
}

}  // namespace drover::sched::testing
