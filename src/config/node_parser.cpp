// nodes: groups of identical nodes named by a hostlist, expanded one NodeConfig per node.
#include <fmt/format.h>

#include <charconv>
#include <unordered_map>

#include "config/sections.h"

namespace drover::config::detail {
namespace {

constexpr std::int64_t kMaxPerLevel = 65535;      // sockets, cores per socket, threads per core
constexpr std::uint64_t kMaxCpus = 1u << 20;
constexpr std::int64_t kMaxGpus = 1024;

struct GroupShape {
  std::uint32_t cpus = 1;
  std::uint32_t sockets = 1;
  std::uint32_t cores_per_socket = 1;
  std::uint32_t threads_per_core = 1;
};

// Slurm's rules: CPUs alone means one socket of that many cores; given sockets/cores/threads,
// CPUs is their product (and must equal it when written too).
bool parseShape(Context& ctx, const MapReader& m, GroupShape& out) {
  std::int64_t cpus = 0, sockets = 0, cores = 0, threads = 0;
  const YAML::Node* cpus_node = m.find("cpus");
  if (cpus_node && !readInteger(ctx, *cpus_node, m.path("cpus"), 1, kMaxCpus, cpus)) return false;
  for (auto [key, value] : {std::pair{"sockets", &sockets}, std::pair{"cores_per_socket", &cores},
                            std::pair{"threads_per_core", &threads}}) {
    if (auto* v = m.find(key); v && !readInteger(ctx, *v, m.path(key), 1, kMaxPerLevel, *value)) {
      return false;
    }
  }
  if (!sockets && !cores && !threads) {
    out.cpus = static_cast<std::uint32_t>(cpus ? cpus : 1);
    out.sockets = 1;
    out.cores_per_socket = out.cpus;
    out.threads_per_core = 1;
    return true;
  }
  if (!sockets) sockets = 1;
  if (!threads) threads = 1;
  if (!cores) {
    if (cpus && cpus % (sockets * threads) != 0) {
      return ctx.fail(*cpus_node,
                      fmt::format("{}: {} CPUs cannot be split evenly over {} socket(s) x {} "
                                  "thread(s) per core; give cores_per_socket",
                                  m.path("cpus"), cpus, sockets, threads));
    }
    cores = cpus ? cpus / (sockets * threads) : 1;
  }
  const auto product = static_cast<std::uint64_t>(sockets) * static_cast<std::uint64_t>(cores) *
                       static_cast<std::uint64_t>(threads);
  if (product > kMaxCpus) {
    return ctx.fail(m.node(), fmt::format("{}: sockets x cores_per_socket x threads_per_core = "
                                          "{} CPUs; at most {} are accepted",
                                          m.path(), product, kMaxCpus));
  }
  if (cpus && static_cast<std::uint64_t>(cpus) != product) {
    return ctx.fail(*cpus_node,
                    fmt::format("{}: cpus is {} but sockets x cores_per_socket x threads_per_core "
                                "= {} x {} x {} = {}; they must agree (or leave cpus out)",
                                m.path("cpus"), cpus, sockets, cores, threads, product));
  }
  out.cpus = static_cast<std::uint32_t>(product);
  out.sockets = static_cast<std::uint32_t>(sockets);
  out.cores_per_socket = static_cast<std::uint32_t>(cores);
  out.threads_per_core = static_cast<std::uint32_t>(threads);
  return true;
}

bool parseGpus(Context& ctx, const YAML::Node& node, const std::string& path, GpuConfig& out) {
  if (node.IsScalar()) {  // `gpus: 8` is short for `gpus: {count: 8}`
    return readInteger(ctx, node, path, 1, kMaxGpus, out.count);
  }
  MapReader m;
  if (!m.open(ctx, node, path, {"type", "count", "files", "autodetect"})) return false;
  if (auto* v = m.find("autodetect")) {
    std::size_t choice = 0;
    if (!readChoice(ctx, *v, m.path("autodetect"), {"nvidia", "off"}, choice)) return false;
    out.autodetect_nvidia = choice == 0;
    if (out.autodetect_nvidia && (m.find("type") || m.find("count") || m.find("files"))) {
      return ctx.fail(*v, fmt::format("{}: autodetect: nvidia finds the type, count and device "
                                      "files itself; drop type/count/files or drop autodetect",
                                      m.path("autodetect")));
    }
    if (!m.find("count") && !m.find("files")) return true;
  }
  if (auto* v = m.find("type"); v && !readName(ctx, *v, m.path("type"), out.type)) return false;
  if (auto* v = m.find("files")) {
    if (!readHostlist(ctx, *v, m.path("files"), kMaxGpus, out.files, false)) return false;
    for (const std::string& f : out.files) {
      if (f.front() != '/') {
        return ctx.fail(*v, fmt::format("{}: '{}' is not an absolute device path such as "
                                        "/dev/nvidia0",
                                        m.path("files"), f));
      }
    }
  }
  if (auto* v = m.find("count")) {
    if (!readInteger(ctx, *v, m.path("count"), 1, kMaxGpus, out.count)) return false;
    if (!out.files.empty() && out.files.size() != out.count) {
      return ctx.fail(*v, fmt::format("{}: count is {} but files names {} device(s); they must "
                                      "match (or leave count out)",
                                      m.path("count"), out.count, out.files.size()));
    }
  } else if (!out.files.empty()) {
    out.count = static_cast<std::uint32_t>(out.files.size());
  } else {
    return ctx.fail(node, fmt::format("{}: give count, files, or autodetect: nvidia", path));
  }
  return true;
}

// "7831" or "7831-7834".
bool parsePorts(Context& ctx, const YAML::Node& node, const std::string& path,
                std::uint16_t& first, std::uint16_t& last) {
  constexpr std::string_view kAccepted = "a port (1-65535) or a range such as 7831-7834";
  if (!node.IsScalar()) {
    return ctx.fail(node, fmt::format("{}: expected {}, got {}", path, kAccepted, describe(node)));
  }
  const std::string& s = node.Scalar();
  auto number = [&](std::string_view text, std::uint16_t& out) {
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 1 ||
        v > 65535) {
      return false;
    }
    out = static_cast<std::uint16_t>(v);
    return true;
  };
  const auto dash = s.find('-');
  const bool ok = dash == std::string::npos
                      ? number(s, first) && number(s, last)
                      : number(std::string_view(s).substr(0, dash), first) &&
                            number(std::string_view(s).substr(dash + 1), last) && first <= last;
  if (!ok) {
    return ctx.fail(node, fmt::format("{}: expected {}, got {}", path, kAccepted, describe(node)));
  }
  return true;
}

struct Placed {
  std::size_t group;
  int line;
};

}  // namespace

