#pragma once
// What every Drover CLI shares: the version line and Slurm-style error reporting.
#include <string>
#include <string_view>
#include <vector>

namespace drover::cli {

// `--version` / `-V`: Slurm prints "slurm 22.05.8"; Drover names itself.
inline constexpr std::string_view kVersionLine = "drover 0.1.0";

// "<prog>: error: <message>" on stderr, as Slurm's commands print errors.
void printError(std::string_view prog, std::string_view message);

// Splits "a,b,c" (empty items dropped).
std::vector<std::string> splitCommas(std::string_view text);

}  // namespace drover::cli
