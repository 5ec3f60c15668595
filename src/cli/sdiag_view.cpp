#include "cli/sdiag_view.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <vector>

namespace drover::cli {
namespace {

// "Wed Dec 02 01:38:41 2026 (1796175521)".
std::string when(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %d %H:%M:%S %Y", &tm);
  return std::string(text) + " (" + std::to_string(t) + ")";
}

std::uint64_t average(const v1::RpcCallStats& row) {
  return row.count() == 0 ? 0 : row.total_us() / row.count();
}

// Stable, so rows that tie keep the controller's order (first seen first), as Slurm's do.
std::vector<const v1::RpcCallStats*> sorted(
    const google::protobuf::RepeatedPtrField<v1::RpcCallStats>& rows, SdiagSort sort) {
  std::vector<const v1::RpcCallStats*> out;
  for (const auto& row : rows) out.push_back(&row);
  std::stable_sort(out.begin(), out.end(), [sort](const auto* a, const auto* b) {
    switch (sort) {
      case SdiagSort::kId: return a->id() < b->id();
      case SdiagSort::kTotalTime: return a->total_us() > b->total_us();
      case SdiagSort::kAveTime: return average(*a) > average(*b);
      case SdiagSort::kCount: break;
    }
    return a->count() > b->count();
  });
  return out;
}

void line(std::string& out, const char* format, auto... values) {
  char text[512];
  std::snprintf(text, sizeof text, format, values...);
  out += text;
}

}  // namespace

std::string renderSdiag(const v1::GetStatisticsReply& s, SdiagSort sort) {
  std::string out;
  const std::string stars(55, '*');
  out += stars + "\n";
  out += "sdiag output at " + when(s.time()) + "\n";
  out += "Data since      " + when(s.data_since()) + "\n";
  out += stars + "\n";
  line(out, "Server thread count:  %u\n", s.server_threads());
  line(out, "Agent queue size:     %u\n", s.agent_queue_size());
  line(out, "Agent count:          %u\n", s.agent_count());
  line(out, "Agent thread count:   %u\n", s.agent_thread_count());
  line(out, "DBD Agent queue size: %u\n\n", s.dbd_agent_queue_size());

  line(out, "Jobs submitted: %" PRIu64 "\n", s.jobs_submitted());
  line(out, "Jobs started:   %" PRIu64 "\n", s.jobs_started());
  line(out, "Jobs completed: %" PRIu64 "\n", s.jobs_completed());
  line(out, "Jobs canceled:  %" PRIu64 "\n", s.jobs_canceled());
  line(out, "Jobs failed:    %" PRIu64 "\n\n", s.jobs_failed());

  out += "Job states ts:  " + when(s.job_states_time()) + "\n";
  line(out, "Jobs pending:   %u\n", s.jobs_pending());
  line(out, "Jobs running:   %u\n\n", s.jobs_running());

  out += "Main schedule statistics (microseconds):\n";
  line(out, "\tLast cycle:   %" PRIu64 "\n", s.schedule_last_us());
  line(out, "\tMax cycle:    %" PRIu64 "\n", s.schedule_max_us());
  line(out, "\tTotal cycles: %" PRIu64 "\n", s.schedule_cycles());
  if (s.schedule_cycles() > 0) {
    line(out, "\tMean cycle:   %" PRIu64 "\n", s.schedule_total_us() / s.schedule_cycles());
    line(out, "\tMean depth cycle:  %" PRIu64 "\n", s.schedule_depth_total() / s.schedule_cycles());
    // Per whole minute since the counters started, once there is one.
    const std::int64_t elapsed = s.time() - s.data_since();
    if (elapsed > 60) {
      line(out, "\tCycles per minute: %" PRIu64 "\n",
           s.schedule_cycles() / static_cast<std::uint64_t>(elapsed / 60));
    }
  }
  line(out, "\tLast queue length: %u\n\n", s.schedule_last_queue());

  out += "Backfilling stats\n";
  line(out, "\tTotal backfilled jobs (since last slurm start): %" PRIu64 "\n",
       s.backfilled_since_start());
  line(out, "\tTotal backfilled jobs (since last stats cycle start): %" PRIu64 "\n",
       s.backfilled_since_reset());
  out += "\tTotal backfilled heterogeneous job components: 0\n";
  line(out, "\tTotal cycles: %" PRIu64 "\n", s.backfill_cycles());
  out += "\tLast cycle when: " + when(s.backfill_last_when()) + "\n";
  // The means follow their figures once a cycle has run (Slurm prints them only then).
  const std::uint64_t cycles = s.backfill_cycles();
  line(out, "\tLast cycle: %" PRIu64 "\n", s.backfill_last_us());
  line(out, "\tMax cycle:  %" PRIu64 "\n", s.backfill_max_us());
  if (cycles > 0) line(out, "\tMean cycle: %" PRIu64 "\n", s.backfill_total_us() / cycles);
  line(out, "\tLast depth cycle: %u\n", s.backfill_last_depth());
  line(out, "\tLast depth cycle (try sched): %u\n", s.backfill_last_depth_tried());
  if (cycles > 0) {
    line(out, "\tDepth Mean: %" PRIu64 "\n", s.backfill_depth_total() / cycles);
    line(out, "\tDepth Mean (try depth): %" PRIu64 "\n", s.backfill_depth_tried_total() / cycles);
  }
  line(out, "\tLast queue length: %u\n", s.backfill_last_queue());
  if (cycles > 0) line(out, "\tQueue length mean: %" PRIu64 "\n", s.backfill_queue_total() / cycles);
  // Slurm's time slots of its backfill table; Drover's plan keeps no such table.
  out += "\tLast table size: 0\n";
  if (cycles > 0) out += "\tMean table size: 0\n";
  out += "\n";

  line(out, "Latency for 1000 calls to gettimeofday(): %u microseconds\n\n",
       s.gettimeofday_latency_us());

  out += "Remote Procedure Call statistics by message type\n";
  for (const auto* row : sorted(s.rpc_types(), sort)) {
    line(out, "\t%-40s(%5u) count:%-6" PRIu64 " ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
         row->name().c_str(), row->id(), row->count(), average(*row), row->total_us());
  }
  out += "\nRemote Procedure Call statistics by user\n";
  for (const auto* row : sorted(s.rpc_users(), sort)) {
    line(out, "\t%-16s(%8u) count:%-6" PRIu64 " ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
         row->name().c_str(), row->id(), row->count(), average(*row), row->total_us());
  }
  out += "\nPending RPC statistics\n";
  out += "\tNo pending RPCs\n";
  return out;
}

}  // namespace drover::cli
