#pragma once
// One srun step inside a running job: listen for the step's I/O (src/stepio), CreateStep, then
// stream output, stdin and signals until every task has exited, as Slurm's srun:
//   first SIGINT   "srun: interrupt (one more within 1 sec to abort)", the running tasks
//                  listed, SIGINT forwarded to every task
//   second SIGINT  within 1 s (or the first with --quit-on-interrupt): "srun: forcing job
//                  termination", the step is killed (SIGKILL over the I/O stream and
//                  CancelJobs "JOB.STEP"); a third ends srun at once
//   SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT  forwarded to every task
// and a line per task that did not exit 0 ("srun: error: node1: task 1: Exited with exit
// code 3"). -K ends the step at the first non-zero exit; -W N ends it N s after the first.
// --pty: task 0 gets a pseudo-terminal of the size of srun's terminal (srun_terminal.h), which
// is raw until task 0 ends, so typed keys (Ctrl-C included) reach the task's terminal as
// bytes; SIGWINCH sends the new size; output is unbuffered.
#include <cstdint>

#include "cli/controller_client.h"
#include "cli/srun_signals.h"
#include "drover/v1/jobs.pb.h"
#include "jobspec/job_spec.h"

namespace drover::cli {

// Returns srun's exit status (the highest task exit code, 128+signal for a signalled task;
// 1 when the step could not be created). An srun that made the job's allocation
// (`owns_allocation`) also asks the controller every few seconds for scontrol notify's
// messages, as salloc does.
int runStep(ControllerClient& client, const jobspec::JobSpec& options, v1::StepSpec spec,
            SignalWatch& signals, bool owns_allocation);

// The address of this host that reaches the controller (the step's nodes reach srun there);
// empty when unknown.
std::string localAddressToward(const std::string& host, std::uint16_t port);

}  // namespace drover::cli
