#pragma once
// Which run of a job a step message belongs to. A requeued job (node failure, scontrol
// requeue, a job its node lost) runs again under the same job id and the same step ids, so a
// message meant for the previous run (a kill sent to its nodes, its supervisor's late end
// report, a launch retried after the requeue) looks exactly like one for the new run. The
// job's restart count (Slurm's SLURM_RESTART_COUNT, scontrol's Restarts=) tells the runs apart:
// the controller names it in every StepId it sends (v1::StepId.restart_count), the agent keeps
// it with each step (and in its step records), the supervisor echoes it in its StepEvents.
//
// A message or record that names no run comes from a sender (or a spool) older than the field:
// it is accepted as before, as belonging to whatever run is current. Run 0 is the first run,
// not "unknown", which is why the run is optional here and `optional` on the wire.
#include <cstdint>
#include <optional>

namespace drover {

using RunNumber = std::optional<std::uint32_t>;

enum class RunOrder {
  kUnknown,   // either side names no run
  kEarlier,   // the message is about an earlier run than the current one: stale
  kSame,
  kLater,     // the message is about a later run (the current one is the stale side)
};

// How the run a message names compares with the run held now (the job's, or the step's).
constexpr RunOrder compareRuns(RunNumber message, RunNumber current) {
  if (!message || !current) return RunOrder::kUnknown;
  if (*message < *current) return RunOrder::kEarlier;
  return *message == *current ? RunOrder::kSame : RunOrder::kLater;
}

// The controller's test for a step's report (StepEvent) or a launch's outcome: only the job's
// current run may end or fail it. A later run than the job's cannot exist (the count is
// committed before a run is launched), so it is refused as well.
constexpr bool isOtherRun(RunNumber message, std::uint32_t job_run) {
  const RunOrder order = compareRuns(message, job_run);
  return order == RunOrder::kEarlier || order == RunOrder::kLater;
}

}  // namespace drover
