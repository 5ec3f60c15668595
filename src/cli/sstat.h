#pragma once
// The sstat command: the usage so far of running jobs' steps (Controller.GetStepStats, which
// asks the steps' nodes), printed by src/acct/report/sstat_format. Parsing is pure, for tests.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "acct/report/sstat_format.h"
#include "drover/result.h"

namespace drover::cli {

// One -j item: "12" (the lowest numbered step, or every step with -a), "12.3", "12.batch".
struct SstatTarget {
  std::uint64_t job_id = 0;
  std::optional<std::int64_t> step_id;   // -5 = batch, -4 = extern
};

struct SstatCommand {
  std::vector<SstatTarget> targets;
  bool all_steps = false;                // -a
  std::vector<acct::report::Column> columns;
  acct::report::SstatOptions render;
  bool helpformat = false;
  bool help = false;
  bool usage = false;
  bool version = false;
};

// A -j item as Slurm's sstat reads it; errors are its "fatal" texts ("Bad job/step specified:
// abc", "Bad step specified: 12").
Result<SstatTarget> parseSstatTarget(const std::string& text);

// An error here is printed "sstat: error: <it>", exit 1; Slurm's fatal item errors carry
// their own "fatal: " label (printSstatParseError).
Result<SstatCommand> parseSstatArgs(const std::vector<std::string>& args);

int runSstat(int argc, char** argv);

}  // namespace drover::cli
