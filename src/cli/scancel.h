#pragma once
// The scancel command: ids (123, 123_4, 123_[1-3], 123.0) and filters (-u -n -t -p -w -A),
// --signal, --batch, --full, -v, with Slurm's messages and exit codes (golden 020-021, 066,
// 100-104). Parsing and the reporting of results are pure, for tests.
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/jobs.pb.h"

namespace drover::cli {

struct ScancelCommand {
  v1::CancelJobsRequest request;
  bool verbose = false;
  bool quiet = false;
  bool interactive = false;
  bool help = false;
  bool usage = false;
  bool version = false;
};

Result<ScancelCommand> parseScancelArgs(const std::vector<std::string>& args);

// What scancel prints on stderr and exits with for the controller's per-job results.
struct ScancelReport {
  std::string stderr_text;
  int exit_code = 0;
};
ScancelReport reportScancel(const ScancelCommand& command, const v1::CancelJobsReply& reply);

int runScancel(int argc, char** argv);

}  // namespace drover::cli
