#pragma once
// Values derived from JobInfo that squeue, scontrol and sbatch print the same way: job id text (29_0, 29_[2-9%2]), Slurm's duration styles, TRES reordering.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/v1/jobs.pb.h"
#include "jobstate/job_state.h"  // state names and codes

namespace drover::cli {

bool isActiveState(v1::JobState state);  // pending, running, suspended, completing

// "28", "29_0", "29_[2-9%2]" (pending remainder of an array).
std::string jobIdText(const v1::JobInfo& job);
// Array task id column: "N/A", "0", "2-9%2".
std::string arrayTaskText(const v1::JobInfo& job);
// True when the text names this job: "28", "29" (any of the array), "29_0", "36" (task's own id).
bool jobMatchesId(const v1::JobInfo& job, std::string_view id);

// squeue's TIME style: 0:00, 9:39, 1:00:00, 1-00:00:00.
std::string formatSqueueDuration(std::int64_t seconds);
// squeue's TIME_LIMIT: minutes, "UNLIMITED" for -1, "N/A"? never (0 = partition default shown as is).
std::string formatSqueueLimit(std::int64_t minutes);
// scontrol's HH:MM:SS / D-HH:MM:SS.
std::string formatScontrolDuration(std::int64_t seconds);
std::string formatScontrolLimit(std::int64_t minutes);  // 00:10:00, UNLIMITED

// The priority Slurm shows: 0 for a held job (scontrol hold sets it to 0 there, pending or
// running; release restores it), else the job's own (scontrol Priority=, squeue %Q, sort -p).
std::int64_t shownPriority(const v1::JobInfo& job);
// squeue's %p and -O Priority: the priority as a fraction of 2^32, 14 decimals
// ("0.00000238232315" for 10232), as the reference printed it.
std::string normalizedPriority(const v1::JobInfo& job);
// The reason code Slurm keeps (squeue --json state_reason): a pending job's own; a held job that
// runs JobHeldUser or JobHeldAdmin, another running one None; a job that ended FAILED with a
// non-zero exit code and no other reason NonZeroExitCode, as the reference's (golden 073), one
// a signal ended JobLaunchFailure.
std::string jobReasonCode(const v1::JobInfo& job);
// The reason squeue shows (%r, %R): a pending job's description when it has one (Slurm's
// state_desc: "job requeued in held state"), else its code.
std::string jobReasonText(const v1::JobInfo& job);
// scontrol show job's Reason=: jobReasonText with its spaces as '_', as the reference's.
std::string scontrolReasonText(const v1::JobInfo& job);

// Seconds the job has run (now - start for a running job, else run_time_s).
std::int64_t jobRunTime(const v1::JobInfo& job, std::int64_t now);
// End time as Slurm shows it: the recorded end, or for a pending job with an expected start
// that start plus its time limit (scontrol's EndTime, squeue's %e; golden 071, 087); 0 if none.
std::int64_t jobEndTime(const v1::JobInfo& job);

// "gres:gpu:8" from the request (--gres / --gpus-per-node), "" when none.
std::string tresPerNode(const v1::JobInfo& job);
// Memory a job asks for: {"4000M", per_cpu=true}; {"0", false} when none.
struct MinMemory {
  std::string text;
  bool per_cpu = false;
};
MinMemory minMemory(const v1::JobInfo& job);

// A TRES string in any order ("billing=4,cpu=4,gres/gpu=4,mem=16000M,node=2") in scontrol's
// order (cpu, mem, node, billing, gres/...) with memory in Slurm's units (187.50G).
std::string scontrolTres(std::string_view tres);

// Expands an array task expression "2-9%2", "1,3,5-7:2" into ids (the %N limit is dropped).
std::vector<std::uint32_t> expandArrayTasks(std::string_view text);

}  // namespace drover::cli
