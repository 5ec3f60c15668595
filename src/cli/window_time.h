#pragma once
// A report window's end point as sacct -S/-E, sreport start=/end= and sacctmgr's start=/end=
// read it: Slurm's time specs placed as a window's (a time of day means today even when it
// has passed, a date without a year this year). Pure: `now` is a parameter.
#include <cstdint>
#include <string>

#include "drover/result.h"

namespace drover::cli {

// Midnight (local time) of the day holding `now`.
std::int64_t localMidnight(std::int64_t now);

// The error is Slurm's "Invalid time specification (pos=N): TEXT".
Result<std::int64_t> parseWindowTime(const std::string& text, std::int64_t now);

}  // namespace drover::cli
