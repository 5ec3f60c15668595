#pragma once
// The controller's node table: configured nodes, what their agents reported, and their
// Slurm-style state (base state + DRAIN + not-responding flags). Pure: no I/O, time comes from
// the injected Clock, and every state change is returned to the caller (who logs and persists).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "drover/config.h"
#include "drover/result.h"

namespace drover::ctld {

enum class BaseState { kUnknown, kIdle, kAllocated, kMixed, kDown };

const char* baseStateName(BaseState s);   // "UNKNOWN", "IDLE", ...

struct GpuReport {
  std::uint32_t index = 0;
  std::string type;
  std::string file;
};

// What an agent says about its host.
struct ReportedResources {
  std::uint32_t cpus = 0;
  std::uint32_t sockets = 0;
  std::uint32_t cores_per_socket = 0;
  std::uint32_t threads_per_core = 0;
  std::uint64_t real_memory_mb = 0;
  std::vector<GpuReport> gpus;
};

struct Registration {
  std::string node_name;
  std::string address;
  std::uint16_t port = 0;
  ReportedResources resources;
  std::string version, os, arch, hostname;
  std::int64_t boot_time = 0;
  std::int64_t start_time = 0;
};

// A state set by an administrator survives restarts (StateStore) and agent re-registration.
struct AdminState {
  std::string name;
  bool down = false;
  bool drain = false;
  std::string reason;
  std::string reason_user;
  std::int64_t reason_time = 0;
};

struct NodeRecord {
  config::NodeConfig config;
  BaseState base = BaseState::kUnknown;
  bool drain = false;
  bool not_responding = true;
  bool admin_down = false;          // DOWN set by an admin: only RESUME brings it back
  bool system_drain = false;        // DRAIN set by the controller (low resources)
  std::string reason;
  std::string reason_user;
  std::int64_t reason_time = 0;
  bool registered = false;
  std::optional<ReportedResources> reported;
  std::string address;              // as the agent registered (else the configured one)
  std::uint16_t port = 0;
  std::string version, os, arch, hostname;
  std::int64_t boot_time = 0;
  std::int64_t agent_start_time = 0;
  std::int64_t last_heartbeat = 0;  // unix seconds, 0 = never
  std::int64_t added_time = 0;      // when it entered the table (or was resumed)
  std::int64_t last_busy_time = 0;  // last time it had work; set when it first comes up idle
  double cpu_load = 0;
  std::uint64_t free_memory_mb = 0;
};

struct StateChange {
  std::string node;
  std::string from;       // Slurm-style long name: "IDLE", "DOWN*", "IDLE+DRAIN"
  std::string to;
  std::string reason;
  bool admin = false;     // made by an administrator: persist it
};

// Slurm's long state string for a record: "IDLE", "DOWN*", "IDLE+DRAIN", "UNKNOWN*".
std::string stateString(const NodeRecord& n);

// Why reported resources fall short of the configuration; "" when they do not.
std::string shortfallReason(const config::NodeConfig& cfg, const ReportedResources& r);

enum class UpdateKind { kDrain, kResume, kDown, kIdle, kUndrain };
Result<UpdateKind> parseUpdateState(const std::string& text);

class NodeRegistry {
 public:
  NodeRegistry(const Clock& clock, std::string system_user);

  // Who the controller's own changes are by (Slurm's SlurmUser: "Not responding", ...).
  const std::string& systemUser() const { return system_user_; }

  // Adds nodes new in `cfg`, refreshes the configuration of known ones (keeping their state),
  // and drops nodes no longer configured. Returns the names added and removed.
  struct ConfigDiff {
    std::vector<std::string> added;
    std::vector<std::string> removed;
  };
  ConfigDiff applyConfig(const config::ClusterConfig& cfg);

  // Restores admin states saved before a restart (unknown names are ignored).
  std::vector<StateChange> restoreAdminStates(const std::vector<AdminState>& states);

  // An agent (re)registers. Fails for a node that is not configured.
  Result<std::vector<StateChange>> registerAgent(const Registration& reg);

  // False when the node is unknown or has not registered since the controller started:
  // the agent must register again.
  bool heartbeat(const std::string& name, double cpu_load, std::uint64_t free_memory_mb,
                 std::vector<StateChange>* changes);

  // Marks DOWN ("Not responding") every registered node silent for longer than node_down_s,
  // and flags not-responding those never heard from. A node's silence counts only while the
  // controller could hear it: called more than node_down_s / 2 after its previous call, the
  // controller itself was not running (stopped, swapped out, its VM paused) and heard nobody
  // meanwhile, so every node's silence restarts from now instead of being blamed on the node
  // (the jobs there would be requeued for nothing). `stalled_s` is that gap, 0 when none.
  struct TimeoutCheck {
    std::vector<StateChange> changes;
    std::int64_t stalled_s = 0;
  };
  TimeoutCheck checkTimeouts(std::uint32_t node_down_s);

  // scontrol update nodename=... state=... reason=...
  Result<std::vector<StateChange>> adminUpdate(const std::vector<std::string>& names,
                                               UpdateKind kind, const std::string& reason,
                                               const std::string& user);

  AdminState adminStateOf(const NodeRecord& n) const;
  const NodeRecord* find(const std::string& name) const;
  const std::vector<std::string>& order() const { return order_; }   // config order
  std::size_t size() const { return nodes_.size(); }

 private:
  std::int64_t nowSeconds() const;
  void setReason(NodeRecord& n, std::string reason, const std::string& user);
  void clearReason(NodeRecord& n);
  // Applies a mutation and records a change if the visible state or reason moved.
  template <typename F>
  void mutate(NodeRecord& n, bool admin, std::vector<StateChange>* out, F&& f);

  const Clock& clock_;
  std::string system_user_;
  std::map<std::string, NodeRecord> nodes_;
  std::vector<std::string> order_;
  std::int64_t last_check_ = 0;        // when checkTimeouts last ran; 0 = never
  std::int64_t listening_since_ = 0;   // the end of the controller's last stall
};

}  // namespace drover::ctld
