#pragma once
// Everything the controller knows, owned by its one io_context thread: the configuration, the
// node registry and the state store. gRPC handlers never touch it directly; they post closures
// that call these methods (see loop.h). No gRPC types here, only protobuf messages.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctld/diag_stats.h"
#include "ctld/name_directory.h"
#include "ctld/node_registry.h"
#include "ctld/state_store.h"
#include "drover/config.h"
#include "drover/result.h"
#include "drover/v1/controller.pb.h"

namespace drover::ctld {

// What a node's running jobs hold, for GetNodes.
struct NodeUsage {
  std::uint32_t cpus = 0;
  std::uint64_t memory_mb = 0;
  std::uint32_t gpus = 0;
  std::vector<std::uint32_t> gpu_indices;
};

class CtldState {
 public:
  // `store` may be null (tests without persistence).
  CtldState(config::ClusterConfig cfg, const Clock& clock, StateStore* store,
            std::string system_user);

  // Fills the registry from the config and restores admin states from the store.
  Status init();

  const config::ClusterConfig& config() const { return cfg_; }
  NodeRegistry& registry() { return registry_; }
  std::int64_t startTime() const { return start_time_; }
  // The log level as Slurm numbers it (scontrol setdebug, show config's SlurmctldDebug): what
  // setDebugLevel set, else what the daemon was started at.
  int debugLevel() const;
  void setDebugLevel(int level);
  // scontrol setdebug -1: the level the daemon was started at, again.
  void resetDebugLevel();
  std::int64_t now() const { return clock_.now(); }
  // sdiag's counters (diag_stats.h), kept on this thread like everything else here.
  DiagStats& diag() { return diag_; }
  // The user and group names the RPCs carry, looked up before their handlers run
  // (name_stage.h): read here, never looked up on this thread.
  NameDirectory& names() { return names_; }
  const NameDirectory& names() const { return names_; }
  // Root, or a user whose name cluster.conf lists in `operators` (the caller's name is in
  // names() by the time its handler runs).
  bool isOperator(std::uint32_t uid) const;

  // Reloads the configuration from `path` (empty = the file it was loaded from). On error the
  // current configuration stays in force and the error (file:line:col) is returned.
  Result<std::string> reconfigure(const std::string& path);
  // Same, with an already parsed configuration.
  Result<std::string> applyNewConfig(config::ClusterConfig cfg);

  Status registerAgent(const Registration& reg);
  bool heartbeat(const std::string& node, double cpu_load, std::uint64_t free_memory_mb);
  void checkTimeouts();

  // Told of every node state change after it is logged (the job side fails the jobs of a node
  // that went down and asks for a scheduling pass).
  void setChangeListener(std::function<void(const StateChange&)> listener) {
    on_change_ = std::move(listener);
  }
  // What the running jobs hold per node, for GetNodes (alloc CPUs/memory/GPUs, ALLOCATED/MIXED).
  void setUsageSource(std::function<std::map<std::string, NodeUsage>()> source) {
    usage_source_ = std::move(source);
  }

  // scontrol update nodename=EXPR state=STATE reason=REASON, by `user`.
  Status updateNode(const std::string& nodes_expr, const std::string& state,
                    const std::string& reason, const std::string& user);

  // scontrol update PartitionName=: the fields `req` sets, by `user` (partition_update.cpp);
  // create: a new partition of them; delete: the partition goes (the caller first makes sure
  // no job names it). Kept until the next reconfigure or restart, which read cluster.conf
  // again, as the reference Slurm's without slurmctld -R. Refusals in Slurm's words: "Invalid
  // partition name specified", "Invalid node name specified".
  Status updatePartition(const v1::UpdatePartitionRequest& req, const std::string& user);

  Status fillNodes(const std::vector<std::string>& names, v1::GetNodesReply* reply) const;
  Status fillPartitions(const std::vector<std::string>& names,
                        v1::GetPartitionsReply* reply) const;

 private:
  // The configuration in force from now on, and what that changed in the registry.
  NodeRegistry::ConfigDiff install(config::ClusterConfig cfg);
  void logChanges(const std::vector<StateChange>& changes);
  void fillNode(const NodeRecord& n, const NodeUsage* usage, v1::NodeInfo* out) const;
  std::map<std::string, NodeUsage> usage() const;

  config::ClusterConfig cfg_;
  const Clock& clock_;
  StateStore* store_;
  NodeRegistry registry_;
  std::int64_t start_time_;
  int debug_level_ = -1;  // -1: not set since the start
  std::optional<int> start_debug_level_;  // the level before the first setDebugLevel
  DiagStats diag_{start_time_};
  NameDirectory names_;
  std::function<void(const StateChange&)> on_change_;
  std::function<std::map<std::string, NodeUsage>()> usage_source_;
};

// Slurm's GRES string for a node's GPUs: "gpu:8", "gpu:h100:8", "" when none.
std::string gresString(const std::string& type, std::uint32_t count);

}  // namespace drover::ctld
