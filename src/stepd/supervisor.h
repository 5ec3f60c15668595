#pragma once
// The step supervisor: one process per job step on a node (DESIGN.md). It owns the step's
// tasks, so restarting the agent never touches running work. It enforces the time limit
// locally (the --signal warning, SIGTERM at the limit, SIGKILL after the kill wait), forwards
// signals, measures usage and returns the outcome for the controller.
//
// Signals the supervisor understands (the agent sends them):
//   SIGTERM / SIGINT   cancel the step: SIGCONT + SIGTERM to every task, SIGKILL after kill wait
//   SIGRTMIN + value   deliver signal (value & 0xff) to the tasks; bit 0x100 = batch shell only
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drover/v1/jobs.pb.h"
#include "stepd/cpu_clock.h"
#include "stepd/memory_cgroup.h"
#include "stepd/signal_values.h"
#include "stepd/task_usage.h"

namespace drover::stepd {

// Step ids on the wire, as include/drover/accounting.h numbers them.
inline constexpr std::int64_t kBatchStepId = -5;

struct StepOutcome {
  bool started = false;
  std::string start_error;          // why the step could not start (output file, exec, ...)
  int exit_code = 0;                // highest task exit code
  int exit_signal = 0;              // signal that ended a task, if any
  bool timed_out = false;
  bool cancelled = false;
  bool out_of_memory = false;       // the kernel OOM-killed a task in the step's memory cgroup
  std::uint64_t user_cpu_ms = 0;
  std::uint64_t system_cpu_ms = 0;
  std::uint64_t max_rss_kb = 0;
  std::uint64_t ave_rss_kb = 0;
  std::int64_t start_time = 0;
  std::int64_t end_time = 0;
  std::vector<TaskFigures> tasks;   // each task's usage (task_usage.h), in rank order
};

struct SupervisorOptions {
  std::string spool_dir;            // where the batch script is written
  std::string node_name;
  int usage_sample_ms = 2000;
  // Where steps' memory cgroups are made (memory_cgroup.h); empty = /sys/fs/cgroup.
  std::string cgroup_mount;
  // What the supervisor launcher found once for all its supervisors; unset = found per step.
  // A root found gone (its directory removed since) is looked for again.
  std::optional<CgroupRoot> memory_cgroup_root;
  const CpuClock* cpu_clock = nullptr;
  // The user's supplementary groups from the agent (drover-stepd --groups); unset = looked up
  // with getgrouplist, which a statically linked supervisor cannot do (task_spawn.h).
  std::optional<std::vector<gid_t>> groups;
};

// Blocks the signals the supervisor handles; call once, before any thread starts.
void blockSupervisorSignals();

// Runs the step to completion. `on_started` is called with the first task's pid.
StepOutcome runStep(const drover::v1::LaunchStepRequest& request, const SupervisorOptions& opts,
                    const std::function<void(int pid)>& on_started = {});

// Scripts are written to <spool>/job<ID>.script, owned by the user, mode 0700, and removed
// when the batch step ends.
std::string batchScriptPath(const std::string& spool_dir, std::uint64_t job_id);

}  // namespace drover::stepd
