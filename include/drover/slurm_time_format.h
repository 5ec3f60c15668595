#pragma once
// Time stamps as Slurm's commands print them (squeue, sacct, scontrol, sinfo, sreport, sacctmgr),
// in the form the SLURM_TIME_FORMAT environment variable names:
//   unset, empty or "standard"  2026-12-02T23:27:22 (kIsoLocalTime)
//   "relative"                  23:27:22 today; "Tomorr 23:27", "Ystday 23:27"; the weekday for
//                               the next six days ("Fri 23:27"); else "12 Dec 23:27" this year
//                               and "2 Dec 2027" in another (as the reference printed them)
//   anything else               a strftime format ("%s", "%a %T")
#include <cstdint>
#include <string>
#include <string_view>

namespace drover {

// With the variable as this process has it, and the clock.
std::string formatSlurmTime(std::int64_t unix_seconds);

// The same with the format and the present given (tests).
std::string formatSlurmTime(std::int64_t unix_seconds, std::string_view format, std::int64_t now);

}  // namespace drover
