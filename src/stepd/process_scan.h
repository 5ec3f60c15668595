#pragma once
// Signalling a --pty task's whole session: its shell puts each of its jobs in a process group
// of its own, so the step's process group alone would miss them. Found in /proc
// (common/proc_stat.h).
#include <sys/types.h>

namespace drover::stepd {

// Sends `sig` to every process of session `session` (a pid > 0; the session leader included).
void signalSession(pid_t session, int sig);

}  // namespace drover::stepd
