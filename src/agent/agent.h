#pragma once
// droverd's process: serves the Agent service, registers with the controller (retrying with
// backoff until it answers), heartbeats, and registers again when the controller asks.
// Its state (registered or not, the heartbeat interval) lives on one io_context thread.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "drover/config.h"
#include "drover/result.h"

namespace drover::agent {

struct AgentOptions {
  std::string node_name;                         // "" = this host's short name
  std::uint16_t port = 0;                        // 0 = the node's port in the config
  bool fake_resources = false;                   // report the configured size, not the host's
  std::optional<std::uint64_t> report_memory_mb; // report this much memory (tests of DRAIN)
};

class AgentDaemon {
 public:
  static Result<std::unique_ptr<AgentDaemon>> create(config::ClusterConfig cfg,
                                                     AgentOptions opts);
  ~AgentDaemon();
  int run();   // until SIGTERM/SIGINT; returns the exit code

  struct Impl;

 private:
  explicit AgentDaemon(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace drover::agent
