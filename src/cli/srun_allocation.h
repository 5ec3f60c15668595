#pragma once
// Getting an interactive allocation for srun (outside a job) and salloc: SubmitJob with
// batch = false, then AwaitAllocation until it runs, with Slurm's messages:
//   srun:   "srun: job 7 queued and waiting for resources" / "srun: job 7 has been allocated
//           resources" (only when it had to wait)
//   salloc: "salloc: Pending job allocation 7", the same two lines, then always
//           "salloc: Granted job allocation 7"
// -I/--immediate[=secs] gives up after secs (1 when none is given: the reference decided at
// once, Drover gives the scheduler's pass that second), cancels the job and prints what the
// reference printed: "Unable to allocate resources: Requested nodes are busy" (srun; salloc
// with a bare -I, then "salloc: Job allocation 7 has been revoked."), or for salloc -I N the
// revoked line, then "Unable to allocate resources: Connection timed out". A bare -I prints no
// "queued" lines.
// SIGINT/SIGTERM/SIGHUP while waiting cancel the request.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/controller_client.h"
#include "cli/srun_signals.h"
#include "cli/srun_step.h"
#include "drover/v1/jobs.pb.h"
#include "jobspec/build_spec.h"
#include "jobspec/command_line.h"

namespace drover::cli {

// What srun and salloc know before they talk to the controller: the parsed request and the
// process it came from (environment, directory, host, command line).
struct LaunchInput {
  jobspec::StepRequest request;
  StepContext context;
};

// The input, or the exit status to end with: a parse error was printed, or --help, --usage or
// --version answered.
struct ParsedLaunch {
  std::optional<LaunchInput> input;
  int exit_code = 0;
};

// tool is Srun or Salloc (their option tables and input variables differ).
ParsedLaunch parseLaunch(jobspec::Tool tool, int argc, char** argv, std::string_view help,
                         std::string_view usage);

struct AllocationRequest {
  std::string prog;                               // "srun" or "salloc"
  v1::JobSpec spec;
  std::optional<std::uint32_t> immediate_seconds;
  bool quiet = false;
};

struct Allocation {
  v1::JobInfo job;            // RUNNING, with its allocation
  std::string cluster_name;
  std::chrono::steady_clock::duration pending{};  // from the submission to the grant
};

// The allocation, or the exit status to end with (messages already printed).
struct AllocationResult {
  std::optional<Allocation> allocation;
  int exit_code = 1;
};

AllocationResult acquireAllocation(ControllerClient& client, const AllocationRequest& request,
                                   SignalWatch& signals);

// Cancels the whole job or one step ("7" or "7.0"); errors ignored (best effort at exit).
void cancelQuietly(ControllerClient& client, const std::string& id, int signal = 0);

// scontrol notify's messages in an AwaitAllocation reply, each as Slurm's clients print one:
// "PROG: MSG" on stderr.
void printNotices(std::string_view prog, const v1::AwaitAllocationReply& reply);

// The interactive allocation's state, asked without waiting (AwaitAllocation), which hands
// over the messages notified meanwhile too (printNotices); nullopt when the controller gave no
// answer within `timeout_ms` (0: the message timeout).
std::optional<v1::JobState> pollAllocation(ControllerClient& client, std::string_view prog,
                                           std::uint64_t job_id, int timeout_ms = 0);

// Whether the interactive allocation still runs (RUNNING or SUSPENDED), by pollAllocation. A
// controller that cannot be asked counts as "still runs"; one that no longer knows the job not.
bool allocationStillRuns(ControllerClient& client, std::string_view prog, std::uint64_t job_id);

// CompleteAllocation; a failure is printed, not fatal.
void releaseAllocation(ControllerClient& client, std::string_view prog, std::uint64_t job_id,
                       int exit_code, int exit_signal);

}  // namespace drover::cli
