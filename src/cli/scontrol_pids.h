#pragma once
// scontrol listpids and pidinfo: the processes of the job steps running on this host's node
// (or on a node named), as the reference Slurm 22.05 prints them. Slurm's scontrol asks the
// local slurmd; Drover's CLIs speak only to the controller, which asks the node's agent, and
// the agent the step's supervisor (the chain sstat uses).
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "drover/v1/controller.pb.h"

namespace drover::cli {

// listpids' JOB[.STEP] argument: every job ("*" or none), one job, or one step of it (a number,
// "batch" or "extern").
struct PidsTarget {
  std::uint64_t job_id = 0;              // 0 = every job
  std::optional<std::int64_t> step_id;
};
// The reference's complaint about the argument: `"X" does not look like a jobid` (exit 1) or
// `... a stepid` (about_step: the reference then printed the empty table and exit 0).
struct PidsTargetError {
  std::string message;
  bool about_step = false;
};
std::variant<PidsTarget, PidsTargetError> parsePidsTarget(const std::string& word);

// The table: the reference's header, then for each step and each of its tasks (in rank order,
// the local id being the task's place on the node) the task's pid and then its descendants'
// with "-" ids.
std::string pidsTable(const v1::ListPidsReply& reply);

// pidinfo's two lines for the job whose step holds the process: its end (ctime's layout, in
// local time) and the seconds left until then.
std::string pidInfoLines(std::uint64_t job_id, std::int64_t end_time, std::int64_t now);

int cmdListPids(const std::vector<std::string>& words);
int cmdPidInfo(const std::vector<std::string>& words);

}  // namespace drover::cli
