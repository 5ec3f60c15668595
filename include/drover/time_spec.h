#pragma once
// Slurm time limits and memory sizes, both directions.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover {

// A time limit in minutes; kUnlimitedMinutes is UNLIMITED/infinite.
inline constexpr std::int64_t kUnlimitedMinutes = -1;

// Parse "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", "UNLIMITED", "infinite".
// Returns seconds (kUnlimitedSeconds for unlimited). As Slurm, "M:S" rounds seconds up to a
// whole minute for limits; callers that want minutes use parseTimeLimitMinutes.
inline constexpr std::int64_t kUnlimitedSeconds = -1;
Result<std::int64_t> parseTimeSpecSeconds(std::string_view text);
Result<std::int64_t> parseTimeLimitMinutes(std::string_view text);

// Slurm's printing of a duration in seconds: "1-00:00:00", "30:00", "00:10:00" style depends
// on the caller; formatDuration prints [D-]HH:MM:SS as scontrol, formatTimeLimit prints as
// sinfo/squeue (M:SS under an hour, H:MM:SS, D-HH:MM:SS) and "UNLIMITED" / "INVALID".
std::string formatDuration(std::int64_t seconds);     // scontrol: 01:00:00, 1-00:00:00
std::string formatTimeLimit(std::int64_t seconds);     // sinfo:  1:00:00, 30:00, 1-00:00:00
std::string formatElapsed(std::int64_t seconds);       // squeue TIME: 0:00, 1:02:03, 1-00:00:00

// A moment (Unix seconds) in local time, strftime's `format`: Slurm prints times as
// kIsoLocalTime ("2026-11-30T12:29:05": scontrol, sacct, sinfo) and long reports' date line as
// "%a %b %d %H:%M:%S %Y".
inline constexpr const char* kIsoLocalTime = "%Y-%m-%dT%H:%M:%S";
std::string formatLocalTime(std::int64_t unix_seconds, const char* format);

// Memory sizes in MiB (Slurm's default unit): "4000" (MB), "4G", "512K", "1T", "2M"; also "P"
// and "E", which formatMemoryMb prints for very large totals.
Result<std::uint64_t> parseMemoryMb(std::string_view text);
// A job's memory option (--mem, --mem-per-cpu, --mem-per-gpu, --tmp) as Slurm 22.05's sbatch
// reads it: units K, M, G and T only, each with an optional B ("10GB", "512kb").
Result<std::uint64_t> parseJobMemoryMb(std::string_view text);
// Slurm's printing: 65536 -> "64G", 12000 -> "12000M", 0 -> "0".
std::string formatMemoryMb(std::uint64_t mb);

}  // namespace drover
