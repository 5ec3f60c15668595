#pragma once
// The steps this agent supervises: launching drover-stepd, signalling it, reaping it, and
// finding the ones still running after an agent restart. Used on the agent's io thread only
// (it has no lock); the gRPC handlers post onto that thread.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/ended_runs.h"
#include "agent/step_records.h"
#include "agent/supervisor_launcher.h"
#include "common/clock.h"
#include "drover/result.h"
#include "drover/v1/jobs.pb.h"
#include "stepd/signal_values.h"

namespace drover::agent {

struct StepTableOptions {
  std::string spool_dir;         // see step_records.h for the layout
  std::string stepd_path;        // drover-stepd
  std::string node_name;
  std::string munge_socket;      // "" = libmunge's default
  // host:port of the controller's frame transport (controller.cli_port), where each
  // supervisor reports its step's end; "" = the supervisor reports to nobody.
  std::string report_to;
  // Fork supervisors from a pre-forked drover-stepd --launcher (supervisor_launcher.h) instead
  // of exec'ing drover-stepd per step; exec stays the fallback whenever the launcher fails.
  bool use_launcher = true;
};

// kStale: the signal names an earlier run of the job than the step's supervisor runs (a kill
// meant for the run before a requeue, arriving after the next run started here): not sent.
enum class SignalOutcome { kSent, kNotFound, kStale, kFailed };

// A launch's outcome: the supervisor's pid, or `ended`: this run of the step already ran here
// and ended lately (a launch the controller sent again because the first attempt's answer was
// late), so nothing was started.
struct Launched {
  pid_t pid = 0;
  bool ended = false;
};

class StepTable {
 public:
  explicit StepTable(StepTableOptions opts);

  // Creates the spool dir, loads the runs that ended here lately (those whose supervisors
  // ended while the agent was away among them), takes over the records of supervisors that
  // still run, and starts the supervisor launcher (when it cannot, steps start with exec: logged, not an error).
  Status start();

  // Starts drover-stepd for the request; the same step of the same run again returns the
  // running one's pid (the controller may retry a launch whose reply it lost). The next run of a
  // requeued job (a higher step.restart_count) starts even while the last run's supervisor
  // exits; a launch of an earlier run than the one running (a late launch of the run before a
  // requeue) is refused. A launch or a running step that names no run counts as the same run.
  // A run that ended here in the last kEndedRunMemory (ended_runs.h), before a restart of the
  // agent too, is not started again (`ended`).
  Result<Launched> launch(const v1::LaunchStepRequest& request);

  // `kill`: SIGTERM to the supervisor (cancel), queued with `kill_reason`
  // (SignalStepRequest.KillReason, with kKillAtOnceFlag for at_once: stepd/signal_values.h)
  // as its value. Otherwise sigqueue(SIGRTMIN, signal | flag). `step` names the run the
  // sender means (restart_count); kStale, and nothing sent, when the step's supervisor runs a
  // later one.
  SignalOutcome signal(const v1::StepId& step, int signal, bool batch_shell_only, bool kill,
                       std::string* error, int kill_reason = 0);

  // Reaps ended children and forgets every step whose supervisor is gone (checked in /proc,
  // which also finds the end of supervisors taken over after a restart): before a heartbeat
  // or registration reports the running steps.
  void reap();
  // After SIGCHLD: reaps ended children and forgets their steps, reading nothing from /proc.
  void reapChildren();

  // The supervisor launcher's pid; 0 when none runs (not started yet, died, or not used).
  pid_t launcherPid() const { return launcher_ ? launcher_->pid() : 0; }

  // The steps whose supervisors run, with the run each was started for.
  std::vector<StepRecord> running() const;
  std::optional<pid_t> pidOf(const StepKey& key) const;
  std::optional<StepRecord> find(const StepKey& key) const;
  const std::string& spoolDir() const { return opts_.spool_dir; }

 private:
  void forget(const StepKey& key);
  bool endedLately(const StepKey& key, RunNumber run);
  std::optional<std::string> groupsArgument(const v1::LaunchStepRequest& request);
  // Reaps the children that ended; returns their pids.
  std::vector<pid_t> waitChildren();

  StepTableOptions opts_;
  std::unique_ptr<SupervisorLauncher> launcher_;
  std::map<StepKey, StepRecord> steps_;
  std::set<pid_t> children_;     // started by this process, so waitpid is ours to call
  SystemClock clock_;
  // The runs whose supervisors ended here lately (ended_runs.h), also kept in the spool dir:
  // the controller retries a launch it got no answer to, and a run that meanwhile ran and ended
  // must not run its script a second time, even if droverd restarted in between.
  EndedRuns ended_;
  // The user's supplementary groups (drover-stepd --groups) by (user, gid), looked up at most
  // once per kGroupsCacheTtl: with nsswitch's systemd back end each lookup is dozens of
  // syscalls, at every launch. Slurm's slurmd keeps such a cache too.
  struct CachedGroups {
    std::chrono::steady_clock::time_point looked_up;
    std::string groups;
  };
  std::map<std::pair<std::string, gid_t>, CachedGroups> groups_cache_;
};

// How long a user's looked-up supplementary groups are reused for launches.
inline constexpr std::chrono::seconds kGroupsCacheTtl{60};

// <state_dir>/../spool/<node>: beside the controller's state, one dir per node, so several
// agents on one host never share one.
std::string defaultSpoolDir(const std::string& state_dir, const std::string& node_name);

}  // namespace drover::agent
