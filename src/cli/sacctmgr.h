#pragma once
// The sacctmgr command, read-only: `list`/`show` of users, accounts and associations from the
// account tree of cluster.conf (docs/cli-compatibility.md). Changes are refused: Drover's
// accounts live in cluster.conf, changed by editing it and `scontrol reconfigure`.
#include <string>
#include <vector>

#include "cli/sacctmgr_view.h"
#include "drover/result.h"

namespace drover::cli {

struct SacctmgrCommand {
  SacctmgrQuery query;
  SacctmgrOutput output;
  bool list = false;          // a list/show command was given
  std::string refused_verb;   // add, delete, modify, ...: what Drover does not do here
  bool help = false;
  bool usage = false;
  bool version = false;
};

// argv[0] excluded. An error's text is what sacctmgr prints on stderr, whole.
Result<SacctmgrCommand> parseSacctmgrArgs(const std::vector<std::string>& args);

int runSacctmgr(int argc, char** argv);

}  // namespace drover::cli
