#pragma once
// What this host has: CPUs, topology, memory and GPUs. The parsers are pure (tested on captured
// /proc and nvidia-smi text); detectResources() does the reading.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/config.h"
#include "drover/result.h"

namespace drover::agent {

struct Gpu {
  std::uint32_t index = 0;
  std::string type;   // lower-cased short name, e.g. "h100"
  std::string file;   // /dev/nvidiaN
};

struct HostResources {
  std::uint32_t cpus = 0;
  std::uint32_t sockets = 1;
  std::uint32_t cores_per_socket = 1;
  std::uint32_t threads_per_core = 1;
  std::uint64_t real_memory_mb = 0;
  std::vector<Gpu> gpus;
};

struct Topology {
  std::uint32_t sockets = 1;
  std::uint32_t cores_per_socket = 1;
  std::uint32_t threads_per_core = 1;
};

// MemTotal (or another field, e.g. "MemAvailable") from /proc/meminfo, in MiB.
Result<std::uint64_t> parseMeminfoMb(std::string_view meminfo, std::string_view field = "MemTotal");

// Sockets, cores per socket and threads per core from /proc/cpuinfo ("physical id",
// "core id" per processor). Machines that hide them (some VMs) count as 1 socket of
// `cpus` single-thread cores.
Topology parseCpuinfo(std::string_view cpuinfo, std::uint32_t cpus);

// Output of `nvidia-smi --query-gpu=index,name --format=csv,noheader`.
std::vector<Gpu> parseNvidiaSmi(std::string_view csv);

// "NVIDIA H100 80GB HBM3" -> "h100"; "Tesla V100-SXM2-16GB" -> "v100".
std::string gpuTypeFromName(std::string_view name);

// The first field of /proc/loadavg.
double parseLoadavg(std::string_view text);

// Reads the host. GPUs: nvidia-smi when the node's config says `autodetect: nvidia` and it
// runs; otherwise the configured GPUs (they cannot be probed without a driver).
HostResources detectResources(const config::NodeConfig& node);

// The node's configured resources, reported as-is (`--fake-resources`: several agents on
// one host each claiming the declared size, as Slurm's config_overrides).
HostResources configuredResources(const config::NodeConfig& node);

}  // namespace drover::agent
