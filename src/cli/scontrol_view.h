#pragma once
// scontrol's record printing: `show node` and `show partition`, multi-line (fields on indented
// lines, a blank line after each record) or one line per record (-o/--oneliner), as Slurm 22.05.
#include <string>
#include <vector>

#include "drover/v1/types.pb.h"

namespace drover::cli {

// Joins a record's lines: "\n   " between lines and a blank line after it; or, one-line, a
// single space between lines and one newline at the end. Every `show` but show job's.
std::string joinRecord(const std::vector<std::string>& lines, bool oneliner);

std::string formatNodeRecord(const v1::NodeInfo& node, bool oneliner);
std::string formatPartitionRecord(const v1::PartitionInfo& part, bool oneliner);

}  // namespace drover::cli
