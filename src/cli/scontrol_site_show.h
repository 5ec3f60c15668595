#pragma once
// scontrol show for entities a Drover cluster has none of, in the reference's words and exit
// codes (licenses, topology, burstbuffer, bbstat, dwstat, federation, frontend), and for the
// two read from the nodes' host names (daemons: which of Drover's daemons run on this host;
// aliases: the node names of this host or of HOST).
#include <optional>
#include <string>
#include <vector>

#include "drover/v1/controller.pb.h"

namespace drover::cli {

// What `show ENTITY [ID]` prints and returns when ENTITY (as typed, any unambiguous beginning
// the reference took) is one of these; nullopt when it is another entity.
std::optional<int> showSiteEntity(const std::string& entity, const std::string& id, bool quiet);

// The names of the nodes whose agents registered from `host`, in the controller's order.
std::vector<std::string> nodesOfHost(const v1::GetNodesReply& nodes, const std::string& host);

// Whether `host` names this machine: its host name (short or full), localhost, or a loopback
// address.
bool isThisHost(const std::string& host, const std::string& this_host);

}  // namespace drover::cli
