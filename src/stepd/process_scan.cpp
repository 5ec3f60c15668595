#include "stepd/process_scan.h"

#include <signal.h>

#include "common/proc_stat.h"

namespace drover::stepd {

void signalSession(pid_t session, int sig) {
  if (session <= 0) return;
  for (const ProcStat& p : readAllProcStats()) {
    if (p.session == session) kill(p.pid, sig);
  }
}

}  // namespace drover::stepd
