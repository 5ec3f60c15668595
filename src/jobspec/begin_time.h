#pragma once
// --begin: "now+60", "now+1hour", "16:00", "16:00:30", "4pm"-style AM/PM, "2026-12-01",
// "2026-12-01T08:30[:00]", "12/01[/26]", "midnight", "noon", "elevenses", "fika", "teatime",
// "today", "tomorrow". Pure: `now` is a parameter; calendar forms use the process's local
// time zone (TZ), as Slurm's client does.
#include <cstdint>
#include <string_view>

#include "drover/result.h"

namespace drover::jobspec {

// Returns the begin time in seconds since the epoch. A time of day already past today means
// tomorrow; a date without a year already past this year means next year.
Result<std::int64_t> parseBeginTime(std::string_view text, std::int64_t now);

}  // namespace drover::jobspec
