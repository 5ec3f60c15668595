#include "cli/node_values.h"

#include <cstdio>

#include "drover/time_spec.h"
#include "drover/slurm_time_format.h"

namespace drover::cli {

std::uint32_t configuredGpus(const v1::NodeInfo& node) {
  if (node.configured().gpus_size() > 0) return static_cast<std::uint32_t>(node.configured().gpus_size());
  // gres like "gpu:8" or "gpu:h100:8": the count is the last field.
  const std::string& g = node.gres();
  if (g.rfind("gpu", 0) != 0) return 0;
  const auto colon = g.rfind(':');
  if (colon == std::string::npos) return 1;
  std::uint32_t n = 0;
  for (std::size_t i = colon + 1; i < g.size() && g[i] >= '0' && g[i] <= '9'; ++i) n = n * 10 + (g[i] - '0');
  return n;
}

std::string nodeCfgTres(const v1::NodeInfo& node) {
  const auto& c = node.configured();
  std::string out = "cpu=" + std::to_string(c.cpus()) + ",mem=" + formatTresMemory(c.real_memory_mb()) +
                    ",billing=" + std::to_string(c.cpus());
  if (const auto gpus = configuredGpus(node); gpus > 0) out += ",gres/gpu=" + std::to_string(gpus);
  return out;
}

std::string nodeAllocTres(const v1::NodeInfo& node) {
  std::string out;
  auto add = [&out](const std::string& item) { out += (out.empty() ? "" : ",") + item; };
  if (node.alloc_cpus() > 0) add("cpu=" + std::to_string(node.alloc_cpus()));
  if (node.alloc_memory_mb() > 0) add("mem=" + formatTresMemory(node.alloc_memory_mb()));
  if (node.alloc_gpus() > 0) add("gres/gpu=" + std::to_string(node.alloc_gpus()));
  return out;
}

std::string partitionTres(const v1::PartitionInfo& part) {
  std::string out = "cpu=" + std::to_string(part.total_cpus()) +
                    ",mem=" + formatTresMemory(part.total_memory_mb()) +
                    ",node=" + std::to_string(part.total_nodes()) +
                    ",billing=" + std::to_string(part.total_cpus());
  if (part.total_gpus() > 0) out += ",gres/gpu=" + std::to_string(part.total_gpus());
  return out;
}

std::string gresUsedPlain(const v1::NodeInfo& node) {
  if (node.gres().empty()) return "";
  std::string used = node.gres_used();
  if (used.empty()) {
    // Same name (and type) as the configured gres, with the allocated count.
    const std::string& g = node.gres();
    const auto colon = g.rfind(':');
    std::string prefix = colon == std::string::npos ? g : g.substr(0, colon);
    return prefix + ":" + std::to_string(node.alloc_gpus());
  }
  // Drop "(IDX:...)" index lists.
  std::string out;
  int depth = 0;
  for (const char c : used) {
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (depth == 0) out += c;
  }
  return out;
}

bool hasReported(const v1::NodeInfo& node) {
  return node.agent_start_time() > 0 || node.reported().cpus() > 0;
}

std::string formatIsoTime(std::int64_t unix_seconds, const char* zero_text) {
  return unix_seconds == 0 ? zero_text : formatSlurmTime(unix_seconds);
}

std::string formatCpuLoad(double load) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", load);
  return buf;
}

}  // namespace drover::cli
