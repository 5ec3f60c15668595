// droverctld: the controller. Flags and wiring only; the work is in src/ctld.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "common/clock.h"
#include "common/daemon_start.h"
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
  if (auto started = drover::startDaemon("droverctld", foreground, verbose, log_file); !started) {
    std::cerr << started.error() << "\n";
    return 1;
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
