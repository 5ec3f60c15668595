#pragma once
// A report window's end point as sacct -S/-E and sreport start=/end= read it: Slurm's time
// specs (jobspec::parseBeginTime), except that a time of day means today even when it has
// passed (--begin would move it to tomorrow). Pure: `now` is a parameter.
#include <cstdint>
#include <string>

#include "drover/result.h"

namespace drover::cli {

// Midnight (local time) of the day holding `now`.
std::int64_t localMidnight(std::int64_t now);

// The error is parseBeginTime's, without the caller's wording.
Result<std::int64_t> parseWindowTime(const std::string& text, std::int64_t now);

}  // namespace drover::cli
