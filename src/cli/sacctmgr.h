#pragma once
// The sacctmgr command: Slurm's options, its listing commands over the account tree of
// cluster.conf (sacctmgr_view), interactive mode when no command is given. Changes (add,
// modify, delete, ...) are refused: Drover's associations are edited in cluster.conf.
#include <string>
#include <vector>

#include "cli/field_table.h"
#include "drover/result.h"

namespace drover::cli {

struct SacctmgrCommand {
  TableStyle style;
  bool with_assoc = false;   // -s
  bool help = false;
  bool usage = false;
  bool version = false;
  std::vector<std::string> words;   // the command; empty = read commands from stdin
};

// argv[0] excluded.
Result<SacctmgrCommand> parseSacctmgrArgs(const std::vector<std::string>& args);

int runSacctmgr(int argc, char** argv);

}  // namespace drover::cli
