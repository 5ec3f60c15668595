#include "stepd/usage_sampler.h"

#include <unistd.h>

namespace drover::stepd {

void UsageSampler::sample(const std::vector<ProcStat>& processes) {
  const long page_kb = sysconf(_SC_PAGESIZE) / 1024;
  std::uint64_t total = 0;
  for (const ProcStat& p : processes) {
    const bool ours = (pgid_ > 0 && p.process_group == pgid_) || (session_ > 0 && p.session == session_);
    if (ours && p.rss_pages > 0) total += static_cast<std::uint64_t>(p.rss_pages * page_kb);
  }
  if (total > max_kb_) max_kb_ = total;
  total_kb_ += total;
  ++samples_;
}

}  // namespace drover::stepd
