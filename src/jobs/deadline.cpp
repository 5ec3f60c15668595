#include "jobs/deadline.h"

#include <algorithm>

namespace drover::jobs {

std::optional<std::int64_t> latestStart(const v1::JobInfo& job) {
  const std::int64_t deadline = job.spec().deadline();
  if (deadline <= 0) return std::nullopt;
  std::int64_t needed_min = job.spec().time_min_min();
  if (needed_min <= 0) needed_min = job.time_limit_min() < 0 ? 1 : job.time_limit_min();
  return deadline - needed_min * 60;
}

std::int64_t limitWithinDeadline(const v1::JobInfo& job, std::int64_t now) {
  const std::int64_t limit = job.time_limit_min();
  const std::int64_t deadline = job.spec().deadline();
  if (deadline <= 0) return limit;
  const std::int64_t left_min = std::max<std::int64_t>(0, deadline - now) / 60;
  return limit < 0 ? left_min : std::min(limit, left_min);
}

}  // namespace drover::jobs
