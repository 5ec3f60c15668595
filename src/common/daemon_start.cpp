#include "common/daemon_start.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/log.h"

namespace drover {

Status startDaemon(std::string_view program, bool foreground, int verbosity,
                   const std::string& log_file) {
  // Without a log file a detached daemon keeps stderr, so its errors still reach someone.
  if (!foreground && daemon(1, log_file.empty() ? 1 : 0) != 0) {
    return makeError(std::string(program) + ": daemon: " + std::strerror(errno));
  }
  const auto level = verbosity >= 2   ? spdlog::level::trace
                     : verbosity == 1 ? spdlog::level::debug
                                      : spdlog::level::info;
  auto logs = log::setup(level, log_file.empty() ? std::nullopt
                                                 : std::optional<std::string>(log_file));
  if (!logs) return makeError("cannot open log file " + log_file + ": " + logs.error());
  // A daemon's log is read while it runs (and after a kill -9): write every line through.
  for (const char* name : log::kLoggerNames) log::get(name)->flush_on(spdlog::level::trace);
  return okStatus();
}

}  // namespace drover
