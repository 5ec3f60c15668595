#pragma once
// Standard Workload Format traces (Parallel Workloads Archive): one job per line, 18 fields,
// ';' header comments. Parsing is separate from simulation so the simulator stays a pure loop.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "drover/result.h"

namespace drover::sim {

struct SwfJob {
  int64_t id = 0;
  int64_t submit = 0;
  int64_t runtime = 0;       // actual run time [s]
  int64_t procs = 0;         // requested processors, else allocated
  int64_t requestedTime = 0;  // user's estimate [s], else the run time
  int64_t user = -1;
  int64_t partition = -1;
  int line = 0;  // 1-based line in the file, for messages
};

struct SwfTrace {
  std::vector<SwfJob> jobs;
  int64_t maxNodes = 0;  // from the header, 0 if absent
  int64_t maxProcs = 0;
  int notRun = 0;                     // lines of jobs that never ran (run time <= 0)
  std::vector<std::string> problems;  // skipped bad lines, each naming its line
};

struct SwfOptions {
  bool strict = true;  // a bad line is an error; otherwise it is skipped and listed in problems
  std::string name = "trace";  // used in messages
};

Result<SwfTrace> parseSwf(std::istream& in, const SwfOptions& options);

}  // namespace drover::sim
