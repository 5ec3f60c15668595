#pragma once
// One parser per top-level section of cluster.conf. Each returns false after recording the
// first error in the Context. Internal to drover_config.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <vector>

#include "config/yaml_reader.h"
#include "drover/config.h"

namespace drover::config::detail {

bool parseController(Context& ctx, const YAML::Node& node, ControllerConfig& out);
bool parseTimeouts(Context& ctx, const YAML::Node& node, Timeouts& out);
bool parseScheduler(Context& ctx, const YAML::Node& node, SchedulerConfig& out);
bool parseBcast(Context& ctx, const YAML::Node& node, BcastConfig& out);
bool parseSteps(Context& ctx, const YAML::Node& node, StepsConfig& out);

// Expands node groups into nodes; checks names are unique across groups and that no two agents
// (nor an agent and the controller) share an address:port.
bool parseNodeGroups(Context& ctx, const YAML::Node& node, std::size_t max_nodes,
                     const ControllerConfig& controller, std::vector<NodeConfig>& out);

// Resolves partition node lists against `nodes`; marks the first partition default when none is.
bool parsePartitions(Context& ctx, const YAML::Node& node, const std::vector<NodeConfig>& nodes,
                     std::vector<PartitionConfig>& out);

// Checks parents exist and the tree has no cycles; parent "root" is stored as "".
bool parseAccounts(Context& ctx, const YAML::Node& node, std::vector<AccountConfig>& out);

// QOS names in any case, kept in lower case: Slurm's are (sacctmgr add qos HIGH made `high`),
// so `-q HIGH`, `preempt: [Low]` and accounts' lists find them.
bool readQosName(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out);
bool readQosList(Context& ctx, const YAML::Node& node, const std::string& path,
                 std::vector<std::string>& out);
// The QOS table: normal first (given settings when listed), names lower case, `preempt`
// naming defined QOSes other than its own.
bool parseQos(Context& ctx, const YAML::Node& node, std::vector<QosConfig>& out);
// Accounts' `qos` and `default_qos` name defined QOSes, each default one its account may use.
bool checkAccountQos(Context& ctx, const YAML::Node& accounts, const std::vector<QosConfig>& table,
                     std::vector<AccountConfig>& out);

}  // namespace drover::config::detail
