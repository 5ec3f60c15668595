#pragma once
// Slurm's debug levels, as scontrol setdebug takes them and scontrol show config prints them
// (SlurmctldDebug): quiet, fatal, error, info, verbose, debug, debug2 ... debug5, or their
// numbers 0 to 9. What each means for Drover's loggers is log::levelForDebug (common/log.h).
#include <optional>
#include <string_view>

namespace drover {

inline constexpr int kDebugInfo = 3;

// The level a name (any case) or number stands for; nullopt for anything else.
std::optional<int> parseDebugLevel(std::string_view text);

// Its name: "info" for 3, "debug2" for 6; "info" for a number out of range.
std::string_view debugLevelName(int level);

}  // namespace drover
