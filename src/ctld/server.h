#pragma once
// droverctld's process: the io_context thread that owns CtldState, the heartbeat timer, the
// signals (SIGHUP reconfigures, SIGTERM/SIGINT stop) and the gRPC server.
#include <memory>

#include "common/clock.h"
#include "drover/config.h"
#include "drover/result.h"

namespace drover::ctld {

class CtldServer {
 public:
  // Opens the state database and binds controller.host:port; errors say which failed.
  static Result<std::unique_ptr<CtldServer>> create(config::ClusterConfig cfg, const Clock& clock);
  ~CtldServer();

  // Serves until SIGTERM or SIGINT. Returns the process exit code.
  int run();

  struct Impl;

 private:
  explicit CtldServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace drover::ctld
