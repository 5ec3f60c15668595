#pragma once
// The state of Slurm's reference cluster when the goldens in golden/ were captured
// (slurm-reference/README.md): node01..node04, 2 sockets x 8 cores, 64 GiB, gpu:8 each;
// partitions gpu (default, all nodes, 1 day) and debug (node[01-02], 30 min); node01 runs a
// 3-CPU job, node02..04 are full. Values we cannot derive (load, boot time) are set to what the
// goldens show, so the formatters can be compared byte for byte.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "drover/v1/types.pb.h"

namespace drover::cli::testing {

inline constexpr std::int64_t kCaptureTime = 1796041745;  // 2026-11-30T12:29:05Z

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name) {
    n_.set_name(std::move(name));
    n_.set_address("127.0.0.1");
    n_.set_hostname("vm");
    n_.set_state(v1::NODE_IDLE);
    auto* c = n_.mutable_configured();
    c->set_cpus(16);
    c->set_sockets(2);
    c->set_cores_per_socket(8);
    c->set_threads_per_core(1);
    c->set_real_memory_mb(65536);
    for (unsigned i = 0; i < 8; ++i) c->add_gpus()->set_index(i);
    *n_.mutable_reported() = *c;
    n_.set_gres("gpu:8");
    n_.set_weight(1);
    n_.set_version("22.05.8");
    n_.set_os("Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0");
    n_.set_arch("x86_64");
    n_.set_cpu_load(6.65);
    n_.set_free_memory_mb(23494);
    n_.set_boot_time(1796039133);
    n_.set_agent_start_time(1796041714);
    n_.set_last_busy_time(1796041720);
  }
  NodeBuilder& port(std::uint32_t p) { n_.set_port(p); return *this; }
  NodeBuilder& state(v1::NodeBaseState s) { n_.set_state(s); return *this; }
  NodeBuilder& alloc(std::uint32_t cpus, std::uint64_t mem, std::uint32_t gpus) {
    n_.set_alloc_cpus(cpus);
    n_.set_alloc_memory_mb(mem);
    n_.set_alloc_gpus(gpus);
    return *this;
  }
  NodeBuilder& partitions(std::vector<std::string> parts) {
    for (auto& p : parts) n_.add_partitions(std::move(p));
    return *this;
  }
  NodeBuilder& freeMem(std::uint64_t mb) { n_.set_free_memory_mb(mb); return *this; }
  NodeBuilder& lastBusy(std::int64_t t) { n_.set_last_busy_time(t); return *this; }
  NodeBuilder& drain(std::string reason) {
    n_.set_drain(true);
    n_.set_reason(std::move(reason));
    n_.set_reason_user("root");
    n_.set_reason_time(kCaptureTime);
    return *this;
  }
  NodeBuilder& notResponding() { n_.set_not_responding(true); return *this; }
  v1::NodeInfo build() const { return n_; }

 private:
  v1::NodeInfo n_;
};

inline std::vector<v1::NodeInfo> referenceNodes() {
  return {
      NodeBuilder("node01").port(6831).state(v1::NODE_MIXED).alloc(3, 12000, 0).partitions({"gpu", "debug"}).build(),
      NodeBuilder("node02").port(6832).state(v1::NODE_ALLOCATED).alloc(16, 64000, 8).partitions({"gpu", "debug"})
          .lastBusy(1796041721).build(),
      NodeBuilder("node03").port(6833).state(v1::NODE_ALLOCATED).alloc(16, 64000, 8).partitions({"gpu"}).build(),
      NodeBuilder("node04").port(6834).state(v1::NODE_ALLOCATED).alloc(16, 64000, 8).partitions({"gpu"})
          .freeMem(23493).build(),
  };
}

inline v1::PartitionInfo partition(std::string name, std::string nodes, bool is_default, std::int64_t max_min,
                                   std::int64_t default_min, std::uint32_t job_factor, std::uint32_t node_count) {
  v1::PartitionInfo p;
  p.set_name(std::move(name));
  p.set_nodes(std::move(nodes));
  p.set_is_default(is_default);
  p.set_state("UP");
  p.set_max_time_min(max_min);
  p.set_default_time_min(default_min);
  p.set_max_nodes(-1);
  p.set_priority_tier(1);
  p.set_priority_job_factor(job_factor);
  p.set_total_nodes(node_count);
  p.set_total_cpus(16 * node_count);
  p.set_total_memory_mb(65536ULL * node_count);
  p.set_total_gpus(8 * node_count);
  return p;
}

inline std::vector<v1::PartitionInfo> referencePartitions() {
  return {partition("gpu", "node[01-04]", true, 1440, 60, 1, 4),
          partition("debug", "node[01-02]", false, 30, 10, 10, 2)};
}

// The "# [stdout]" section of a golden capture, byte for byte.
inline std::string goldenStdout(const std::string& file) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string open = "# [stdout]\n", close = "# [stderr]\n";
  const auto a = text.find(open);
  const auto b = text.rfind(close);
  if (a == std::string::npos || b == std::string::npos || b < a) return "<golden " + file + " unreadable>";
  return text.substr(a + open.size(), b - a - open.size());
}

}  // namespace drover::cli::testing
