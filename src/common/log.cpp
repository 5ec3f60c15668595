#include "common/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace drover::log {
namespace {

// The sink and level every logger shares live on the registered loggers themselves (spdlog's
// registry), so this module keeps no state of its own.
std::shared_ptr<spdlog::logger> configure(const std::string& name, spdlog::sink_ptr sink,
                                          spdlog::level::level_enum level) {
  auto logger = spdlog::get(name);
  if (!logger) {
    logger = std::make_shared<spdlog::logger>(name, sink);
    logger->set_pattern(kPattern);
    logger->set_level(level);
    // Another thread may have registered the same name meanwhile; keep whichever won.
    try {
      spdlog::register_logger(logger);
    } catch (const spdlog::spdlog_ex&) {
      if (auto existing = spdlog::get(name)) return existing;
    }
    return logger;
  }
  logger->sinks().assign({sink});
  logger->set_pattern(kPattern);
  logger->set_level(level);
  return logger;
}

}  // namespace

Status setup(spdlog::level::level_enum level, const std::optional<std::string>& file) {
  spdlog::sink_ptr sink;
  if (file) {
    try {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(*file, /*truncate=*/false);
    } catch (const spdlog::spdlog_ex& e) {
      return makeError("cannot open log file '" + *file + "': " + e.what());
    }
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  for (const char* name : kLoggerNames) configure(name, sink, level);
  return okStatus();
}

std::shared_ptr<spdlog::logger> get(std::string_view name) {
  std::string key(name);
  if (auto logger = spdlog::get(key)) return logger;
  // Share the sink and level of the configured loggers when setup() has run.
  if (auto reference = spdlog::get(kLoggerNames[0]); reference && !reference->sinks().empty())
    return configure(key, reference->sinks().front(), reference->level());
  return configure(key, std::make_shared<spdlog::sinks::stderr_sink_mt>(), spdlog::level::info);
}

void setLevel(spdlog::level::level_enum level) {
  for (const char* name : kLoggerNames) get(name)->set_level(level);
  spdlog::apply_all([level](const std::shared_ptr<spdlog::logger>& l) { l->set_level(level); });
}

spdlog::level::level_enum levelForDebug(int debug_level) {
  switch (debug_level) {
    case 0: return spdlog::level::off;
    case 1: return spdlog::level::critical;
    case 2: return spdlog::level::err;
    case 3:
    case 4: return spdlog::level::info;
    case 5: return spdlog::level::debug;
    default: return debug_level > 5 ? spdlog::level::trace : spdlog::level::info;
  }
}

int debugForLevel(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::off: return 0;
    case spdlog::level::critical: return 1;
    case spdlog::level::err:
    case spdlog::level::warn: return 2;
    case spdlog::level::debug: return 5;
    case spdlog::level::trace: return 6;
    default: return 3;
  }
}

Result<spdlog::level::level_enum> parseLevel(std::string_view text) {
  std::string lower;
  for (char c : text) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (lower == "trace") return spdlog::level::trace;
  if (lower == "debug") return spdlog::level::debug;
  if (lower == "info") return spdlog::level::info;
  if (lower == "warn" || lower == "warning") return spdlog::level::warn;
  if (lower == "error") return spdlog::level::err;
  if (lower == "critical") return spdlog::level::critical;
  if (lower == "off") return spdlog::level::off;
  return makeError("unknown log level '" + std::string(text) +
                   "' (accepted: trace, debug, info, warning, error, critical, off)");
}

}  // namespace drover::log
