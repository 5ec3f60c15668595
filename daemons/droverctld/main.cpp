// droverctld: the controller. Flags and wiring only; the work is in src/ctld.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "ctld/server.h"
#include "drover/config.h"

int main(int argc, char** argv) {
  CLI::App app{"droverctld: the Drover controller"};
  std::string config_path = drover::config::defaultConfigPath();
  bool foreground = false;
  int verbose = 0;
  std::string log_file;
  app.add_option("-f,--config", config_path, "cluster.conf to load");
  app.add_flag("-D,--foreground", foreground, "stay in the foreground, log to stderr");
  app.add_flag("-v,--verbose", verbose, "more logging (repeat for more)");
  app.add_option("-L,--log-file", log_file, "log to this file");
  CLI11_PARSE(app, argc, argv);

  auto cfg = drover::config::loadClusterConfig(config_path);
  if (!cfg) {
    std::cerr << "droverctld: " << cfg.error() << "\n";
    return 1;
  }
  if (!foreground && daemon(1, log_file.empty() ? 1 : 0) != 0) {
    std::perror("droverctld: daemon");
    return 1;
  }
  const auto level = verbose >= 2   ? spdlog::level::trace
                     : verbose == 1 ? spdlog::level::debug
                                    : spdlog::level::info;
  if (auto s = drover::log::setup(
          level, log_file.empty() ? std::nullopt : std::optional<std::string>(log_file));
      !s) {
    std::cerr << "cannot open log file " << log_file << ": " << s.error() << "\n";
    return 1;
  }
  // A daemon's log is read while it runs (and after a kill -9): write every line through.
  for (const char* name : drover::log::kLoggerNames) {
    drover::log::get(name)->flush_on(spdlog::level::trace);
  }
  drover::SystemClock clock;
  auto server = drover::ctld::CtldServer::create(std::move(cfg).value(), clock);
  if (!server) {
    drover::log::get("ctld")->error("{}", server.error());
    std::cerr << "droverctld: " << server.error() << "\n";
    return 1;
  }
  return (*server)->run();
}
