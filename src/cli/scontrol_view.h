#pragma once
// scontrol's record printing: `show node` and `show partition`, multi-line (fields on indented
// lines, a blank line after each record) or one line per record (-o/--oneliner), as Slurm 22.05.
#include <string>

#include "drover/v1/types.pb.h"

namespace drover::cli {

std::string formatNodeRecord(const v1::NodeInfo& node, bool oneliner);
std::string formatPartitionRecord(const v1::PartitionInfo& part, bool oneliner);

}  // namespace drover::cli
