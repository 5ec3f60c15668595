#pragma once
// The salloc command: an interactive allocation (srun_allocation.h), then the command (default:
// the user's shell) run here with the job's variables (salloc_env.h), so srun inside it runs
// steps of the job; at its exit "salloc: Relinquishing job allocation N", CompleteAllocation
// with its exit code, and salloc exits with that code. SIGINT is left to the command (an
// interactive shell); the other signals are forwarded to it. When the job ends under it
// (scancel, time limit) salloc prints "salloc: Job allocation N has been revoked." and sends
// the command SIGHUP.
#include <chrono>
#include <optional>

namespace drover::cli {

int runSalloc(int argc, char** argv);

// Whether salloc rings the terminal bell as its allocation is granted (salloc(1)): only when
// its stdout is a terminal; with --bell always, with --no-bell never, and by default when the
// allocation was pending for more than ten seconds.
bool ringsBell(std::optional<bool> bell, bool stdout_is_terminal,
               std::chrono::steady_clock::duration pending);

}  // namespace drover::cli
