#pragma once
// The sdiag command: options as Slurm's (docs/cli-compatibility.md), the report from
// sdiag_view.h, `-r` resetting the controller's counters.
#include <string>
#include <vector>

#include "cli/sdiag_view.h"
#include "drover/result.h"

namespace drover::cli {

struct SdiagCommand {
  SdiagSort sort = SdiagSort::kCount;
  bool reset = false;
  std::string cluster;  // -M: accepted when it names this cluster
  bool help = false;
  bool usage = false;
  bool version = false;
};

// argv[0] excluded.
Result<SdiagCommand> parseSdiagArgs(const std::vector<std::string>& args);

int runSdiag(int argc, char** argv);

}  // namespace drover::cli
