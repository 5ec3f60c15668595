#pragma once
// The sshare command: options as Slurm's (docs/cli-compatibility.md), output from sshare_view.
#include <string>
#include <vector>

#include "cli/sshare_view.h"
#include "drover/result.h"

namespace drover::cli {

struct SshareCommand {
  SshareOptions options;
  std::vector<std::string> accounts;
  std::vector<std::string> users;
  bool all_users = false;
  bool help = false;
  bool usage = false;
  bool help_format = false;   // --helpformat
  bool version = false;
};

// argv[0] excluded.
Result<SshareCommand> parseSshareArgs(const std::vector<std::string>& args);

int runSshare(int argc, char** argv);

}  // namespace drover::cli
