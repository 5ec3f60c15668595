#pragma once
// The agent's record of the step supervisors (drover-stepd) it started, kept in memory by the
// agent and on disk in the spool dir, one small file per step, so a restarted agent finds its
// running steps again (DESIGN.md: an agent restart never kills running work).
//
// Spool layout (<spool> = droverd --spool-dir, one per node):
//   <spool>/steps/<job>.<step>.rec   "<job> <step> <pid> <start ticks> <run>": the agent's
//                                    record; <run> is the job's restart count the step was
//                                    launched for (common/step_run.h), absent in records
//                                    written before it was kept (its run is then unknown)
//   <spool>/steps/<job>.<step>.log   drover-stepd's stdout and stderr
//   <spool>/job<job>.script          the batch script (written by drover-stepd, removed at
//                                    the batch step's end)
//   <spool>/launcher.log             the supervisor launcher's stdout and stderr
//   <spool>/ended_runs               the runs that ended here lately (ended_runs.h)
// <step> is the wire number: -5 = batch, -4 = extern, >= 0 numbered.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/step_run.h"
#include "drover/result.h"

namespace drover::agent {

struct StepKey {
  std::uint64_t job_id = 0;
  std::int64_t step_id = 0;
  auto operator<=>(const StepKey&) const = default;
};

struct StepRecord {
  StepKey key;
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;   // /proc/<pid>/stat field 22: tells a reused pid apart
  // The run of the job this supervisor was started for; kept on disk so that a restarted agent
  // still tells a stale signal (for an earlier run) from one for this run.
  RunNumber run;
};

// The record file's one line, and back; nullopt for a line that is not a record.
std::string formatStepRecord(const StepRecord& record);
std::optional<StepRecord> parseStepRecord(const std::string& line);

// "<spool>/steps/<job>.<step>.rec" and ".log".
std::string stepRecordPath(const std::string& spool_dir, const StepKey& key);
std::string stepLogPath(const std::string& spool_dir, const StepKey& key);
std::string launcherLogPath(const std::string& spool_dir);

// The process's start time in clock ticks since boot; nullopt when it does not exist.
std::optional<std::uint64_t> processStartTicks(pid_t pid);

// Whether `record` still names a live (not zombie) drover-stepd started at its start time.
bool isRunningSupervisor(const StepRecord& record);

// Writes the record atomically (temp file + rename).
Status writeStepRecord(const std::string& spool_dir, const StepRecord& record);
void removeStepRecord(const std::string& spool_dir, const StepKey& key);

// Every record in the spool dir whose supervisor still runs; records of ended ones are removed
// (and, when `ended` is given, added to it: their runs ended while no agent watched).
std::vector<StepRecord> loadRunningSteps(const std::string& spool_dir,
                                         std::vector<StepRecord>* ended = nullptr);

}  // namespace drover::agent
