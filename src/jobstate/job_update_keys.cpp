#include "jobstate/job_update_keys.h"

namespace drover {

bool isUpdatableJobKey(std::string_view key) {
  // JobManager::updateJob (src/jobs/control.cpp) reads each of these.
  for (std::string_view k : {"timelimit", "partition", "numnodes", "minnodes", "dependency", "nice",
                             "name", "jobname", "comment", "account", "excnodelist", "reqnodelist",
                             "nodelist", "features", "arraytaskthrottle", "qos", "starttime",
                             "begintime", "eligibletime", "numtasks", "cpuspertask",
                             "minmemorycpu", "minmemorynode", "gres", "trespernode", "timemin",
                             "requeue", "workdir", "stdout", "deadline"}) {
    if (key == k) return true;
  }
  return false;
}

}  // namespace drover
