#include "cli/sinfo.h"

#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/iterate.h"
#include "cli/sinfo_reservations.h"
#include "drover/hostlist.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "sinfo";

enum LongOnly { kOptHelp = 1000, kOptUsage, kOptJson, kOptYaml, kOptLocal, kOptFederation, kOptHide, kOptNoConvert };

constexpr const char* kUsage =
    "Usage: sinfo [-adelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
    "             [-S fields] [-o format] [-O Format] [--json]\n";

constexpr const char* kHelp =
    "Usage: sinfo [OPTIONS]\n"
    "  -a, --all                  show all partitions (hidden ones included)\n"
    "  -d, --dead                 show only non-responding nodes\n"
    "  -e, --exact                group nodes only on exact match of configuration\n"
    "  -h, --noheader             no headers on output\n"
    "  -i, --iterate=seconds      specify an iteration period\n"
    "      --json                 produce JSON output\n"
    "      --yaml                 produce YAML output\n"
    "  -l, --long                 long output - displays more information\n"
    "  -n, --nodes=NODES          report on specific node(s)\n"
    "  -N, --Node                 Node-centric format\n"
    "  -o, --format=format        format specification\n"
    "  -p, --partition=PARTITION  report on specific partition\n"
    "  -r, --responding           report only responding nodes\n"
    "  -R, --list-reasons         list reason nodes are down or drained\n"
    "  -s, --summarize            report state summary only\n"
    "  -t, --states=node_state    specify the what states of nodes to view\n"
    "  -T, --reservation          show only reservation information\n"
    "  -v, --verbose              verbosity level\n"
    "  -V, --version              output version information and exit\n"
    "\nHelp options:\n"
    "      --help                 show this help message\n"
    "      --usage                display brief usage message\n";

}  // namespace

