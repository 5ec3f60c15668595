#pragma once
// Jobs ordered by a time at which the controller must act on them (an allocation's end, the
// last moment a job can start), kept up to date one job at a time so acting on what is due
// never walks the job table.
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "jobs/job.h"

namespace drover::jobs {

class TimeIndex {
 public:
  // The job's time (0: none, the job leaves the index).
  void set(JobId id, std::int64_t at) {
    auto old = at_.find(id);
    if (old != at_.end()) {
      if (old->second == at) return;
      order_.erase({old->second, id});
      at_.erase(old);
    }
    if (at == 0) return;
    order_.emplace(at, id);
    at_.emplace(id, at);
  }
  // Takes out and returns a job whose time is at or before `now`, if any.
  std::optional<JobId> takeDue(std::int64_t now) {
    if (order_.empty() || order_.begin()->first > now) return std::nullopt;
    const JobId id = order_.begin()->second;
    order_.erase(order_.begin());
    at_.erase(id);
    return id;
  }
  // The earliest time held (0: none).
  std::int64_t next() const { return order_.empty() ? 0 : order_.begin()->first; }
  bool contains(JobId id) const { return at_.count(id) != 0; }

 private:
  std::set<std::pair<std::int64_t, JobId>> order_;
  std::unordered_map<JobId, std::int64_t> at_;
};

}  // namespace drover::jobs
