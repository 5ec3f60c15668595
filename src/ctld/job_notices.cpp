#include "ctld/job_notices.h"

#include <algorithm>

namespace drover::ctld {

void JobNotices::add(std::uint64_t job_id, std::string message,
                     const std::function<bool(std::uint64_t)>& active) {
  if (message.size() > kMaxBytes) message.resize(kMaxBytes);
  auto& queue = by_job_[job_id];
  if (queue.size() == kMaxPerJob) queue.erase(queue.begin());
  queue.push_back(std::move(message));
  if (by_job_.size() < prune_at_) return;
  for (auto it = by_job_.begin(); it != by_job_.end();) {
    if (it->first != job_id && !active(it->first)) it = by_job_.erase(it);
    else ++it;
  }
  // Looked at again only once as many more jobs have messages: add() stays O(1) amortised.
  prune_at_ = std::max<std::size_t>(64, 2 * by_job_.size());
}

std::vector<std::string> JobNotices::take(std::uint64_t job_id) {
  auto it = by_job_.find(job_id);
  if (it == by_job_.end()) return {};
  std::vector<std::string> out = std::move(it->second);
  by_job_.erase(it);
  return out;
}

}  // namespace drover::ctld
