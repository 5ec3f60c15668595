#include "sim/report.h"

#include <nlohmann/json.hpp>

namespace drover::sim {

std::string metricsJson(const SimResult& r, const ReportInfo& info) {
  const SimMetrics& m = r.metrics;
  nlohmann::ordered_json j;
  j["trace"] = info.trace;
  j["policy"] = info.policy;
  j["nodes"] = info.nodes;
  j["cpus_per_node"] = info.cpusPerNode;
  j["jobs"] = m.jobs;
  j["utilization"] = m.utilization;
  j["mean_wait_s"] = m.meanWaitS;
  j["max_wait_s"] = m.maxWaitS;
  j["mean_bounded_slowdown"] = m.meanBoundedSlowdown;
  j["bounded_slowdown_tau_s"] = 10;
  j["mean_response_s"] = m.meanResponseS;
  j["makespan_s"] = m.makespanS;
  j["backfilled_jobs"] = m.backfilled;
  j["scheduling_passes"] = m.passes;
  j["skipped_jobs"] = r.problems.size();
  j["wall_s"] = info.wallSeconds;
  return j.dump();
}

void writeCsv(std::ostream& out, const SimResult& r) {
  out << "job_id,submit,start,end,wait_s,run_s,procs,nodes,requested_s\n";
  for (const JobRecord& j : r.jobs) {
    out << j.id << ',' << j.submit << ',' << j.start << ',' << j.end << ',' << (j.start - j.submit)
        << ',' << j.runtime << ',' << j.procs << ',' << j.nodes << ',' << j.requestedTime << '\n';
  }
}

}  // namespace drover::sim
