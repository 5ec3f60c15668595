// droverd: the node agent. Flags and wiring only; the work is in src/agent.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "agent/agent.h"
#include "common/daemon_start.h"
#include "common/log.h"
#include "drover/config.h"

int main(int argc, char** argv) {
  CLI::App app{"droverd: the Drover node agent"};
  std::string config_path = drover::config::defaultConfigPath();
  bool foreground = false;
  int verbose = 0;
  std::string log_file;
  drover::agent::AgentOptions opts;
  std::uint64_t report_memory_mb = 0;
  app.add_option("-f,--config", config_path, "cluster.conf to load");
  app.add_option("-N,--node-name", opts.node_name, "this node's name in cluster.conf");
  app.add_option("--port", opts.port, "port to serve on (default: the node's port in the config)");
  app.add_flag("-D,--foreground", foreground, "stay in the foreground, log to stderr");
  app.add_flag("-v,--verbose", verbose, "more logging (repeat for more)");
  app.add_option("-L,--log-file", log_file, "log to this file");
  app.add_flag("--fake-resources", opts.fake_resources,
               "report the configured CPUs, memory and GPUs instead of the host's "
               "(several agents on one host)");
  app.add_option("--report-memory", report_memory_mb,
                 "report this much memory in MB (testing a node that comes up short)");
  app.add_option("--spool-dir", opts.spool_dir,
                 "where step records, supervisor logs and batch scripts live (default: "
                 "<controller.state_dir>/../spool/<node name>, one per node)");
  app.add_option("--stepd", opts.stepd_path,
                 "the step supervisor to run (default: drover-stepd next to droverd)");
  bool no_launcher = false;
  app.add_flag("--no-stepd-launcher", no_launcher,
               "exec drover-stepd for every step instead of forking it from one pre-started "
               "drover-stepd --launcher");
  CLI11_PARSE(app, argc, argv);
  opts.use_launcher = !no_launcher;
  if (report_memory_mb != 0) opts.report_memory_mb = report_memory_mb;

  auto cfg = drover::config::loadClusterConfig(config_path);
  if (!cfg) {
    std::cerr << "droverd: " << cfg.error() << "\n";
    return 1;
  }
  if (auto started = drover::startDaemon("droverd", foreground, verbose, log_file); !started) {
    std::cerr << started.error() << "\n";
    return 1;
  }
  auto agent = drover::agent::AgentDaemon::create(std::move(cfg).value(), std::move(opts));
  if (!agent) {
    std::cerr << "droverd: " << agent.error() << "\n";
    return 1;
  }
  return (*agent)->run();
}
