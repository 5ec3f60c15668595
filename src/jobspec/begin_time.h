#pragma once
// Slurm's time specifications, as --begin, --deadline, scontrol's StartTime=, sacct -S/-E,
// sreport and sacctmgr's start=/end= take them:
//   now[{+|-}count[ ][second|minute|hour|day|week][s]]      (spaces allowed around sign and unit)
//   HH:MM[:SS][ ][AM|PM], midnight, noon, elevenses, fika, teatime        (a time of day)
//   YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], MM.DD[.YY], MMDD[YY], today, tomorrow (a day)
// A time of day and a day may be combined in either order, separated by spaces ("10:00
// tomorrow", "12/25 16:00"). Pure: `now` is a parameter; calendar forms use the process's local
// time zone (TZ), as Slurm's client does.
#include <cstdint>
#include <string_view>

#include "drover/result.h"

namespace drover::jobspec {

// How a spec that names no day (or no year) is placed. kBegin: the next such time (a time of
// day already past today means tomorrow, a date already past this year means next year), as
// --begin; kWindow: today and this year, as a report window's end points.
enum class TimeSpecUse { kBegin, kWindow };

// Seconds since the epoch. The error is the line every Slurm command prints for a spec it
// cannot read, "Invalid time specification (pos=N): TEXT", N being where reading stopped as
// the reference's parser reports it (0 for a text it cannot read at all); for an empty text it
// is empty, as the reference prints no such line then (only each command's own).
Result<std::int64_t> parseTimeSpec(std::string_view text, std::int64_t now, TimeSpecUse use);

inline Result<std::int64_t> parseBeginTime(std::string_view text, std::int64_t now) {
  return parseTimeSpec(text, now, TimeSpecUse::kBegin);
}

}  // namespace drover::jobspec
