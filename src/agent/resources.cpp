#include "agent/resources.h"

#include <sched.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "common/ascii_case.h"
#include "common/kernel_file.h"

namespace drover::agent {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<Gpu> configuredGpus(const config::GpuConfig& g) {
  std::vector<Gpu> out;
  for (std::uint32_t i = 0; i < g.count; ++i) {
    Gpu gpu;
    gpu.index = i;
    gpu.type = g.type;
    gpu.file = i < g.files.size() ? g.files[i] : "/dev/nvidia" + std::to_string(i);
    out.push_back(std::move(gpu));
  }
  return out;
}

std::optional<std::string> runNvidiaSmi() {
  FILE* p = popen("nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null", "r");
  if (p == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  const int rc = pclose(p);
  if (rc != 0) return std::nullopt;
  return out;
}

}  // namespace

Result<std::uint64_t> parseMeminfoMb(std::string_view meminfo, std::string_view field) {
  std::size_t pos = 0;
  while (pos < meminfo.size()) {
    std::size_t end = meminfo.find('\n', pos);
    if (end == std::string_view::npos) end = meminfo.size();
    std::string_view line = meminfo.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(0, colon)) != field) continue;
    std::string_view rest = trim(line.substr(colon + 1));
    std::uint64_t kb = 0;
    std::size_t i = 0;
    for (; i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])); ++i) {
      kb = kb * 10 + static_cast<std::uint64_t>(rest[i] - '0');
    }
    if (i == 0) return makeError("meminfo: " + std::string(field) + " has no number");
    return kb / 1024;
  }
  return makeError("meminfo: no " + std::string(field) + " line");
}

Topology parseCpuinfo(std::string_view cpuinfo, std::uint32_t cpus) {
  // (physical id, core id) pairs; each processor block is one hardware thread.
  std::set<std::string> sockets;
  std::set<std::pair<std::string, std::string>> cores;
  std::string phys, core;
  bool have_ids = false;
  std::uint32_t threads = 0;
  auto flush = [&] {
    if (!phys.empty() || !core.empty()) {
      sockets.insert(phys);
      cores.insert({phys, core});
      have_ids = true;
    }
    phys.clear();
    core.clear();
  };
  std::size_t pos = 0;
  while (pos <= cpuinfo.size()) {
    std::size_t end = cpuinfo.find('\n', pos);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string_view line = cpuinfo.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view val = trim(line.substr(colon + 1));
    if (key == "processor") {
      flush();
      ++threads;
    } else if (key == "physical id") {
      phys = std::string(val);
    } else if (key == "core id") {
      core = std::string(val);
    }
  }
  flush();
  Topology t;
  if (!have_ids || sockets.empty() || cores.empty() || threads == 0) {
    t.sockets = 1;
    t.cores_per_socket = cpus == 0 ? 1 : cpus;
    t.threads_per_core = 1;
    return t;
  }
  t.sockets = static_cast<std::uint32_t>(sockets.size());
  t.cores_per_socket = static_cast<std::uint32_t>(cores.size() / sockets.size());
  if (t.cores_per_socket == 0) t.cores_per_socket = 1;
  t.threads_per_core = threads / static_cast<std::uint32_t>(cores.size());
  if (t.threads_per_core == 0) t.threads_per_core = 1;
  return t;
}

std::string gpuTypeFromName(std::string_view name) {
  std::istringstream words(toLowerAscii(name));
  std::string w;
  while (words >> w) {
    if (w == "nvidia" || w == "tesla" || w == "geforce" || w == "quadro") continue;
    // "v100-sxm2-16gb" -> "v100"
    const std::size_t dash = w.find('-');
    if (dash != std::string::npos) w = w.substr(0, dash);
    return w;
  }
  return "";
}

std::vector<Gpu> parseNvidiaSmi(std::string_view csv) {
  std::vector<Gpu> out;
  std::size_t pos = 0;
  while (pos < csv.size()) {
    std::size_t end = csv.find('\n', pos);
    if (end == std::string_view::npos) end = csv.size();
    std::string_view line = trim(csv.substr(pos, end - pos));
    pos = end + 1;
    const std::size_t comma = line.find(',');
    if (line.empty() || comma == std::string_view::npos) continue;
    std::string_view idx = trim(line.substr(0, comma));
    std::uint32_t index = 0;
    bool ok = !idx.empty();
    for (char c : idx) {
      if (!std::isdigit(static_cast<unsigned char>(c))) ok = false;
      else index = index * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (!ok) continue;
    Gpu g;
    g.index = index;
    g.type = gpuTypeFromName(trim(line.substr(comma + 1)));
    g.file = "/dev/nvidia" + std::to_string(index);
    out.push_back(std::move(g));
  }
  return out;
}

double parseLoadavg(std::string_view text) {
  try {
    return std::stod(std::string(trim(text)));
  } catch (...) {
    return 0.0;
  }
}

HostResources configuredResources(const config::NodeConfig& node) {
  HostResources r;
  r.cpus = node.cpus;
  r.sockets = node.sockets;
  r.cores_per_socket = node.cores_per_socket;
  r.threads_per_core = node.threads_per_core;
  r.real_memory_mb = node.real_memory_mb;
  r.gpus = configuredGpus(node.gpus);
  return r;
}

HostResources detectResources(const config::NodeConfig& node) {
  HostResources r;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    r.cpus = static_cast<std::uint32_t>(CPU_COUNT(&set));
  } else {
    r.cpus = static_cast<std::uint32_t>(sysconf(_SC_NPROCESSORS_ONLN));
  }
  Topology t = parseCpuinfo(readKernelFile("/proc/cpuinfo"), r.cpus);
  r.sockets = t.sockets;
  r.cores_per_socket = t.cores_per_socket;
  r.threads_per_core = t.threads_per_core;
  auto mem = parseMeminfoMb(readKernelFile("/proc/meminfo"));
  r.real_memory_mb = mem ? *mem : 0;
  if (node.gpus.autodetect_nvidia) {
    if (auto smi = runNvidiaSmi()) {
      r.gpus = parseNvidiaSmi(*smi);
      return r;
    }
  }
  r.gpus = configuredGpus(node.gpus);
  return r;
}

}  // namespace drover::agent
