#include "cli/scontrol_site_show.h"

#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scontrol";

std::string shortName(const std::string& host) { return host.substr(0, host.find('.')); }

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// daemons and aliases read the nodes' host names from the controller.
struct NodeHosts {
  std::string controller_host;  // as configured
  v1::GetNodesReply nodes;
};

std::optional<NodeHosts> loadNodeHosts() {
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return std::nullopt;
  }
  auto reply = client->getNodes(v1::GetNodesRequest());
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return std::nullopt;
  }
  return NodeHosts{client->address().host, std::move(*reply)};
}

int showDaemons() {
  auto hosts = loadNodeHosts();
  if (!hosts) return 1;
  const std::string self = hostName();
  std::vector<std::string> daemons;
  if (isThisHost(hosts->controller_host, self)) daemons.push_back("droverctld");
  if (!nodesOfHost(hosts->nodes, self).empty()) daemons.push_back("droverd");
  std::cout << joined(daemons) << "\n";
  return 0;
}

int showAliases(const std::string& host) {
  auto hosts = loadNodeHosts();
  if (!hosts) return 1;
  const std::vector<std::string> names =
      nodesOfHost(hosts->nodes, host.empty() ? hostName() : host);
  if (!names.empty()) std::cout << joined(names) << "\n";
  return 0;
}

}  // namespace

bool isThisHost(const std::string& host, const std::string& this_host) {
  if (host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0) return true;
  return !this_host.empty() && (host == this_host || shortName(host) == shortName(this_host));
}

std::vector<std::string> nodesOfHost(const v1::GetNodesReply& nodes, const std::string& host) {
  std::vector<std::string> names;
  for (const auto& n : nodes.nodes()) {
    if (!n.hostname().empty() && (n.hostname() == host || shortName(n.hostname()) == host)) {
      names.push_back(n.name());
    }
  }
  return names;
}

std::optional<int> showSiteEntity(const std::string& entity, const std::string& id, bool quiet) {
  if (abbrev(entity, "licenses", 2)) {
    std::cout << "No licenses configured in Drover.\n";
    return 0;
  }
  if (abbrev(entity, "topology", 1)) {
    // The reference's words, on stderr, and still exit 0.
    printError(kProg, id.empty() ? "No topology information available"
                                 : "Topology information contains no switch or node named " + id);
    return 0;
  }
  if (abbrev(entity, "burstbuffer", 2) || abbrev(entity, "bbstat", 2) ||
      abbrev(entity, "dwstat", 2) || abbrev(entity, "federation", 1)) {
    return 0;  // none configured: the reference printed nothing
  }
  if (abbrev(entity, "frontend", 2)) {
    if (id.empty()) {
      std::cout << "No nodes in the system\n";
      return 0;
    }
    if (!quiet) std::cout << "Node " << id << " not found\n";
    return 1;
  }
  if (abbrev(entity, "daemons", 1)) {
    if (id.empty()) return showDaemons();
    std::cerr << "too many arguments for keyword:show\n";  // the reference's, for any name
    return 1;
  }
  if (abbrev(entity, "aliases", 1)) return showAliases(id);
  return std::nullopt;
}

}  // namespace drover::cli
