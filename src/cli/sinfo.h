#pragma once
// The sinfo command: options as Slurm's (see docs/cli-compatibility.md), output from
// sinfo_view, data from the controller.
#include <string>
#include <vector>

#include "cli/sinfo_view.h"
#include "drover/result.h"

namespace drover::cli {

struct SinfoCommand {
  SinfoOptions options;
  bool help = false;
  bool usage = false;
  bool version = false;
};

// argv[0] excluded. Environment defaults (SINFO_FORMAT, SINFO_PARTITION) are the caller's.
Result<SinfoCommand> parseSinfoArgs(const std::vector<std::string>& args);

int runSinfo(int argc, char** argv);

}  // namespace drover::cli
