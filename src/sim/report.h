#pragma once
// drover-sim's outputs: one JSON object of metrics, and per-job CSV records.
#include <ostream>
#include <string>

#include "sim/simulator.h"

namespace drover::sim {

struct ReportInfo {
  std::string trace;
  std::string policy;
  int nodes = 0;
  int cpusPerNode = 0;
  double wallSeconds = 0;
};

std::string metricsJson(const SimResult& result, const ReportInfo& info);
void writeCsv(std::ostream& out, const SimResult& result);

}  // namespace drover::sim
