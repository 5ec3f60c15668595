#pragma once
// How many jobs the job manager has taken in, started and ended since the process started:
// the figures sdiag prints ("Jobs submitted: ..."). The controller keeps their values at the
// last `sdiag -r` and reports the difference (ctld/diag_stats.h).
#include <cstdint>

namespace drover::jobs {

struct LifecycleCounts {
  std::uint64_t submitted = 0;  // accepted submissions (an array counts once; --test-only never)
  std::uint64_t started = 0;    // every start, a requeued job's next run included
  std::uint64_t completed = 0;  // ended COMPLETED
  std::uint64_t canceled = 0;   // ended CANCELLED, pending or running
  std::uint64_t failed = 0;     // ended any other way: FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY...
};

}  // namespace drover::jobs
