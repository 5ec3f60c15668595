#pragma once
// What sdiag reports about the controller itself (Slurm's slurmctld statistics): every RPC's
// count and time, by method and by user; the scheduling passes; and the job manager's
// lifecycle counters as of the last reset, so the reply gives the jobs since then. Owned by
// CtldState and used on the state thread only (the handlers run there, and so does the
// pass), so no lock. No clock reads: callers pass the times, so tests drive it directly.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "drover/v1/controller.pb.h"
#include "jobs/lifecycle_counts.h"

namespace drover::ctld {

class DiagStats {
 public:
  // `since`: the controller's start (Unix seconds), sdiag's first "Data since".
  explicit DiagStats(std::int64_t since) : since_(since) { backfill_last_.when = since; }

  // An RPC began at `now_us` (a steady clock's microseconds); pass what this returns to
  // rpcEnded. A call is counted when it ends, so sdiag -r's own call is the first one counted
  // after the reset, as in Slurm's sdiag (golden/sdiag/sdiag-after-reset.txt).
  struct Call {
    std::int64_t start_us = 0;
  };
  Call rpcStarted(std::int64_t now_us);
  void rpcEnded(const Call& call, std::string_view method, std::uint32_t uid,
                std::int64_t now_us);
  // RPCs started and not yet answered (waiting for a commit, an agent...).
  std::uint32_t inFlight() const { return in_flight_; }

  // One scheduling pass: how long it took, the pending jobs it looked at, the queue it had.
  void passRan(std::uint64_t us, std::uint32_t depth, std::uint32_t queue);
  // A pass that went past a blocked job (Drover's backfill runs inside the pass, so its time is
  // the pass's): when (Unix seconds), how long, the jobs it started past blocked ones, the jobs
  // it looked at past them and tried to start, and the queue it had.
  struct BackfillCycle {
    std::int64_t when = 0;
    std::uint64_t us = 0;
    std::uint32_t started = 0, depth = 0, tried = 0, queue = 0;
  };
  void backfillRan(const BackfillCycle& cycle);

  // sdiag -r: everything counted starts again from `now`, the job counters from `jobs`. The
  // last pass's time stays (Slurm's "Last cycle" survives a reset too).
  void reset(std::int64_t now, const jobs::LifecycleCounts& jobs);

  // The counters into `out`: jobs as `jobs` minus their values at the last reset, RPC rows in
  // the order their methods and users were first seen, users named by `user_name`.
  void fill(const jobs::LifecycleCounts& jobs,
            const std::function<std::string(std::uint32_t)>& user_name,
            v1::GetStatisticsReply* out) const;

  std::int64_t since() const { return since_; }
  void setGettimeofdayLatency(std::uint32_t us) { gettimeofday_latency_us_ = us; }

 private:
  struct Totals {
    std::uint64_t count = 0;
    std::uint64_t total_us = 0;
  };
  std::int64_t since_;
  std::uint32_t in_flight_ = 0;
  jobs::LifecycleCounts jobs_at_reset_;
  std::vector<std::pair<std::string, Totals>> methods_;  // first seen first
  std::unordered_map<std::string, std::size_t> method_index_;
  std::vector<std::pair<std::uint32_t, Totals>> users_;
  std::unordered_map<std::uint32_t, std::size_t> user_index_;
  std::uint64_t pass_last_us_ = 0;
  std::uint64_t pass_max_us_ = 0;
  std::uint64_t passes_ = 0;
  std::uint64_t pass_total_us_ = 0;
  std::uint64_t pass_depth_total_ = 0;
  std::uint32_t pass_last_queue_ = 0;
  // Backfill: the last cycle survives a reset (as the pass's), the rest counts from it; jobs
  // backfilled also count from the controller's start.
  BackfillCycle backfill_last_;
  std::uint64_t backfilled_since_start_ = 0;
  std::uint64_t backfilled_ = 0;
  std::uint64_t backfill_cycles_ = 0;
  std::uint64_t backfill_max_us_ = 0;
  std::uint64_t backfill_total_us_ = 0;
  std::uint64_t backfill_depth_total_ = 0;
  std::uint64_t backfill_tried_total_ = 0;
  std::uint64_t backfill_queue_total_ = 0;
  std::uint32_t gettimeofday_latency_us_ = 0;
};

// A steady clock in microseconds: what RPC times are measured with.
std::int64_t steadyMicros();

// Microseconds that 1000 calls of gettimeofday() take here: sdiag's "Latency for 1000 calls to
// gettimeofday()", measured once at controller start as Slurm does.
std::uint32_t gettimeofdayLatencyUs();

}  // namespace drover::ctld
