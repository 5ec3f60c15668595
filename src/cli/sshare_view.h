#pragma once
// sshare's output: the fair-share tree as Slurm 22.05 prints it (Account indented by depth,
// fixed-width columns each followed by a space, a dashed line under the header), long (-l) and
// parsable (-p, -P) forms.
#include <string>

#include "drover/v1/priority.pb.h"

namespace drover::cli {

struct SshareOptions {
  bool long_format = false;
  bool no_header = false;
  bool parsable = false;     // -p: '|' after every field
  bool parsable2 = false;    // -P: '|' between fields
  bool users_only = false;   // -U
};

std::string renderSshare(const SshareOptions& options, const v1::GetSharesReply& reply);

}  // namespace drover::cli
