// drover-stepd: the supervisor of one job step on one node. The agent starts it in a new
// session with the serialized LaunchStepRequest on stdin; it runs the step, then reports the
// outcome to the controller's frame transport (--report-to, the controller's cli_port),
// retrying until the controller acknowledges it, so a restart of the agent or the controller
// never loses a step's end (src/stepd/step_report.h).
//
// With --launcher it is instead the agent's pre-forked launcher (src/stepd/launcher.h): it
// reads launch orders on stdin and forks one supervisor per order, each running superviseStep
// below with the argv and request an exec'd drover-stepd would have had.
#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "stepd/launcher.h"
#include "stepd/step_report.h"
#include "stepd/supervisor.h"

namespace {

struct Args {
  std::string spool_dir = "/var/spool/drover";
  std::string node_name;
  std::string munge_socket;
  std::string report_to;      // HOST:PORT of the controller's frame transport (cli_port)
  std::optional<std::vector<gid_t>> groups;   // the user's supplementary groups, from the agent
};

// "1001,27,100" (or "" for none) -> gids; nullopt when not a list of numbers.
std::optional<std::vector<gid_t>> parseGroups(const std::string& text) {
  std::vector<gid_t> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return {};
    out.push_back(static_cast<gid_t>(std::stoul(item)));
    at = comma + 1;
  }
  return out;
}

void usage() {
  std::cerr << "usage: drover-stepd --spool DIR --node NAME [--munge-socket PATH] "
               "[--report-to HOST:CLI_PORT] [--groups GID,...] < LaunchStepRequest\n"
               "       drover-stepd --spool DIR --node NAME --launcher < launch orders\n";
}

// One step, from its command line and (when given; else stdin) its serialized request: the
// whole of an exec'd drover-stepd, and what each supervisor forked by the launcher runs.
// `facts`: what the launcher found once for every supervisor it forks; null for an exec'd one.
int superviseStep(const std::vector<std::string>& arguments, const std::string* request_bytes,
                  const drover::stepd::LauncherFacts* facts) {
  std::vector<std::string> storage(arguments);
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(storage.size());
  optind = 0;   // getopt's state starts afresh, whatever the launcher parsed before the fork
  Args args;
  static const option kOptions[] = {{"spool", required_argument, nullptr, 's'},
                                    {"node", required_argument, nullptr, 'n'},
                                    {"munge-socket", required_argument, nullptr, 'm'},
                                    {"report-to", required_argument, nullptr, 'r'},
                                    {"groups", required_argument, nullptr, 'g'},
                                    {nullptr, 0, nullptr, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv.data(), "", kOptions, nullptr)) != -1) {
    switch (opt) {
      case 's': args.spool_dir = optarg; break;
      case 'n': args.node_name = optarg; break;
      case 'm': args.munge_socket = optarg; break;
      case 'r': args.report_to = optarg; break;
      case 'g':
        args.groups = parseGroups(optarg);
        if (!args.groups) {
          std::cerr << "drover-stepd: --groups '" << optarg << "' is not a list of gids\n";
          return 2;
        }
        break;
      default: usage(); return 2;
    }
  }
  // Signals are blocked before gRPC (or anything else) can start a thread.
  drover::stepd::blockSupervisorSignals();

  std::string input;
  if (request_bytes == nullptr) {
    input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    request_bytes = &input;
  }
  drover::v1::LaunchStepRequest request;
  if (!request.ParseFromString(*request_bytes)) {
    std::cerr << "drover-stepd: cannot parse the launch request on stdin\n";
    return 2;
  }
  drover::stepd::SupervisorOptions opts;
  opts.spool_dir = args.spool_dir;
  opts.node_name = args.node_name;
  opts.groups = args.groups;
  if (facts != nullptr) {
    opts.memory_cgroup_root = facts->memory_cgroup_root;
    opts.cpu_clock = &facts->cpu_clock;
  }
  // A bad address is found before the step runs, not after.
  std::optional<drover::wire::ClientOptions> target;
  if (!args.report_to.empty()) {
    auto parsed = drover::stepd::reportTarget(args.report_to, args.munge_socket);
    if (!parsed) {
      std::cerr << "drover-stepd: " << parsed.error() << "\n";
      return 2;
    }
    target = *parsed;
  }
  auto outcome = drover::stepd::runStep(request, opts);
  if (!target) return outcome.exit_code;   // nobody to tell (tests of the supervisor alone)
  const auto event = drover::stepd::stepEvent(request, outcome, args.node_name);
  return drover::stepd::reportStepEvent(event, *target) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> arguments(argv, argv + argc);
  if (std::find(arguments.begin(), arguments.end(), "--launcher") == arguments.end()) {
    return superviseStep(arguments, nullptr, nullptr);
  }
  // The launcher's own --spool and --node only name it (in ps, and for scripts that find a
  // node's supervisors by their command line): its children get their own from each order.
  if (auto supported = drover::stepd::launcherSupported(); !supported) {
    std::cerr << "drover-stepd --launcher: " << supported.error() << "\n";
    return 3;
  }
  const drover::stepd::LauncherFacts facts;
  return drover::stepd::runLauncher(STDIN_FILENO, [&facts](const drover::stepd::LaunchOrder& order) {
    return superviseStep(order.argv, &order.request, &facts);
  });
}
