#pragma once
// The sprio command: options as Slurm's (docs/cli-compatibility.md), output from sprio_view.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/sprio_view.h"
#include "drover/result.h"

namespace drover::cli {

struct SprioCommand {
  SprioOptions options;
  std::vector<std::uint64_t> job_ids;
  std::vector<std::string> users;
  std::vector<std::string> partitions;
  bool help = false;
  bool usage = false;
  bool version = false;
};

// argv[0] excluded; SPRIO_FORMAT is the caller's (runSprio).
Result<SprioCommand> parseSprioArgs(const std::vector<std::string>& args);

int runSprio(int argc, char** argv);

}  // namespace drover::cli
