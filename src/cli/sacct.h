#pragma once
// The sacct command: options into an acct::AcctFilter (with Slurm's defaults), the query over
// the controller (QueryAccounting), and output from src/acct/report. Parsing is pure, for tests.
#include <cstdint>
#include <string>
#include <vector>

#include "acct/report/size_units.h"
#include "cli/sacct_filters.h"
#include "acct/report/sacct_format.h"
#include "drover/accounting.h"
#include "drover/config.h"
#include "drover/result.h"

namespace drover::cli {

struct SacctCommand {
  acct::AcctFilter filter;
  std::vector<std::string> group_names;  // -g's names: the controller's to resolve
  bool all_users = false;  // -a
  std::vector<acct::report::Column> columns;
  acct::report::RenderOptions render;
  acct::report::SizeUnits sizes;  // --units, --noconvert
  SacctRecordFilter records;      // -q -i -I -k -K -R -W -C -F -x, applied to what the query returned
  bool truncate = false;          // -T: start and end cut to the window
  bool json = false;
  bool yaml = false;               // --yaml: the --json document as Slurm's YAML
  bool batch_script = false;       // -B: each job's script, where kept
  bool env_vars = false;           // --env-vars: each job's environment, where kept
  bool helpformat = false;
  bool help = false;
  bool usage = false;
  bool version = false;
};

// `now` fixes "today" for the -S default; `uid` is the caller (non-root users see their own jobs
// unless -a or -u). -u and -g names are not looked up here: the controller does, and refuses a
// name nobody has in the reference's words.
Result<SacctCommand> parseSacctArgs(const std::vector<std::string>& args, std::int64_t now,
                                    std::uint32_t uid);

// -q's names as cluster.conf's QOS table has them (any case in, the table's spelling out); a
// name it lacks is refused in the reference's words, naming the valid ones.
Status checkSacctQos(SacctCommand& cmd, const config::ClusterConfig& config);

int runSacct(int argc, char** argv);

}  // namespace drover::cli
