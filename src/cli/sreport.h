#pragma once
// The sreport command: Slurm's usage reports (cluster AccountUtilizationByUser,
// UserUtilizationByAccount, Utilization; user TopUsage; job SizesByAccount) over the job
// records the controller keeps, summed there (QueryUsage), and its nodes (GetNodes); with no
// command, interactive mode reads commands from stdin. Parsing and rendering are pure
// (sreport_args, sreport_query, sreport_usage, sreport_view); this file does the I/O.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/sreport_view.h"
#include "drover/result.h"

namespace drover::cli {

// What a report reads: the controller's usage sums and nodes and cluster.conf's account tree
// in the real command, data of their own in tests.
using SreportLoader =
    std::function<Result<sreport::ReportData>(const sreport::ReportRequest&, std::int64_t now)>;

struct SreportIo {
  std::istream& in;      // interactive mode's commands
  bool in_is_tty;
  std::ostream& out;
  std::ostream& err;
};

// The whole command (argv[1..] as `args`; `argv0` as getopt's complaints name it), at `now`.
int runSreportWith(const std::vector<std::string>& args, const std::string& argv0, std::int64_t now,
                   SreportIo io, const SreportLoader& load);

int runSreport(int argc, char** argv);

}  // namespace drover::cli