Result<SinfoCommand> parseSinfoArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"all", no_argument, nullptr, 'a'},         {"dead", no_argument, nullptr, 'd'},
      {"exact", no_argument, nullptr, 'e'},       {"noheader", no_argument, nullptr, 'h'},
      {"iterate", required_argument, nullptr, 'i'}, {"long", no_argument, nullptr, 'l'},
      {"cluster", required_argument, nullptr, 'M'}, {"clusters", required_argument, nullptr, 'M'},
      {"nodes", required_argument, nullptr, 'n'}, {"Node", no_argument, nullptr, 'N'},
      {"format", required_argument, nullptr, 'o'}, {"Format", required_argument, nullptr, 'O'},
      {"partition", required_argument, nullptr, 'p'}, {"responding", no_argument, nullptr, 'r'},
      {"list-reasons", no_argument, nullptr, 'R'}, {"summarize", no_argument, nullptr, 's'},
      {"sort", required_argument, nullptr, 'S'},  {"states", required_argument, nullptr, 't'},
      {"reservation", no_argument, nullptr, 'T'}, {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},     {"help", no_argument, nullptr, kOptHelp},
      {"usage", no_argument, nullptr, kOptUsage}, {"json", no_argument, nullptr, kOptJson},
      {"yaml", no_argument, nullptr, kOptYaml},
      {"local", no_argument, nullptr, kOptLocal}, {"federation", no_argument, nullptr, kOptFederation},
      {"hide", no_argument, nullptr, kOptHide},   {"noconvert", no_argument, nullptr, kOptNoConvert},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);

  SinfoCommand cmd;
  SinfoOptions& o = cmd.options;
  opterr = 0;
  optind = 0;  // re-initialise getopt: parse may run more than once in a process (tests)
  int c;
  bool all = false;
  while ((c = getopt_long(argv.argc(), argv.argv(), "+:adehi:lM:n:No:O:p:rRsS:t:TvV",
                          kLong, nullptr)) != -1) {
    switch (c) {
      case 'a': all = true; break;  // no hidden partitions: nothing more to show
      case 'v': case kOptLocal: case kOptFederation: case kOptHide: case kOptNoConvert:
        break;  // accepted; nothing to change for a single cluster with no hidden partitions
      case 'd': o.dead_only = true; break;
      case 'S': o.sort = optarg; break;
      case 'e': o.exact = true; break;
      case 'h': o.no_header = true; break;
      case 'l': o.long_format = true; break;
      case 'N': o.node_oriented = true; break;
      case 'r': o.responding_only = true; break;
      case 's': o.summarize = true; break;
      case 'o': o.format = optarg; break;
      case 'p': o.partitions = splitCommas(optarg); break;
      case 'n': {
        auto hosts = hostlist::expand(optarg);
        if (!hosts.ok()) return makeError("Invalid node name specified: " + hosts.error());
        o.nodes = std::move(*hosts);
        break;
      }
      case 't': {
        auto states = parseStateFilter(optarg);
        if (!states.ok()) return makeError(states.error());
        o.states = std::move(*states);
        break;
      }
      case kOptJson: o.json = true; break;
      case kOptYaml: o.json = o.yaml = true; break;  // the --json document, written as YAML
      case 'V': cmd.version = true; break;
      case kOptHelp: cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      case 'i': {
        const auto seconds = parseIterateSeconds(optarg);
        if (!seconds) {
          return makeError(std::string("Error: invalid entry for --iterate=") + optarg +
                           ": the interval must be a number of seconds, 1 or more");
        }
        o.iterate_s = *seconds;
        break;
      }
      case 'M': return makeError(std::string(kClustersUnsupported));
      case 'O': o.format_long = optarg; break;
      case 'R': o.list_reasons = true; break;
      case 'T': o.reservations = true; break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  if (optind < argv.argc()) {
    return makeError(std::string("Unknown argument: ") + argv[optind] +
                     "\nTry \"sinfo --help\" for more information");
  }
  if (o.long_format && (!o.format.empty() || !o.format_long.empty())) {
    return makeError(std::string(kFormatWithLong));
  }
  if (all && !o.partitions.empty()) {  // the reference's words, whichever came first
    return makeError("Conflicting options, -a and -p, specified. Please choose one or the other.");
  }
  return cmd;
}

void applyEnvironmentFormat(SinfoOptions& options) {
  if (!options.format.empty() || !options.format_long.empty()) return;
  if (const char* format = std::getenv("SINFO_FORMAT"); format && *format) options.format = format;
}

namespace {

// One report: the nodes and partitions asked for now, rendered; an error is said, not fatal,
// so that -i goes on with the next report.
int report(ControllerClient& client, const SinfoOptions& o) {
  if (o.reservations && !o.json) {   // --json lists the nodes whatever else is asked, as Slurm's
    auto reply = client.getReservations(v1::GetReservationsRequest{});
    if (!reply.ok()) {
      printError(kProg, reply.error());
      return 1;
    }
    const std::int64_t now = reply->time() != 0 ? reply->time() : std::time(nullptr);
    std::cout << renderSinfoReservations(
        o, {reply->reservations().begin(), reply->reservations().end()}, now);
    std::cout.flush();
    return 0;
  }
  auto nodes = client.getNodes(v1::GetNodesRequest{});
  if (!nodes.ok()) {
    printError(kProg, nodes.error());
    return 1;
  }
  std::vector<v1::NodeInfo> node_list(nodes->nodes().begin(), nodes->nodes().end());
  if (o.json) {
    std::cout << renderSinfoJson(node_list, o.yaml);
    std::cout.flush();
    return 0;
  }
  auto parts = client.getPartitions(v1::GetPartitionsRequest{});
  if (!parts.ok()) {
    printError(kProg, parts.error());
    return 1;
  }
  std::vector<v1::PartitionInfo> part_list(parts->partitions().begin(), parts->partitions().end());
  const std::int64_t now = nodes->time() != 0 ? nodes->time() : static_cast<std::int64_t>(std::time(nullptr));
  std::vector<std::string> warnings;
  auto text = renderSinfo(o, node_list, part_list, now, &warnings);
  for (const auto& w : warnings) std::cerr << w << "\n";
  if (!text.ok()) {
    printError(kProg, text.error());
    return 1;
  }
  std::cout << *text;
  std::cout.flush();
  return 0;
}

}  // namespace

int runSinfo(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {{"SINFO_PARTITION", "--partition"}});
  auto parsed = parseSinfoArgs(args);
  if (!parsed.ok()) {
    printParseError(kProg, parsed.error());
    return 1;
  }
  applyEnvironmentFormat(parsed->options);
  const SinfoCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;

  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  const SinfoOptions& o = cmd.options;
  if (o.iterate_s == 0) return report(*client, o);
  reportEvery(o.iterate_s, [&] { report(*client, o); });
}

}  // namespace drover::cli
