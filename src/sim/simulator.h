#pragma once
// Replays an SWF trace in virtual time through the very same sched::schedule() the controller
// uses. Event-driven like the controller: every instant with a submission or a completion gets
// one pass (events at the same second are coalesced). Jobs run their trace run time, cut at
// their requested time as a time limit would.
#include <cstdint>
#include <string>
#include <vector>

#include "drover/result.h"
#include "sched/types.h"
#include "sim/swf.h"

namespace drover::sim {

struct SimConfig {
  int nodes = 0;
  int cpusPerNode = 1;
  sched::SchedulerParams params;
  bool strict = true;  // a job larger than the machine is an error, else skipped and listed
};

struct JobRecord {
  int64_t id = 0;
  int64_t submit = 0;
  int64_t start = 0;
  int64_t end = 0;
  int64_t runtime = 0;
  int64_t procs = 0;
  int64_t requestedTime = 0;
  int nodes = 0;
  std::vector<int> placement;  // positions of its nodes in the simulated machine, ascending
};

struct SimMetrics {
  int64_t jobs = 0;
  double utilization = 0;  // processor-seconds used / (processors x (last end - first submit))
  double meanWaitS = 0;
  int64_t maxWaitS = 0;
  double meanBoundedSlowdown = 0;  // mean of max(1, (wait + run) / max(run, 10 s))
  double meanResponseS = 0;        // wait + run ("flow time")
  int64_t makespanS = 0;
  int64_t passes = 0;
  int64_t backfilled = 0;  // jobs that started while a job ahead of them in the queue waited
};

struct SimResult {
  std::vector<JobRecord> jobs;  // in start order
  SimMetrics metrics;
  std::vector<std::string> problems;  // jobs skipped, each naming its trace line
};

Result<SimResult> simulate(const SwfTrace& trace, const SimConfig& config);

// Metrics of finished records; exposed for tests.
SimMetrics computeMetrics(const std::vector<JobRecord>& jobs, int64_t totalProcs);

}  // namespace drover::sim
