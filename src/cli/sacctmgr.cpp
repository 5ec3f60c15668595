#include "cli/sacctmgr.h"

#include <getopt.h>
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/sacctmgr_events.h"
#include "cli/sacctmgr_query.h"
#include "cli/sacctmgr_view.h"
#include "drover/config.h"

namespace drover::cli {

namespace {

constexpr const char* kProg = "sacctmgr";
enum LongOnly { kOptUsage = 1000 };

constexpr const char* kUsage = "Usage: sacctmgr [-hinopPQrsvV] [COMMAND [ENTITY [SPECS...]]]\n";
constexpr const char* kHelp =
    "sacctmgr [<OPTION>] [<COMMAND>]                                             \n"
    "    Valid <OPTION> values are:                                              \n"
    "     -h or --help: equivalent to \"help\" command                            \n"
    "     -i or --immediate: commit changes immediately                          \n"
    "     -n or --noheader: no header will be added to the beginning of output   \n"
    "     -p or --parsable: output will be '|' delimited with a '|' at the end   \n"
    "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -Q or --quiet: equivalent to \"quiet\" command                           \n"
    "     -r or --readonly: equivalent to \"readonly\" command                     \n"
    "     -s or --associations: equivalent to \"associations\" command             \n"
    "     -v or --verbose: equivalent to \"verbose\" command                       \n"
    "     -V or --version: equivalent to \"version\" command                       \n"
    "                                                                            \n"
    "  <keyword> may be omitted from the execute line and sacctmgr will execute  \n"
    "  in interactive mode. It will process commands as entered until explicitly\n"
    "  terminated.                                                               \n"
    "                                                                            \n"
    "    Valid <COMMAND> values are:                                             \n"
    "     list <ENTITY> [<SPECS>]  display info of identified entity, default    \n"
    "                              is display all.                               \n"
    "     show                     same as list                                  \n"
    "     help                     print this description of use.                \n"
    "     version                  display tool version number.                  \n"
    "     exit, quit               terminate interactive mode.                   \n"
    "                                                                            \n"
    "  <ENTITY> may be \"account\", \"association\", \"cluster\", \"event\", \"qos\", \n"
    "  \"tres\" or \"user\". Drover keeps accounts and users in cluster.conf (accounts:): add,\n"
    "  modify and delete are made there, then `scontrol reconfigure`.           \n"
    "                                                                            \n"
    "  <SPECS> are key=value conditions (cluster=, account=, user=, partition=,  \n"
    "  parent=, name=, ...), format=Field[%WIDTH],..., withassoc, and tree.      \n";

// What a change verb gets: Drover's associations live in cluster.conf.
std::string changeRefusal(const std::string& verb) {
  return "'" + verb + "' is not available: Drover's accounts, users and associations are "
         "defined in cluster.conf (accounts:); change them there and run "
         "`scontrol reconfigure` (see docs/configuration.md)";
}

// `show event`: the events come from the controller's accounting (QueryEvents).
int listEvents(const SacctmgrList& list, const TableStyle& style) {
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  auto query = parseEventConditions(list.event_conditions, now);
  if (!query.ok()) {
    std::cerr << query.error() << "\n";
    return 1;
  }
  for (const std::string& warning : query->warnings) std::cerr << warning << "\n";
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  auto reply = client->queryEvents(query->request);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  auto table = renderEvents(*query, *reply, style, now);
  if (!table.ok()) {
    std::cerr << table.error() << "\n";
    return 1;
  }
  std::cout << *table;
  return 0;
}

// Runs one command; returns its exit code. Sets `quit` for exit/quit.
int runWords(const std::vector<std::string>& words, const SacctmgrCommand& cmd, bool& quit) {
  auto action = parseSacctmgrWords(words, cmd.with_assoc);
  if (!action.ok()) {
    std::cerr << action.error() << "\n";
    return 1;
  }
  switch (action->verb) {
    case SacctmgrVerb::kNothing: return 0;
    case SacctmgrVerb::kQuit: quit = true; return 0;
    case SacctmgrVerb::kHelp: std::cout << kHelp; return 0;
    case SacctmgrVerb::kVersion: std::cout << kVersionLine << "\n"; return 0;
    case SacctmgrVerb::kChange:
      printError(kProg, changeRefusal(action->change_verb));
      return 1;
    case SacctmgrVerb::kList: break;
  }
  if (action->list.entity == SacctmgrEntity::kEvent) return listEvents(action->list, cmd.style);
  auto config = config::loadClusterConfig(config::defaultConfigPath());
  if (!config.ok()) {
    printError(kProg, config.error());
    return 1;
  }
  auto table = renderSacctmgrList(action->list, *config, cmd.style);
  if (!table.ok()) {
    std::cerr << table.error() << "\n";
    return 1;
  }
  std::cout << *table;
  return 0;
}

std::vector<std::string> splitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// No command on the line: Slurm's interactive mode, one command per line until exit/quit or
// the end of input (a prompt only on a terminal). The last failure's code is the exit code.
int runInteractive(const SacctmgrCommand& cmd) {
  const bool prompt = isatty(STDIN_FILENO) != 0;
  int rc = 0;
  std::string line, last;
  for (;;) {
    if (prompt) std::cout << "sacctmgr: " << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (line == "!!") line = last;
    last = line;
    bool quit = false;
    if (const int code = runWords(splitWords(line), cmd, quit); code != 0) rc = code;
    if (quit) break;
  }
  if (prompt) std::cout << "\n";
  return rc;
}

}  // namespace

Result<SacctmgrCommand> parseSacctmgrArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"associations", no_argument, nullptr, 's'}, {"help", no_argument, nullptr, 'h'},
      {"immediate", no_argument, nullptr, 'i'},    {"noheader", no_argument, nullptr, 'n'},
      {"oneliner", no_argument, nullptr, 'o'},     {"parsable", no_argument, nullptr, 'p'},
      {"parsable2", no_argument, nullptr, 'P'},    {"quiet", no_argument, nullptr, 'Q'},
      {"readonly", no_argument, nullptr, 'r'},     {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},      {"cluster", required_argument, nullptr, 'M'},
      {"usage", no_argument, nullptr, kOptUsage},  {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SacctmgrCommand cmd;
  opterr = 0;
  optind = 0;
  int c;
  // Options may follow the command too (`sacctmgr show assoc -P`), as getopt lets Slurm's.
  while ((c = getopt_long(argv.argc(), argv.argv(), ":hinopPQrsvVM:", kLong, nullptr)) != -1) {
    switch (c) {
      case 'h': cmd.help = true; break;
      case 'n': cmd.style.no_header = true; break;
      case 'p': cmd.style.parsable = true; break;
      case 'P': cmd.style.parsable2 = true; break;
      case 's': cmd.with_assoc = true; break;
      case 'V': cmd.version = true; break;
      case kOptUsage: cmd.usage = true; break;
      case 'i': case 'o': case 'Q': case 'r': case 'v': case 'M': break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  // getopt_long moved the command's words after the options: read the permuted argv.
  for (int i = optind; i < argv.argc(); ++i) cmd.words.emplace_back(argv.argv()[i]);
  return cmd;
}

int runSacctmgr(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {});
  auto parsed = parseSacctmgrArgs(args);
  if (!parsed.ok()) {
    printError(kProg, parsed.error());
    return 1;
  }
  const SacctmgrCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  if (cmd.words.empty()) return runInteractive(cmd);
  bool quit = false;
  return runWords(cmd.words, cmd, quit);
}

}  // namespace drover::cli
