#include "jobs/live_job_counts.h"

#include "jobs/job.h"

namespace drover::jobs {
namespace {

template <typename Map, typename Key>
void addTo(Map& map, const Key& key, int delta) {
  auto& n = map[key];
  n = static_cast<std::uint32_t>(static_cast<std::int64_t>(n) + delta);
  if (n == 0) map.erase(key);
}

template <typename Map, typename Key>
std::uint32_t countIn(const Map& map, const Key& key) {
  auto it = map.find(key);
  return it == map.end() ? 0 : it->second;
}

}  // namespace

void LiveJobCounts::add(const LiveKey& key, int delta) {
  addTo(by_qos_, key.qos, delta);
  addTo(by_account_, std::make_pair(key.qos, key.account), delta);
  addTo(by_user_, std::make_pair(key.qos, key.uid), delta);
}

void LiveJobCounts::sync(std::optional<LiveKey>& counted, const v1::JobInfo& info) {
  std::optional<LiveKey> now;
  if (!isFinal(info.state())) now = LiveKey{info.qos(), info.account(), info.uid()};
  if (counted == now) return;
  if (counted) add(*counted, -1);
  if (now) add(*now, +1);
  counted = std::move(now);
}

void LiveJobCounts::forget(std::optional<LiveKey>& counted) {
  if (counted) add(*counted, -1);
  counted.reset();
}

QosLimits::Submitted LiveJobCounts::of(const std::string& qos, const std::string& account,
                                       std::uint32_t uid) const {
  QosLimits::Submitted s;
  s.qos = countIn(by_qos_, qos);
  s.account = countIn(by_account_, std::make_pair(qos, account));
  s.user = countIn(by_user_, std::make_pair(qos, uid));
  return s;
}

void LiveJobCounts::clear() {
  by_qos_.clear();
  by_account_.clear();
  by_user_.clear();
}

}  // namespace drover::jobs
