#pragma once
// The scancel command: ids (123, 123_4, 123_[1-3], 123.0) and filters (-u -n -t -p -w -A),
// --signal, --batch, --full, -v, with Slurm's messages and exit codes (golden 020-021, 066,
// 100-104). Parsing and the reporting of results are pure, for tests.
#include <iosfwd>
#include <set>
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
// `running_jobs`: ids of jobs still running whose named step the controller did not know
// (the reference reported those apart).
struct ScancelReport {
  std::string stderr_text;
  int exit_code = 0;
};
ScancelReport reportScancel(const ScancelCommand& command, const v1::CancelJobsReply& reply,
                            const std::set<std::string>& running_jobs = {});

// -i: asks on `out` about each job (or step) the dry run said the call would act on, in order,
// as the reference did ("Cancel job_id=7029 name=one partition=gpu [y/n]? ", "Cancel
// step_id=7034.0 ..."): a line beginning with y or Y confirms, n or N declines, anything else
// asks again. At the end of `in` the rest are declined (the reference asked again for ever).
// Returns the confirmed ids as the dry run showed them.
std::vector<std::string> confirmEach(const v1::CancelJobsReply& would, std::istream& in,
                                     std::ostream& out);

int runScancel(int argc, char** argv);

}  // namespace drover::cli
