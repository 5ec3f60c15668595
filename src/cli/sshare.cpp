#include "cli/sshare.h"

#include <getopt.h>

#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "drover/config.h"

namespace drover::cli {

namespace {

constexpr const char* kProg = "sshare";
enum LongOnly { kOptHelp = 1000, kOptUsage, kOptHelpFormat };

constexpr const char* kUsage =
    "Usage:  sshare [-A Accounts] [-a] [-l] [-n] [-o format] [-p] [-P] [-U] [-u Users] [-v] [-V]\n";
constexpr const char* kHelp =
    "sshare [<OPTION>]                                                          \n"
    "    Valid <OPTION> values are:                                            \n"
    "     -A or --accounts=    display specific accounts (comma separated list)\n"
    "     -a or --all          list all users                                  \n"
    "     -l or --long         include normalized usage in output              \n"
    "     -M or --cluster=     cluster to issue commands to                    \n"
    "     -n or --noheader     omit header from output                         \n"
    "     -o or --format=      comma separated list of fields to display       \n"
    "     -p or --parsable     '|' delimited output with a trailing '|'        \n"
    "     -P or --parsable2    '|' delimited output without a trailing '|'     \n"
    "     -u or --users=       display specific users (comma separated list)   \n"
    "     -U or --Users        display only user information                   \n"
    "     -v or --verbose      display more information                        \n"
    "     -V or --version      display tool version number                     \n"
    "           --helpformat   list the fields -o accepts                      \n"
    "           --help         display this usage description                  \n"
    "           --usage        display this usage description                  \n";

}  // namespace

Result<SshareCommand> parseSshareArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"accounts", required_argument, nullptr, 'A'}, {"all", no_argument, nullptr, 'a'},
      {"long", no_argument, nullptr, 'l'},           {"cluster", required_argument, nullptr, 'M'},
      {"clusters", required_argument, nullptr, 'M'}, {"noheader", no_argument, nullptr, 'n'},
      {"format", required_argument, nullptr, 'o'},   {"parsable", no_argument, nullptr, 'p'},
      {"parsable2", no_argument, nullptr, 'P'},      {"partition", no_argument, nullptr, 'm'},
      {"users", required_argument, nullptr, 'u'},    {"Users", no_argument, nullptr, 'U'},
      {"verbose", no_argument, nullptr, 'v'},        {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, kOptHelp},      {"usage", no_argument, nullptr, kOptUsage},
      {"helpformat", no_argument, nullptr, kOptHelpFormat},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SshareCommand cmd;
  SshareOptions& o = cmd.options;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), "+:A:alM:mno:pPu:UvV", kLong, nullptr)) != -1) {
    switch (c) {
      case 'A': for (auto& a : splitCommas(optarg)) cmd.accounts.push_back(a); break;
      case 'a': cmd.all_users = true; break;
      case 'l': o.long_format = true; break;
      case 'n': o.no_header = true; break;
      case 'o': {
        auto columns = parseSshareFormat(optarg);
        if (!columns.ok()) return makeError(columns.error());
        o.columns = std::move(*columns);   // wins over -l, as Slurm's
        break;
      }
      case 'p': o.parsable = true; break;
      case 'P': o.parsable2 = true; break;
      case 'u':
        // Slurm: -u all is the same as -a.
        for (auto& u : splitCommas(optarg)) {
          if (u == "all") cmd.all_users = true;
          else cmd.users.push_back(u);
        }
        break;
      case 'U': o.users_only = true; break;
      case 'V': cmd.version = true; break;
      case 'M': case 'm': case 'v': break;
      case kOptHelp: cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      case kOptHelpFormat: cmd.help_format = true; break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  if (optind < argv.argc()) return makeError(std::string("Unknown argument: ") + argv[optind]);
  return cmd;
}

int runSshare(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {});
  auto parsed = parseSshareArgs(args);
  if (!parsed.ok()) {
    printError(kProg, parsed.error());
    return 1;
  }
  SshareCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  if (cmd.help_format) {
    std::cout << sshareHelpFormat();
    return 0;
  }
  if (sshareShowsCluster(cmd.options)) {
    if (auto cfg = config::loadClusterConfig(config::defaultConfigPath())) {
      cmd.options.cluster_name = cfg->cluster_name;
    }
  }
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::GetSharesRequest request;
  for (const auto& a : cmd.accounts) request.add_accounts(a);
  for (const auto& u : cmd.users) request.add_users(u);
  request.set_all_users(cmd.all_users);
  auto reply = client->getShares(request);
  if (!reply.ok()) {
    // The controller's refusal of a request (a uid nobody has), as the reference's: bare.
    if (client->lastFailure() == FailureKind::kInvalid) std::cerr << reply.error() << "\n";
    else printError(kProg, reply.error());
    return 1;
  }
  std::cout << renderSshare(cmd.options, *reply);
  return 0;
}

}  // namespace drover::cli
