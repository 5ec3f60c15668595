#pragma once
// sreport's reports as text, laid out as Slurm 22.05's: the dashed header block (title, window,
// units), then a field table (cli/field_table) or its parsable forms. The numbers come from
// the controller's usage sums and the cluster's capacity given here. Pure, for tests.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cli/sreport_args.h"
#include "cli/sreport_usage.h"

namespace drover::cli::sreport {

struct ReportData {
  std::string cluster;
  Window window;
  UsageSums usage;   // the controller's sums for this report (QueryUsage)
  AccountParents parents;
  // cluster.conf's accounts in the file's order: sibling accounts are listed in it, as
  // sacctmgr's and sshare's trees list them (config/association_tree.h); others after, by name.
  std::vector<std::string> account_order;
  std::map<std::string, double> capacity;   // the cluster's TRES counts: cpu=64, gres/gpu=32, ...
  std::function<std::string(const std::string&)> proper_name;   // login -> Proper Name ("")
};

struct Rendered {
  std::string out, err;
  int exit_code = 0;
};

Rendered renderReport(const ReportRequest& request, const Options& options, const ReportData& data);

// One value as sreport prints it: whole units (rounded), a percentage of `total`, or both.
std::string formatUsage(double tres_seconds, double total, const TimeFormat& time);

}  // namespace drover::cli::sreport
