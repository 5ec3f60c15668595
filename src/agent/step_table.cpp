#include "agent/step_table.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "agent/file_block_writer.h"
#include "agent/step_spawn.h"
#include "common/log.h"

namespace drover::agent {
namespace {

namespace fs = std::filesystem;

spdlog::logger& log() { return *drover::log::get("agent"); }

StepKey keyOf(const v1::StepId& id) { return StepKey{id.job_id(), id.step_id()}; }

// The user's supplementary groups as drover-stepd --groups wants them ("1001,27"). The agent
// looks them up because drover-stepd is linked statically, where glibc's NSS (getgrouplist)
// cannot run.
std::string lookUpGroups(const std::string& user, gid_t gid) {
  std::string out;
  for (gid_t g : userGroups(user, gid)) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

RunNumber runOf(const v1::StepId& id) {
  return id.has_restart_count() ? RunNumber(id.restart_count()) : std::nullopt;
}

std::string runText(RunNumber run) { return run ? std::to_string(*run) : "?"; }

}  // namespace

std::string defaultSpoolDir(const std::string& state_dir, const std::string& node_name) {
  fs::path state = fs::path(state_dir).lexically_normal();
  if (state.filename().empty()) state = state.parent_path();   // "a/state/" -> "a/state"
  return (state.parent_path() / "spool" / node_name).string();
}

StepTable::StepTable(StepTableOptions opts)
    : opts_(std::move(opts)), ended_(endedRunsPath(opts_.spool_dir), clock_) {}

Status StepTable::start() {
  std::error_code ec;
  fs::create_directories(fs::path(opts_.spool_dir) / "steps", ec);
  if (ec) {
    return makeError("cannot create spool dir " + opts_.spool_dir + ": " + ec.message() +
                     " (give a writable one with --spool-dir)");
  }
  // Users' batch scripts (job<ID>.script, owned by them) are read from it by their shells.
  ::chmod(opts_.spool_dir.c_str(), 0755);
  ended_.load();
  std::vector<StepRecord> ended_meanwhile;
  for (const auto& record : loadRunningSteps(opts_.spool_dir, &ended_meanwhile)) {
    log().info("[J{}.{}] supervisor pid {} still runs; supervising it again", record.key.job_id,
               record.key.step_id, record.pid);
    steps_[record.key] = record;
  }
  for (const auto& record : ended_meanwhile) {
    if (!record.run) continue;   // a record from before runs were kept: no run to remember
    log().info("[J{}.{}] supervisor pid {} of run {} ended while the agent was away",
               record.key.job_id, record.key.step_id, record.pid, *record.run);
    ended_.add(record.key, *record.run);
  }
  if (opts_.use_launcher) {
    LauncherOptions launcher;
    launcher.stepd_path = opts_.stepd_path;
    // --spool and --node only name it: local-cluster and admins find a node's supervisors by
    // "drover-stepd --spool <dir>" in their command line, which forked ones inherit.
    launcher.args = {"--spool", opts_.spool_dir, "--node", opts_.node_name, "--launcher"};
    launcher.log_path = launcherLogPath(opts_.spool_dir);
    launcher_ = std::make_unique<SupervisorLauncher>(std::move(launcher));
    if (auto started = launcher_->start(); !started) {
      log().warn("{}; steps start drover-stepd with exec until it runs", started.error());
    }
  }
  return okStatus();
}

Result<Launched> StepTable::launch(const v1::LaunchStepRequest& request) {
  const StepKey key = keyOf(request.step());
  if (key.job_id == 0) return makeError("launch request names no job (step.job_id = 0)");
  const RunNumber run = runOf(request.step());
  // A supervisor that exited but is not reaped yet (a zombie until reap()) has ended: it is
  // remembered as such first, so a retried launch of its run is not started again (the
  // controller's retry of a launch the stopped agent answered late ran the script twice).
  if (auto it = steps_.find(key); it != steps_.end() && !isRunningSupervisor(it->second)) {
    forget(key);
  }
  if (auto it = steps_.find(key); it != steps_.end()) {
    switch (compareRuns(run, it->second.run)) {
      case RunOrder::kUnknown:
      case RunOrder::kSame:
        return Launched{it->second.pid};   // a retried launch: the running supervisor answers
      case RunOrder::kEarlier:
        // Starting it would run the job's script twice and take the step's record from the
        // run the controller holds as current.
        log().warn("[J{}.{}] launch of run {} refused: supervisor pid {} runs the later run {}",
                   key.job_id, key.step_id, runText(run), it->second.pid,
                   runText(it->second.run));
        return makeError("step " + std::to_string(key.job_id) + "." +
                         std::to_string(key.step_id) + " of run " + runText(run) +
                         " is stale: node " + opts_.node_name + " runs its run " +
                         runText(it->second.run));
      case RunOrder::kLater:
        // The previous run's supervisor reported its end (that is why the controller
        // relaunched) and is still exiting: start the new run beside it, which now owns the
        // step's record.
        log().info("[J{}.{}] run {} starts while the supervisor pid {} of run {} exits",
                   key.job_id, key.step_id, runText(run), it->second.pid,
                   runText(it->second.run));
        break;
    }
  } else if (endedLately(key, run)) {
    log().info("[J{}.{}] run {} already ran here and ended: not started again", key.job_id,
               key.step_id, runText(run));
    return Launched{0, true};
  }
  SpawnSpec spec;
  spec.program = opts_.stepd_path;
  spec.args = {"--spool", opts_.spool_dir, "--node", opts_.node_name};
  if (!opts_.munge_socket.empty()) {
    spec.args.insert(spec.args.end(), {"--munge-socket", opts_.munge_socket});
  }
  if (auto groups = this->groupsArgument(request)) {
    spec.args.insert(spec.args.end(), {"--groups", *groups});
  }
  if (!opts_.report_to.empty()) {
    spec.args.insert(spec.args.end(), {"--report-to", opts_.report_to});
  }
  if (!request.SerializeToString(&spec.stdin_bytes)) {
    return makeError("cannot serialize the launch request");
  }
  spec.log_path = stepLogPath(opts_.spool_dir, key);
  Result<pid_t> pid = makeError("no supervisor launcher");
  if (launcher_) {
    pid = launcher_->launch(spec, [this](pid_t p) { return children_.count(p) > 0; });
    if (!pid) {
      log().warn("[J{}.{}] {}; starting drover-stepd with exec", key.job_id, key.step_id,
                 pid.error());
    }
  }
  if (!pid) pid = spawnSupervisor(spec);
  if (!pid) return makeError(pid.error());
  children_.insert(*pid);
  StepRecord record{key, *pid, processStartTicks(*pid).value_or(0), run};
  steps_[key] = record;
  if (auto written = writeStepRecord(opts_.spool_dir, record); !written) {
    // The step runs; only a restarted agent would not find it again. Say so, do not fail it.
    log().error("[J{}.{}] {}", key.job_id, key.step_id, written.error());
  }
  log().info("[J{}.{}] started supervisor pid {} (uid {})", key.job_id, key.step_id, *pid,
             request.uid());
  return Launched{*pid};
}

SignalOutcome StepTable::signal(const v1::StepId& step, int signal, bool batch_shell_only,
                                bool kill, std::string* error, int kill_reason) {
  const StepKey key = keyOf(step);
  const RunNumber run = runOf(step);
  auto it = steps_.find(key);
  if (it == steps_.end() || !isRunningSupervisor(it->second)) {
    if (it != steps_.end()) forget(key);
    *error = "step " + std::to_string(key.job_id) + "." + std::to_string(key.step_id) +
             " does not run on node " + opts_.node_name;
    return SignalOutcome::kNotFound;
  }
  const pid_t pid = it->second.pid;
  if (compareRuns(run, it->second.run) == RunOrder::kEarlier) {
    // Meant for the run before a requeue: that run is gone from here, and this one is not
    // the sender's to stop. (A signal for a later run than this supervisor's reaches it: the
    // step's older run is on its way out anyway.)
    *error = "step " + std::to_string(key.job_id) + "." + std::to_string(key.step_id) +
             " of run " + runText(run) + " does not run on node " + opts_.node_name +
             " (its run " + runText(it->second.run) + " does)";
    log().info("[J{}.{}] {} for run {} ignored: supervisor pid {} runs run {}", key.job_id,
               key.step_id, kill ? std::string("cancel") : "signal " + std::to_string(signal),
               runText(run), pid, runText(it->second.run));
    return SignalOutcome::kStale;
  }
  sigval value{};
  value.sival_int =
      kill ? kill_reason : signal | (batch_shell_only ? stepd::kBatchShellOnlyFlag : 0);
  const int rc = ::sigqueue(pid, kill ? SIGTERM : SIGRTMIN, value);
  if (rc != 0) {
    *error = "cannot signal supervisor pid " + std::to_string(pid) + ": " + std::strerror(errno);
    return errno == ESRCH ? SignalOutcome::kNotFound : SignalOutcome::kFailed;
  }
  log().info("[J{}.{}] {} sent to supervisor pid {}", key.job_id, key.step_id,
             kill ? std::string("cancel") : "signal " + std::to_string(signal), pid);
  return SignalOutcome::kSent;
}

// nullopt when the supervisor will not change user (agent not root, or uid 0).
std::optional<std::string> StepTable::groupsArgument(const v1::LaunchStepRequest& request) {
  if (::geteuid() != 0 || request.uid() == 0) return std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  auto key = std::make_pair(request.user(), static_cast<gid_t>(request.gid()));
  auto it = groups_cache_.find(key);
  if (it != groups_cache_.end() && now - it->second.looked_up < kGroupsCacheTtl) {
    return it->second.groups;
  }
  std::string groups = lookUpGroups(request.user(), request.gid());
  groups_cache_[std::move(key)] = CachedGroups{now, groups};
  return groups;
}

std::vector<pid_t> StepTable::waitChildren() {
  std::vector<pid_t> ended;
  for (auto it = children_.begin(); it != children_.end();) {
    int status = 0;
    const pid_t r = ::waitpid(*it, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) {
      ++it;
      continue;
    }
    ended.push_back(*it);
    it = children_.erase(it);   // reaped, or not ours to wait for (ECHILD)
  }
  return ended;
}

void StepTable::reapChildren() {
  if (launcher_) launcher_->reapIfEnded();
  for (pid_t pid : waitChildren()) {
    // The step's record may already name a newer run's supervisor: only the reaped pid goes.
    std::optional<StepKey> ended;
    for (const auto& [key, record] : steps_) {
      if (record.pid == pid) ended = key;
    }
    if (ended) forget(*ended);
  }
}

void StepTable::reap() {
  if (launcher_) launcher_->reapIfEnded();
  waitChildren();
  std::vector<StepKey> ended;
  for (const auto& [key, record] : steps_) {
    if (!isRunningSupervisor(record)) ended.push_back(key);
  }
  for (const auto& key : ended) forget(key);
}

void StepTable::forget(const StepKey& key) {
  auto it = steps_.find(key);
  if (it == steps_.end()) return;
  log().info("[J{}.{}] supervisor pid {} ended", key.job_id, key.step_id, it->second.pid);
  if (it->second.run) ended_.add(key, *it->second.run);
  steps_.erase(it);
  removeStepRecord(opts_.spool_dir, key);
  const std::string log_path = stepLogPath(opts_.spool_dir, key);
  struct stat st {};
  if (::stat(log_path.c_str(), &st) == 0 && st.st_size == 0) ::unlink(log_path.c_str());
}

bool StepTable::endedLately(const StepKey& key, RunNumber run) {
  return run && ended_.contains(key, *run);
}

std::vector<StepRecord> StepTable::running() const {
  std::vector<StepRecord> records;
  for (const auto& [key, record] : steps_) records.push_back(record);
  return records;
}

std::optional<pid_t> StepTable::pidOf(const StepKey& key) const {
  auto it = steps_.find(key);
  if (it == steps_.end()) return std::nullopt;
  return it->second.pid;
}

std::optional<StepRecord> StepTable::find(const StepKey& key) const {
  auto it = steps_.find(key);
  if (it == steps_.end()) return std::nullopt;
  return it->second;
}

}  // namespace drover::agent
