#pragma once
// The pre-forked supervisor launcher (drover-stepd --launcher): one long-lived drover-stepd per
// agent that forks each step's supervisor instead of droverd exec'ing drover-stepd per step.
// Every static process start on this VM pays glibc's CPUID cache detection (which traps to the
// hypervisor), exec and page faults (docs/performance.md, "Process start-up"); a fork of an
// already started drover-stepd pays none of it.
//
// The launcher reads launch orders (launcher_protocol.h) from `fd`, droverd's end of a socket
// pair. For each it forks a child that becomes exactly what an exec'd drover-stepd would be:
//   - a child of droverd, not of the launcher (clone3 with CLONE_PARENT, below), so droverd
//     gets its SIGCHLD, reaps it, and finds it after its own restart as it always did;
//   - the leader of a new session; every signal at its default disposition; the signal mask
//     exactly the set the supervisor handles (as droverd's posix_spawn sets it);
//   - stdin /dev/null (an exec'd one's stdin is the request, read to its end), stdout and
//     stderr the step's log (opened by the launcher, append, 0600), no other descriptor;
//   - droverd's environment, rlimits, umask and working directory as they were when droverd
//     started the launcher (droverd changes none of them afterwards).
// The child then runs `supervise` (drover-stepd's own main for one step) and exits with its
// code. The launcher answers each order with the child's pid, or why there is none.
#include <functional>

#include "drover/result.h"
#include "stepd/cpu_clock.h"
#include "stepd/launcher_protocol.h"
#include "stepd/memory_cgroup.h"

namespace drover::stepd {

// What every supervisor would otherwise probe for itself, found once by the launcher before
// it forks any: where steps' memory cgroups go, and how each CPU's clock is read.
struct LauncherFacts {
  CgroupRoot memory_cgroup_root = findMemoryCgroupRoot();
  CpuClock cpu_clock;
};

// Whether this kernel lets the launcher fork supervisors the way glibc's fork does (clone3,
// and PR_GET_TID_ADDRESS for the thread id glibc keeps): the launcher refuses to start
// otherwise, and droverd execs drover-stepd per step as before.
Status launcherSupported();

// Serves orders on `fd` until droverd closes it (returns 0) or the stream breaks (returns 2,
// having said why on stderr). `supervise` runs in each forked child, never in the launcher.
int runLauncher(int fd, const std::function<int(const LaunchOrder&)>& supervise);

}  // namespace drover::stepd
