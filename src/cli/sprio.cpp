#include "cli/sprio.h"

#include <getopt.h>

#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"

namespace drover::cli {

namespace {

constexpr const char* kProg = "sprio";
enum LongOnly { kOptHelp = 1000, kOptUsage, kOptLocal, kOptFederation, kOptSibling };

constexpr const char* kUsage =
    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
    "     [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";
constexpr const char* kHelp =
    "Usage: sprio [OPTIONS]\n"
    "  -h, --noheader                  no headers on output\n"
    "  -j, --jobs                      comma separated list of jobs\n"
    "                                  to view, default is all\n"
    "  -l, --long                      long report\n"
    "  -M, --cluster=cluster_name      cluster to issue commands to.\n"
    "  -n, --norm                      display normalized values\n"
    "  -o, --format=format             format specification\n"
    "  -p, --partition=partition_name  comma separated list of partitions\n"
    "  -S, --sort=sort_list            comma separated list of fields to sort on\n"
    "  -u, --user=user_name            comma separated list of users to view\n"
    "  -v, --verbose                   verbosity level\n"
    "  -V, --version                   output version information and exit\n"
    "  -w, --weights                   show the weights for each priority factor\n"
    "\nHelp options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief summary of sprio options\n";

}  // namespace

Result<SprioCommand> parseSprioArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"noheader", no_argument, nullptr, 'h'},       {"jobs", optional_argument, nullptr, 'j'},
      {"long", no_argument, nullptr, 'l'},           {"cluster", required_argument, nullptr, 'M'},
      {"clusters", required_argument, nullptr, 'M'}, {"norm", no_argument, nullptr, 'n'},
      {"format", required_argument, nullptr, 'o'},   {"partition", required_argument, nullptr, 'p'},
      {"sort", required_argument, nullptr, 'S'},     {"user", required_argument, nullptr, 'u'},
      {"users", required_argument, nullptr, 'u'},    {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},        {"weights", no_argument, nullptr, 'w'},
      {"help", no_argument, nullptr, kOptHelp},      {"usage", no_argument, nullptr, kOptUsage},
      {"local", no_argument, nullptr, kOptLocal},    {"federation", no_argument, nullptr, kOptFederation},
      {"sibling", no_argument, nullptr, kOptSibling},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SprioCommand cmd;
  SprioOptions& o = cmd.options;
  opterr = 0;
  optind = 0;
  int c;
  auto addJobs = [&](const std::string& text) -> Status {
    for (const auto& id : splitCommas(text)) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(id.c_str(), &end, 10);
      if (id.empty() || *end != '\0' || v == 0) return makeError("Invalid job id: " + id);
      cmd.job_ids.push_back(v);
    }
    return okStatus();
  };
  while ((c = getopt_long(argv.argc(), argv.argv(), "+:hj::lM:no:p:S:u:vVw", kLong, nullptr)) != -1) {
    switch (c) {
      case 'h': o.no_header = true; break;
      case 'j':
        if (optarg) {
          if (auto s = addJobs(optarg); !s) return makeError(s.error());
        } else if (optind < argv.argc() && argv[optind][0] != '-') {
          if (auto s = addJobs(argv[optind++]); !s) return makeError(s.error());
        }
        break;
      case 'l': o.long_format = true; break;
      case 'n': o.norm = true; break;
      case 'o': o.format = optarg; break;
      case 'p': for (auto& p : splitCommas(optarg)) cmd.partitions.push_back(p); break;
      case 'S': o.sort = optarg; break;
      case 'u':
        for (auto& u : splitCommas(optarg)) cmd.users.push_back(u);
        o.users = true;
        break;
      case 'w': o.weights = true; break;
      case 'V': cmd.version = true; break;
      case 'M': case 'v': case kOptLocal: case kOptFederation: case kOptSibling: break;
      case kOptHelp: cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  if (optind < argv.argc()) {
    return makeError(std::string("Unknown argument: ") + argv[optind]);
  }
  return cmd;
}

int runSprio(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {{"SPRIO_FORMAT", "--format"}});
  auto parsed = parseSprioArgs(args);
  if (!parsed.ok()) {
    printError(kProg, parsed.error());
    return 1;
  }
  const SprioCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::GetPrioritiesRequest request;
  for (auto id : cmd.job_ids) request.add_job_ids(id);
  for (const auto& u : cmd.users) request.add_users(u);
  for (const auto& p : cmd.partitions) request.add_partitions(p);
  auto reply = client->getPriorities(request);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  for (const auto& u : reply->unknown_users()) std::cerr << "sprio: error: Invalid user: " << u << "\n\n";
  // The reference's answer (stdout, exit 0) when job ids were asked for and none is listed; a
  // user filter alone that matches nothing gets the header.
  if (!cmd.options.weights && reply->jobs_size() == 0 && !cmd.job_ids.empty()) {
    std::cout << "Unable to find jobs matching user/id(s) specified\n";
    return 0;
  }
  std::vector<std::string> warnings;
  auto text = renderSprio(cmd.options, *reply, &warnings);
  for (const auto& w : warnings) printError(kProg, w);
  if (!text.ok()) {
    printError(kProg, text.error());
    return 1;
  }
  std::cout << *text;
  return 0;
}

}  // namespace drover::cli
