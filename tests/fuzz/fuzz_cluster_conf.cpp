// cluster.conf invariants: any input either fails with one located error
// ("fuzz.conf:<line>:<column>: ...") or yields a configuration that keeps every rule the loader
// promises (unique nodes and agent endpoints, consistent topology, exactly one default
// partition naming only known nodes, an account tree rooted at root, absolute bcast
// directories). The CLIs' reader of their own sections (client_settings.h) must then accept the
// same text and read those sections as the daemons do.
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "config/client_settings.h"
#include "drover/config.h"
#include "fuzz_check.h"

namespace {

using namespace drover::config;

bool located(const std::string& error) {
  constexpr std::string_view kPrefix = "fuzz.conf:";
  if (error.rfind(kPrefix, 0) != 0) return false;
  std::size_t i = kPrefix.size();
  for (int part = 0; part < 2; ++part) {  // <line>:<column>:
    const std::size_t start = i;
    while (i < error.size() && std::isdigit(static_cast<unsigned char>(error[i]))) ++i;
    if (i == start || error[start] == '0' || i >= error.size() || error[i] != ':') return false;
    ++i;
  }
  return i + 1 < error.size() && error[i] == ' ';
}

bool absoluteDirectory(const std::string& dir) {
  return !dir.empty() && dir.front() == '/' && (dir.size() == 1 || dir.back() != '/');
}

void checkBcast(const BcastConfig& b) {
  FUZZ_CHECK(b.dest_dir.empty() || absoluteDirectory(b.dest_dir), "bcast dest_dir %s",
             b.dest_dir.c_str());
  FUZZ_CHECK(b.compression == "none" || b.compression == "lz4" || b.compression == "zlib",
             "bcast compression %s", b.compression.c_str());
  for (const std::string& dir : b.exclude) {
    FUZZ_CHECK(absoluteDirectory(dir), "bcast exclude entry %s", dir.c_str());
  }
}

void checkConfig(const ClusterConfig& c) {
  FUZZ_CHECK(!c.cluster_name.empty(), "empty cluster name");
  FUZZ_CHECK(!c.nodes.empty() && !c.partitions.empty(), "no nodes or no partitions");
  std::set<std::string> names;
  std::set<std::pair<std::string, int>> endpoints;
  for (const NodeConfig& n : c.nodes) {
    FUZZ_CHECK(names.insert(n.name).second, "node %s twice", n.name.c_str());
    FUZZ_CHECK(endpoints.emplace(n.address, n.port).second, "endpoint of %s shared",
               n.name.c_str());
    FUZZ_CHECK(n.port != 0, "node %s has port 0", n.name.c_str());
    FUZZ_CHECK(n.cpus >= 1 && n.cpus == n.sockets * n.cores_per_socket * n.threads_per_core,
               "node %s: cpus %u != %u x %u x %u", n.name.c_str(), n.cpus, n.sockets,
               n.cores_per_socket, n.threads_per_core);
    FUZZ_CHECK(n.real_memory_mb >= 1, "node %s has no memory", n.name.c_str());
    FUZZ_CHECK(n.gpus.files.empty() || n.gpus.files.size() == n.gpus.count,
               "node %s: %zu GPU files for %u GPUs", n.name.c_str(), n.gpus.files.size(),
               n.gpus.count);
    FUZZ_CHECK(c.findNode(n.name) != nullptr, "findNode misses %s", n.name.c_str());
  }
  int defaults = 0;
  std::set<std::string> partitions;
  for (const PartitionConfig& p : c.partitions) {
    FUZZ_CHECK(partitions.insert(p.name).second, "partition %s twice", p.name.c_str());
    defaults += p.is_default ? 1 : 0;
    FUZZ_CHECK(!p.nodes.empty(), "partition %s has no nodes", p.name.c_str());
    std::set<std::string> members;
    for (const std::string& n : p.nodes) {
      FUZZ_CHECK(names.count(n), "partition %s names unknown node %s", p.name.c_str(), n.c_str());
      FUZZ_CHECK(members.insert(n).second, "partition %s lists %s twice", p.name.c_str(),
                 n.c_str());
    }
    if (p.max_time_min != kUnlimited) {
      FUZZ_CHECK(p.default_time_min == kUnlimited || p.default_time_min <= p.max_time_min,
                 "partition %s: default_time above max_time", p.name.c_str());
    }
  }
  FUZZ_CHECK(defaults == 1, "%d default partitions", defaults);
  FUZZ_CHECK(c.defaultPartition() && c.defaultPartition()->is_default, "no default partition");
  FUZZ_CHECK(c.timeouts.node_down_s > c.timeouts.heartbeat_interval_s, "node_down too short");
  std::map<std::string, std::string> parent_of;
  for (const AccountConfig& a : c.accounts) parent_of[a.name] = a.parent;
  for (const AccountConfig& a : c.accounts) {
    FUZZ_CHECK(a.parent.empty() || parent_of.count(a.parent), "account %s: unknown parent",
               a.name.c_str());
    // Walking up must reach root within as many steps as there are accounts.
    std::string at = a.name;
    std::size_t steps = 0;
    while (!parent_of[at].empty() && steps <= c.accounts.size()) {
      at = parent_of[at];
      ++steps;
    }
    FUZZ_CHECK(steps <= c.accounts.size(), "account %s is in a cycle", a.name.c_str());
  }
  checkBcast(c.bcast);
}

// What a CLI reads of the same text equals what the daemons read.
void checkClientAgrees(std::string_view text, const ClusterConfig& c) {
  auto client = parseClientSettings(std::string(text), "fuzz.conf");
  FUZZ_CHECK(client.ok(), "the CLIs refuse what the daemons accept: %s", client.error().c_str());
  const ClientSettings& s = *client;
  FUZZ_CHECK(s.controller.host == c.controller.host && s.controller.port == c.controller.port &&
                 s.controller.cliPort() == c.controller.cliPort(),
             "controller address differs: %s:%u against %s:%u", s.controller.host.c_str(),
             s.controller.port, c.controller.host.c_str(), c.controller.port);
  FUZZ_CHECK(s.timeouts.message_s == c.timeouts.message_s, "message timeout differs");
  FUZZ_CHECK(s.bcast.dest_dir == c.bcast.dest_dir && s.bcast.compression == c.bcast.compression &&
                 s.bcast.send_libs == c.bcast.send_libs && s.bcast.exclude == c.bcast.exclude,
             "bcast section differs");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseOptions options;
  options.max_nodes = 2000;  // keeps hostile hostlists cheap
  options.base_dir = "/fuzz";
  auto r = parseClusterConfig(text, "fuzz.conf", options);
  if (!r.ok()) {
    FUZZ_CHECK(located(r.error()), "error without a location: %s", r.error().c_str());
    return 0;
  }
  checkConfig(*r);
  checkClientAgrees(text, *r);
  return 0;
}
