#pragma once
// Slurm's names for job states (v1::JobState on the wire): the long names squeue -l, scontrol
// and sacct print, the short codes of squeue's ST column, and parsing of either (-t filters).
// The controller and the CLIs both read and print states through these three functions.
#include <optional>
#include <string_view>

#include "drover/v1/jobs.pb.h"

namespace drover {

std::string_view jobStateName(v1::JobState state);       // "PENDING"
std::string_view jobStateShortName(v1::JobState state);  // "PD"
// Long name or short code, any case: "pending", "PD", "oom".
std::optional<v1::JobState> parseJobStateName(std::string_view text);

}  // namespace drover
