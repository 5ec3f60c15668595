#pragma once
// sshare's output: the fair-share tree as Slurm 22.05 prints it (Account indented by depth,
// fixed-width columns each followed by a space, a dashed line under the header), long (-l),
// chosen (-o) and parsable (-p, -P) forms.
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"
#include "drover/v1/priority.pb.h"

namespace drover::cli {

// One -o item, "Name[%WIDTH]": the field by name (any case; a beginning of a name picks the
// first field, in --helpformat's order, that starts so, as Slurm's sshare), and its width:
// 0 = the field's own width and side, > 0 right-justified, < 0 left-justified.
struct SshareColumnChoice {
  std::string field;   // the field's full name, as its header prints it
  int width = 0;
};

struct SshareOptions {
  bool long_format = false;
  bool no_header = false;
  bool parsable = false;     // -p: '|' after every field
  bool parsable2 = false;    // -P: '|' between fields
  bool users_only = false;   // -U
  std::vector<SshareColumnChoice> columns;  // -o; empty = the default columns, or -l's
  std::string cluster_name;                 // the Cluster column's value
};

// -o's text: comma-separated items (empty ones skipped). An unknown name is Slurm's
// `Invalid field requested: "NAME"`.
Result<std::vector<SshareColumnChoice>> parseSshareFormat(std::string_view text);

// Whether the columns these options print include Cluster (only then is the config read).
bool sshareShowsCluster(const SshareOptions& options);

// --helpformat: the field names, four to a line.
std::string sshareHelpFormat();

std::string renderSshare(const SshareOptions& options, const v1::GetSharesReply& reply);

}  // namespace drover::cli
