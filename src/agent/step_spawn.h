#pragma once
// Starts one step supervisor (drover-stepd) the way the agent must: in a new session (so it
// outlives the agent and its process group gets no signal meant for the agent), with the
// serialized LaunchStepRequest on stdin and its stdout/stderr appended to a log file.
#include <sys/types.h>

#include <string>
#include <vector>

#include "drover/result.h"

namespace drover::agent {

struct SpawnSpec {
  std::string program;               // drover-stepd's path
  std::vector<std::string> args;     // argv[1..]
  std::string stdin_bytes;           // written to its stdin, which is then closed
  std::string log_path;              // stdout and stderr (created 0600, appended)
};

// Spawns with posix_spawn (safe in a threaded process); returns the pid. The caller reaps it.
Result<pid_t> spawnSupervisor(const SpawnSpec& spec);

// Directory of this process's executable (/proc/self/exe), where drover-stepd is installed.
std::string ownExecutableDir();

}  // namespace drover::agent
