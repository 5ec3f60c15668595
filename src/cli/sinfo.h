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

// argv[0] excluded. SINFO_PARTITION is the caller's (runSinfo). -o or -O with -l is an error
// (kFormatWithLong), as in Slurm.
Result<SinfoCommand> parseSinfoArgs(const std::vector<std::string>& args);

// SINFO_FORMAT stands for -o when the command line gives neither -o nor -O; unlike squeue's
// SQUEUE_FORMAT it also applies with -l (Slurm's sinfo prints -l's date line above it).
void applyEnvironmentFormat(SinfoOptions& options);

int runSinfo(int argc, char** argv);

}  // namespace drover::cli
