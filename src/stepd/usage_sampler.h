#pragma once
// Memory use of a step, sampled from /proc: the resident set of every process in the step's
// process group (and, for srun --pty, in its task 0's session). AveRSS is the mean of the
// samples, MaxRSS the largest.
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "common/proc_stat.h"

namespace drover::stepd {

class UsageSampler {
 public:
  // 0 = none, for either.
  explicit UsageSampler(pid_t process_group, pid_t session = 0)
      : pgid_(process_group), session_(session) {}
  // One sample, from a walk of /proc the caller shares with the other samplers.
  void sample(const std::vector<ProcStat>& processes);
  std::uint64_t maxRssKb() const { return max_kb_; }
  std::uint64_t aveRssKb() const { return samples_ ? total_kb_ / samples_ : 0; }

 private:
  pid_t pgid_;
  pid_t session_;
  std::uint64_t max_kb_ = 0;
  std::uint64_t total_kb_ = 0;
  std::uint64_t samples_ = 0;
};

}  // namespace drover::stepd
