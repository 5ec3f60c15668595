#include "jobs/live_jobs.h"

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

void LiveJobs::add(const LiveKey& key, int delta) {
  addTo(by_qos_, key.qos, delta);
  addTo(by_account_, std::make_pair(key.qos, key.account), delta);
  addTo(by_user_, std::make_pair(key.qos, key.uid), delta);
  const auto name = std::make_pair(key.uid, key.name);
  auto& places = by_name_[name];
  if (delta > 0) {
    places.emplace(key.job_id, key.id);
  } else {
    places.erase({key.job_id, key.id});
  }
  if (places.empty()) by_name_.erase(name);
}

void LiveJobs::sync(Job& job) {
  std::optional<LiveKey> now;
  if (!isFinal(job.state())) {
    now = LiveKey{job.info.qos(), job.info.account(), job.info.uid(), job.info.name(),
                  job.info.job_id(), job.id()};
  }
  if (job.live == now) return;
  if (job.live) add(*job.live, -1);
  if (now) add(*now, +1);
  job.live = std::move(now);
}

void LiveJobs::forget(Job& job) {
  if (job.live) add(*job.live, -1);
  job.live.reset();
}

QosLimits::Submitted LiveJobs::submitted(const std::string& qos, const std::string& account,
                                         std::uint32_t uid) const {
  QosLimits::Submitted s;
  s.qos = countIn(by_qos_, qos);
  s.account = countIn(by_account_, std::make_pair(qos, account));
  s.user = countIn(by_user_, std::make_pair(qos, uid));
  return s;
}

const std::set<LiveJobs::Place>& LiveJobs::named(std::uint32_t uid, const std::string& name) const {
  static const std::set<Place> none;
  auto it = by_name_.find(std::make_pair(uid, name));
  return it == by_name_.end() ? none : it->second;
}

void LiveJobs::clear() {
  by_qos_.clear();
  by_account_.clear();
  by_user_.clear();
  by_name_.clear();
}

}  // namespace drover::jobs
