#pragma once
// droverd's end of the pre-forked supervisor launcher (drover-stepd --launcher, see
// src/stepd/launcher.h): started once, and again when it died, connected by a socket pair.
// Each launch sends what an exec'd drover-stepd gets on its command line and stdin; the
// launcher forks the supervisor as droverd's own child and answers its pid. Used on the
// agent's io thread only, like StepTable.
//
// It never makes a step fail: launch() says why it could not, and the caller then starts
// drover-stepd with exec (spawnSupervisor) as before.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agent/step_spawn.h"
#include "drover/result.h"

namespace drover::agent {

struct LauncherOptions {
  std::string stepd_path;                 // drover-stepd
  std::vector<std::string> args;          // the launcher's argv[1..] (ends with --launcher)
  std::string log_path;                   // its stdout and stderr (appended)
  std::chrono::milliseconds reply_timeout{10000};
  // After a failed start, launches use exec for this long before the next try.
  std::chrono::milliseconds restart_backoff{5000};
};

class SupervisorLauncher {
 public:
  explicit SupervisorLauncher(LauncherOptions opts);
  SupervisorLauncher(const SupervisorLauncher&) = delete;
  SupervisorLauncher& operator=(const SupervisorLauncher&) = delete;
  // Closes the connection (the launcher exits when it reads the end) and reaps it.
  ~SupervisorLauncher();

  // Starts the launcher and waits for its ready message.
  Status start();

  // Forks the supervisor for `spec` through the launcher (starting it again first if it died).
  // `known` tells the supervisors droverd already has: when a launcher dies after it read an
  // order but before it answered, the supervisor it may have forked is found among droverd's
  // children (none known, named drover-stepd) instead of being started a second time.
  Result<pid_t> launch(const SpawnSpec& spec, const std::function<bool(pid_t)>& known);

  // After SIGCHLD: reaps the launcher if it ended (it is droverd's child).
  void reapIfEnded();

  pid_t pid() const { return pid_; }

 private:
  // What drover-stepd on disk was when the launcher started (device, inode, size, mtime): a
  // new one installed since (a package upgrade) gets a new launcher at the next launch, as an
  // exec per step picked it up at once.
  struct BinaryId {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    long long mtime_ns = 0;
    bool operator==(const BinaryId&) const = default;
  };
  std::optional<BinaryId> stepdOnDisk() const;

  Result<pid_t> launchOnce(const SpawnSpec& spec, const std::function<bool(pid_t)>& known,
                           bool* retry);
  void stop();

  LauncherOptions opts_;
  pid_t pid_ = 0;
  int fd_ = -1;
  bool unsupported_ = false;   // the launcher said this kernel cannot do it: exec from now on
  std::optional<BinaryId> started_binary_;
  std::chrono::steady_clock::time_point next_start_{};
};

}  // namespace drover::agent
