#pragma once
// Slurm's job flags as accounting keeps them (sacct's Flags field and -F/--flags): which
// scheduling path started the job's run, and StartRecieved, which Slurm 22.05 records on every
// job (its spelling). A record's flags are kept as these names, in this order.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drover::acct {

inline constexpr std::string_view kFlagSchedSubmit = "SchedSubmit";
inline constexpr std::string_view kFlagSchedMain = "SchedMain";
inline constexpr std::string_view kFlagSchedBackfill = "SchedBackfill";
inline constexpr std::string_view kFlagStartReceived = "StartRecieved";

// A flag name as sacct -F takes it, in any case -> the recorded name; nullopt for another word.
std::optional<std::string_view> parseJobFlag(std::string_view text);

// The record's flags as Slurm 22.05's sacct --json printed them: "CLEAR_SCHEDULING" and the
// scheduling path (STARTED_ON_SUBMIT, _SCHEDULE, _BACKFILL) for a job that started, nothing for
// one that did not (StartRecieved has no JSON name there).
std::vector<std::string> jsonJobFlags(const std::vector<std::string>& flags);

}  // namespace drover::acct
