#include "ctld/diag_stats.h"

#include <sys/time.h>

#include <algorithm>
#include <chrono>

#include "ctld/rpc_ids.h"

namespace drover::ctld {

DiagStats::Call DiagStats::rpcStarted(std::int64_t now_us) {
  ++in_flight_;
  return Call{now_us};
}

void DiagStats::rpcEnded(const Call& call, std::string_view method, std::uint32_t uid,
                         std::int64_t now_us) {
  if (in_flight_ > 0) --in_flight_;
  const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(0, now_us - call.start_us));
  auto m = method_index_.find(std::string(method));
  if (m == method_index_.end()) {
    m = method_index_.emplace(std::string(method), methods_.size()).first;
    methods_.emplace_back(std::string(method), Totals{});
  }
  Totals& by_method = methods_[m->second].second;
  ++by_method.count;
  by_method.total_us += us;
  auto u = user_index_.find(uid);
  if (u == user_index_.end()) {
    u = user_index_.emplace(uid, users_.size()).first;
    users_.emplace_back(uid, Totals{});
  }
  Totals& by_user = users_[u->second].second;
  ++by_user.count;
  by_user.total_us += us;
}

void DiagStats::passRan(std::uint64_t us, std::uint32_t depth, std::uint32_t queue) {
  pass_last_us_ = us;
  pass_max_us_ = std::max(pass_max_us_, us);
  ++passes_;
  pass_total_us_ += us;
  pass_depth_total_ += depth;
  pass_last_queue_ = queue;
}

void DiagStats::backfillRan(const BackfillCycle& cycle) {
  backfill_last_ = cycle;
  backfilled_since_start_ += cycle.started;
  backfilled_ += cycle.started;
  ++backfill_cycles_;
  backfill_max_us_ = std::max(backfill_max_us_, cycle.us);
  backfill_total_us_ += cycle.us;
  backfill_depth_total_ += cycle.depth;
  backfill_tried_total_ += cycle.tried;
  backfill_queue_total_ += cycle.queue;
}

void DiagStats::reset(std::int64_t now, const jobs::LifecycleCounts& jobs) {
  since_ = now;
  jobs_at_reset_ = jobs;
  methods_.clear();
  method_index_.clear();
  users_.clear();
  user_index_.clear();
  pass_max_us_ = 0;
  passes_ = 0;
  pass_total_us_ = 0;
  pass_depth_total_ = 0;
  pass_last_queue_ = 0;
  backfilled_ = 0;
  backfill_cycles_ = 0;
  backfill_max_us_ = 0;
  backfill_total_us_ = 0;
  backfill_depth_total_ = 0;
  backfill_tried_total_ = 0;
  backfill_queue_total_ = 0;
}

void DiagStats::fill(const jobs::LifecycleCounts& jobs,
                     const std::function<std::string(std::uint32_t)>& user_name,
                     v1::GetStatisticsReply* out) const {
  out->set_data_since(since_);
  out->set_server_threads(in_flight_);
  out->set_jobs_submitted(jobs.submitted - jobs_at_reset_.submitted);
  out->set_jobs_started(jobs.started - jobs_at_reset_.started);
  out->set_jobs_completed(jobs.completed - jobs_at_reset_.completed);
  out->set_jobs_canceled(jobs.canceled - jobs_at_reset_.canceled);
  out->set_jobs_failed(jobs.failed - jobs_at_reset_.failed);
  out->set_schedule_last_us(pass_last_us_);
  out->set_schedule_max_us(pass_max_us_);
  out->set_schedule_cycles(passes_);
  out->set_schedule_total_us(pass_total_us_);
  out->set_schedule_depth_total(pass_depth_total_);
  out->set_schedule_last_queue(pass_last_queue_);
  out->set_backfilled_since_start(backfilled_since_start_);
  out->set_backfilled_since_reset(backfilled_);
  out->set_backfill_cycles(backfill_cycles_);
  out->set_backfill_last_when(backfill_last_.when);
  out->set_backfill_last_us(backfill_last_.us);
  out->set_backfill_max_us(backfill_max_us_);
  out->set_backfill_total_us(backfill_total_us_);
  out->set_backfill_last_depth(backfill_last_.depth);
  out->set_backfill_last_depth_tried(backfill_last_.tried);
  out->set_backfill_depth_total(backfill_depth_total_);
  out->set_backfill_depth_tried_total(backfill_tried_total_);
  out->set_backfill_last_queue(backfill_last_.queue);
  out->set_backfill_queue_total(backfill_queue_total_);
  out->set_gettimeofday_latency_us(gettimeofday_latency_us_);
  for (const auto& [method, totals] : methods_) {
    const RpcId id = rpcId(method);
    v1::RpcCallStats* row = out->add_rpc_types();
    row->set_name(std::string(id.name));
    row->set_id(id.id);
    row->set_count(totals.count);
    row->set_total_us(totals.total_us);
  }
  for (const auto& [uid, totals] : users_) {
    v1::RpcCallStats* row = out->add_rpc_users();
    row->set_name(user_name(uid));
    row->set_id(uid);
    row->set_count(totals.count);
    row->set_total_us(totals.total_us);
  }
}

std::int64_t steadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint32_t gettimeofdayLatencyUs() {
  const auto start = std::chrono::steady_clock::now();
  struct timeval tv {};
  for (int i = 0; i < 1000; ++i) gettimeofday(&tv, nullptr);
  const auto took = std::chrono::steady_clock::now() - start;
  return static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(took).count());
}

}  // namespace drover::ctld
