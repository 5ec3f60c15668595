#pragma once
// Named spdlog loggers, one per component (ctld, sched, agent, acct, rpc, cli), sharing one
// sink and one format: "2026-11-30T12:29:05.123 [sched] [info] message".
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <spdlog/logger.h>

#include "drover/result.h"

namespace drover::log {

inline constexpr const char* kLoggerNames[] = {"ctld", "sched", "agent", "acct", "rpc", "cli"};
inline constexpr const char* kPattern = "%Y-%m-%dT%H:%M:%S.%e [%n] [%l] %v";

// (Re)creates every named logger at `level`, writing to `file` (appending) or else to stderr.
// Safe to call again, e.g. on reconfigure; loggers obtained earlier keep working, on the new
// sink. Fails only when the file cannot be opened.
Status setup(spdlog::level::level_enum level,
                   const std::optional<std::string>& file = std::nullopt);

// The logger called `name`. The known names exist after setup(); any other name is created on
// first use with the same sink and level. Before setup() loggers write to stderr at info.
std::shared_ptr<spdlog::logger> get(std::string_view name);

// Sets every logger's level at once (scontrol setdebug, on the running daemon).
void setLevel(spdlog::level::level_enum level);

// What a Slurm debug level (common/debug_level.h) means here: quiet off, fatal critical, error
// err, info and verbose info, debug debug, debug2 and above trace. And the other way, for a
// daemon started at `level` (-v: debug, -vv: trace, shown as debug2).
spdlog::level::level_enum levelForDebug(int debug_level);
int debugForLevel(spdlog::level::level_enum level);

// "debug", "info", "warning"/"warn", "error", "critical", "off", "trace" (case-insensitive).
Result<spdlog::level::level_enum> parseLevel(std::string_view text);

}  // namespace drover::log
