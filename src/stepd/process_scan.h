#pragma once
// The processes of a step found by their process group or session in /proc: for its memory
// samples (usage_sampler.h) and, for srun --pty, for signalling the task's whole session,
// whose shell puts each of its jobs in a process group of its own.
#include <sys/types.h>

#include <functional>

namespace drover::stepd {

struct ProcessEntry {
  pid_t pid = 0;
  pid_t process_group = 0;
  pid_t session = 0;
  long rss_pages = 0;
};

// Calls `visit` for every process whose /proc/PID/stat could be read.
void forEachProcess(const std::function<void(const ProcessEntry&)>& visit);

// Sends `sig` to every process of session `session` (a pid > 0; the session leader included).
void signalSession(pid_t session, int sig);

}  // namespace drover::stepd