bool parseNodeGroups(Context& ctx, const YAML::Node& node, std::size_t max_nodes,
                     const ControllerConfig& controller, std::vector<NodeConfig>& out) {
  if (!node.IsSequence() || node.size() == 0) {
    return ctx.fail(node, fmt::format("nodes: expected a non-empty list of node groups (each with "
                                      "names, address, port, cpus, ...), got {}",
                                      describe(node)));
  }
  std::unordered_map<std::string, Placed> placed;
  std::unordered_map<std::string, std::string> endpoints;  // "address:port" -> node
  const std::string controller_endpoint = fmt::format("{}:{}", controller.host, controller.port);
  const std::string cli_endpoint = fmt::format("{}:{}", controller.host, controller.cliPort());

  for (std::size_t g = 0; g < node.size(); ++g) {
    const YAML::Node group = node[g];
    MapReader m;
    if (!m.open(ctx, group, fmt::format("nodes[{}]", g),
                {"names", "address", "port", "cpus", "sockets", "cores_per_socket",
                 "threads_per_core", "real_memory", "gpus", "features", "weight"})) {
      return false;
    }
    const YAML::Node* names_node = m.require(ctx, "names");
    std::vector<std::string> names;
    if (!names_node || !readHostlist(ctx, *names_node, m.path("names"), max_nodes, names)) {
      return false;
    }
    if (out.size() + names.size() > max_nodes) {
      return ctx.fail(*names_node, fmt::format("{}: more than {} nodes in all; at most {} are "
                                               "accepted",
                                               m.path("names"), max_nodes, max_nodes));
    }
    for (const std::string& name : names) {
      if (auto it = placed.find(name); it != placed.end()) {
        return ctx.fail(*names_node,
                        fmt::format("{}: node {} is already in nodes[{}] (line {}); a node "
                                    "belongs to exactly one group",
                                    m.path("names"), name, it->second.group, it->second.line));
      }
    }

    std::vector<std::string> addresses = names;  // as Slurm's NodeAddr: defaults to the name
    const YAML::Node* address_node = m.find("address");
    if (address_node) {
      std::string text;
      if (!readString(ctx, *address_node, m.path("address"), text)) return false;
      // Only hostlist syntax is expanded, so IPv6 literals pass through unchanged.
      if (text.find_first_of("[,") == std::string::npos) {
        addresses.assign(1, text);
      } else if (!readHostlist(ctx, *address_node, m.path("address"), names.size() + 1,
                               addresses, false)) {
        return false;
      }
      if (addresses.size() != 1 && addresses.size() != names.size()) {
        return ctx.fail(*address_node,
                        fmt::format("{}: {} addresses for {} nodes; give one address for all, "
                                    "or one per node",
                                    m.path("address"), addresses.size(), names.size()));
      }
    }

    std::uint16_t port_first = kDefaultAgentPort, port_last = kDefaultAgentPort;
    const YAML::Node* port_node = m.find("port");
    if (port_node) {
      if (!parsePorts(ctx, *port_node, m.path("port"), port_first, port_last)) return false;
      const std::size_t ports = static_cast<std::size_t>(port_last - port_first) + 1;
      if (port_first != port_last && ports != names.size()) {
        return ctx.fail(*port_node,
                        fmt::format("{}: range {} holds {} port(s) for {} node(s); give exactly "
                                    "one port per node, or one port for all when each node has "
                                    "its own address",
                                    m.path("port"), port_node->Scalar(), ports, names.size()));
      }
    }

    GroupShape shape;
    if (!parseShape(ctx, m, shape)) return false;
    std::uint64_t memory_mb = 1;  // Slurm's RealMemory default
    if (auto* v = m.find("real_memory")) {
      if (!readMemoryMb(ctx, *v, m.path("real_memory"), memory_mb)) return false;
      if (memory_mb == 0) {
        return ctx.fail(*v, fmt::format("{}: must be at least 1 MiB", m.path("real_memory")));
      }
    }
    GpuConfig gpus;
    if (auto* v = m.find("gpus"); v && !parseGpus(ctx, *v, m.path("gpus"), gpus)) return false;
    std::vector<std::string> features;
    if (auto* v = m.find("features"); v && !readNameList(ctx, *v, m.path("features"), features)) {
      return false;
    }
    std::uint32_t weight = 1;
    if (auto* v = m.find("weight"); v && !readInteger(ctx, *v, m.path("weight"), 0, 0xFFFFFFFFLL, weight)) {
      return false;
    }

    const YAML::Node& endpoint_at = port_node ? *port_node : *names_node;
    for (std::size_t i = 0; i < names.size(); ++i) {
      NodeConfig n;
      n.name = names[i];
      n.address = addresses.size() == 1 ? addresses[0] : addresses[i];
      n.port = static_cast<std::uint16_t>(port_first == port_last ? port_first : port_first + i);
      const std::string endpoint = fmt::format("{}:{}", n.address, n.port);
      if (endpoint == controller_endpoint || endpoint == cli_endpoint) {
        return ctx.fail(endpoint_at,
                        fmt::format("{}: node {} would listen on {}, the controller's address; "
                                    "give the agents other ports",
                                    m.path("port"), n.name, endpoint));
      }
      if (auto [it, fresh] = endpoints.emplace(endpoint, n.name); !fresh) {
        return ctx.fail(endpoint_at,
                        fmt::format("{}: nodes {} and {} would both listen on {}; nodes sharing "
                                    "an address need distinct ports (a range, one per node)",
                                    m.path("port"), it->second, n.name, endpoint));
      }
      n.cpus = shape.cpus;
      n.sockets = shape.sockets;
      n.cores_per_socket = shape.cores_per_socket;
      n.threads_per_core = shape.threads_per_core;
      n.real_memory_mb = memory_mb;
      n.gpus = gpus;
      n.features = features;
      n.weight = weight;
      placed.emplace(n.name, Placed{g, names_node->Mark().line + 1});
      out.push_back(std::move(n));
    }
  }
  return true;
}

}  // namespace drover::config::detail
