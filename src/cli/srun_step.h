#pragma once
// srun's pure pieces: its parsed request (src/jobspec) as the controller's StepSpec and as the
// JobSpec of an allocation of its own, where its stdin goes, and Slurm's wording of srun's and
// salloc's errors. No I/O here, so all of it is unit-tested.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/v1/jobs.pb.h"
#include "jobspec/build_spec.h"
#include "stepio/step_io_server.h"

namespace drover::cli {

struct StepContext {
  std::map<std::string, std::string> environment;  // srun's whole environment
  std::string cwd;
  std::string host;
  int pid = 0;              // srun's own: scontrol show step's SrunHost:Pid
  std::string submit_line;  // "srun -N2 hostname"
  std::optional<v1::MultiProgram> multi_prog;  // --multi-prog: the file srun read and checked
};

// The job srun runs its step in: --jobid, else SLURM_JOB_ID (the input environment maps it
// to --jobid); none = srun gets an allocation first.
std::optional<std::uint64_t> allocationJobId(const jobspec::JobSpec& spec);

// The step's name: -J from the command line (SLURM_JOB_NAME is ignored inside an
// allocation, as Slurm), else the command's base name.
std::string stepName(const jobspec::StepRequest& request, bool inside_allocation);

v1::StepSpec toStepSpec(const jobspec::StepRequest& request, const StepContext& context,
                        std::uint64_t job_id, bool inside_allocation);

// The interactive allocation (SubmitJob with batch = false) srun or salloc asks for: the job
// options of the request, named after the command (`default_name` when there is none).
v1::JobSpec toAllocationSpec(const jobspec::StepRequest& request, const StepContext& context,
                             const std::string& default_name);

// srun --pty's request for task 0's terminal: its size (rows/cols 0 = unknown) and, in every
// task's environment as Slurm's srun sets them, SLURM_PTY_WIN_ROW/SLURM_PTY_WIN_COL (when
// known) and SLURM_PTY_PORT (Drover's resizes travel on the step's I/O stream, so it is that
// port; Slurm's is a socket of its own for them).
void setPtyRequest(v1::StepSpec& spec, std::uint16_t rows, std::uint16_t cols,
                   std::uint16_t io_port);

// -i/--input: "all" -> every task, "none" -> no task, a task number N -> task N only (task 0
// is the default); anything else is a per-task file pattern that goes into StepSpec.std_in,
// and srun sends nothing.
struct StdinPlan {
  stepio::StdinMode mode = stepio::StdinMode::kOneTask;
  std::uint32_t task = 0;
  std::optional<std::string> file_pattern;
};
StdinPlan stdinPlan(const jobspec::JobSpec& spec);

// "0-3,5,7-8" for Slurm's task lists in messages.
std::string compressRanks(std::vector<std::uint32_t> ranks);

// The lines for task ends srun heard together: one per node and outcome in the order each
// first came, its ranks compressed, as the reference's srun wrote them ("srun: error: node01:
// tasks 0-2: Exited with exit code 1"); ends that need no line are left out.
std::vector<std::string> taskEndLines(const std::vector<stepio::TaskEnd>& ends);

// A refused allocation, as srun/salloc print it (golden 008, 014, 015):
//   "srun: error: invalid partition specified: nosuch\n"
//   "srun: error: Unable to allocate resources: Invalid partition name specified\n"
// salloc's last line says "Job submit/allocate failed: " instead, as the reference's did.
std::string formatAllocFailure(std::string_view prog, const std::string& controller_message);

// "srun: error: Unable to create step for job 7: <why>\n"
std::string formatStepFailure(std::uint64_t job_id, const std::string& controller_message);

// srun's exit status for a step (stepio::srunExitCode), and the job's exit code and signal
// for CompleteAllocation: a status above 128 is a signal.
struct AllocationEnd {
  int exit_code = 0;
  int signal = 0;
};
AllocationEnd allocationEndOf(int status);

}  // namespace drover::cli
