#pragma once
// droverd's process: serves the Agent service, registers with the controller (retrying with
// backoff until it answers), heartbeats, and registers again when the controller asks.
// Its state (registered or not, the heartbeat interval, the steps it supervises) lives on one
// io_context thread. It launches each step's supervisor (drover-stepd) in its own session and
// never kills steps when it exits: a restarted agent finds them again from the spool dir
// (layout in agent/step_records.h).
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
  bool any_free_port = false;                    // tests: the system picks it (see port())
  bool fake_resources = false;                   // report the configured size, not the host's
  std::optional<std::uint64_t> report_memory_mb; // report this much memory (tests of DRAIN)
  std::string spool_dir;     // "" = <controller.state_dir>/../spool/<node name>
  std::string stepd_path;    // "" = drover-stepd next to this process's executable
  // Fork each step's supervisor from one pre-forked drover-stepd (src/stepd/launcher.h);
  // false = exec drover-stepd per step (the fallback whenever the launcher fails anyway).
  bool use_launcher = true;
};

class AgentDaemon {
 public:
  static Result<std::unique_ptr<AgentDaemon>> create(config::ClusterConfig cfg,
                                                     AgentOptions opts);
  ~AgentDaemon();
  int run();   // until SIGTERM/SIGINT or requestStop(); returns the exit code
  // Makes run() return 0 (from any thread). Running steps are left running.
  void requestStop();
  std::uint16_t port() const;   // the port it serves on
  const std::string& spoolDir() const;

  struct Impl;

 private:
  explicit AgentDaemon(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace drover::agent
