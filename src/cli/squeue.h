#pragma once
// The squeue command: options as Slurm's (docs/cli-compatibility.md), output from squeue_view.
#include <string>
#include <string_view>
#include <vector>

#include "cli/squeue_view.h"
#include "drover/result.h"

namespace drover::cli {

struct SqueueCommand {
  SqueueOptions options;
  bool help = false;
  bool usage = false;
  bool version = false;
};

// argv[0] excluded; SQUEUE_SORT etc. are the caller's (runSqueue). -o with -l, and -o with -O,
// are errors, as in Slurm.
Result<SqueueCommand> parseSqueueArgs(const std::vector<std::string>& args);

// SQUEUE_FORMAT and SQUEUE_FORMAT2 stand for -o and -O when the command line gives none of
// -o, -O and -l (Slurm's -l wins over them, where the line's -o with -l is an error).
void applyEnvironmentFormats(SqueueOptions& options);

int runSqueue(int argc, char** argv);

}  // namespace drover::cli
