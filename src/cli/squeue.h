#pragma once
// The squeue command: options as Slurm's (docs/cli-compatibility.md), output from squeue_view.
#include <string>
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

// argv[0] excluded; SQUEUE_FORMAT / SQUEUE_SORT etc. are the caller's (runSqueue).
Result<SqueueCommand> parseSqueueArgs(const std::vector<std::string>& args);

int runSqueue(int argc, char** argv);

}  // namespace drover::cli
