#include "cli/sdiag.h"

#include <getopt.h>

#include <cstdio>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "drover/config.h"

namespace drover::cli {

namespace {

constexpr const char* kProg = "sdiag";
enum LongOnly { kOptHelp = 1000, kOptUsage };

constexpr const char* kUsage = "Usage: sdiag [-M cluster] [-aritT]\n";
constexpr const char* kHelp =
    "Usage: sdiag [OPTIONS]\n"
    "  -a, --all           all statistics\n"
    "  -r, --reset         reset statistics\n"
    "  -M, --cluster       direct the request to a specific cluster\n"
    "  -i, --sort-by-id    sort RPCs by id\n"
    "  -t, --sort-by-time  sort RPCs by total run time\n"
    "  -T, --sort-by-time2 sort RPCs by average run time\n"
    "  -V, --version       display current version number\n"
    "\nHelp options:\n"
    "  --help          show this help message\n"
    "  --usage         display brief usage message\n";

// What Slurm's sdiag prints for a failed call (slurm_perror), and its exit code (-1).
constexpr int kCallFailed = 255;

std::string failureText(const ControllerClient& client, const std::string& error) {
  switch (client.lastFailure()) {
    case FailureKind::kUnreachable: return "Unable to contact slurm controller (connect failure)";
    case FailureKind::kDenied: return "Access/permission denied";
    default: return error;
  }
}

}  // namespace

Result<SdiagCommand> parseSdiagArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"all", no_argument, nullptr, 'a'},           {"reset", no_argument, nullptr, 'r'},
      {"cluster", required_argument, nullptr, 'M'}, {"clusters", required_argument, nullptr, 'M'},
      {"sort-by-id", no_argument, nullptr, 'i'},    {"sort-by-time", no_argument, nullptr, 't'},
      {"sort-by-time2", no_argument, nullptr, 'T'}, {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, kOptHelp},     {"usage", no_argument, nullptr, kOptUsage},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SdiagCommand cmd;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), "+:ahM:ritTV", kLong, nullptr)) != -1) {
    switch (c) {
      case 'a': cmd.reset = false; break;  // the default report (Slurm: the last of -a/-r wins)
      case 'r': cmd.reset = true; break;
      case 'M': cmd.cluster = optarg; break;
      case 'i': cmd.sort = SdiagSort::kId; break;
      case 't': cmd.sort = SdiagSort::kTotalTime; break;
      case 'T': cmd.sort = SdiagSort::kAveTime; break;
      case 'V': cmd.version = true; break;
      case 'h': case kOptHelp: cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  if (optind < argv.argc()) {
    return makeError("unrecognized argument '" + argv[optind] +
                     "'\nTry \"sdiag --help\" for more information");
  }
  return cmd;
}

int runSdiag(int argc, char** argv) {
  auto parsed = parseSdiagArgs(argsWithEnvironment(argc, argv, {{"SLURM_CLUSTERS", "--cluster"}}));
  if (!parsed.ok()) {
    // getopt's words come bare ("sdiag: unrecognized option '--bogus'"); the others as Slurm's
    // sdiag printed them, after its name alone.
    const std::string& why = parsed.error();
    if (why.rfind(kBareMark, 0) == 0) {
      std::fprintf(stderr, "%s\n", why.c_str() + kBareMark.size());
    } else {
      std::fprintf(stderr, "%s: %s\n", kProg, why.c_str());
    }
    return 1;
  }
  const SdiagCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  if (!cmd.cluster.empty()) {
    auto cfg = config::loadClusterConfig(config::defaultConfigPath());
    if (!cfg.ok()) {
      printError(kProg, cfg.error());
      return 1;
    }
    if (cmd.cluster != cfg->cluster_name) {
      printError(kProg, kClustersUnsupported);
      return 1;
    }
  }
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::GetStatisticsRequest request;
  request.set_reset(cmd.reset);
  auto reply = client->getStatistics(request);
  const char* call = cmd.reset ? "slurm_reset_statistics" : "slurm_get_statistics";
  if (!reply.ok()) {
    std::fprintf(stderr, "%s: %s\n", call, failureText(*client, reply.error()).c_str());
    return kCallFailed;
  }
  if (cmd.reset) {
    std::cout << "Reset scheduling statistics\n";
    return 0;
  }
  std::cout << renderSdiag(*reply, cmd.sort);
  return 0;
}

}  // namespace drover::cli
