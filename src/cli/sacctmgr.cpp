#include "cli/sacctmgr.h"

#include <getopt.h>

#include <iostream>
#include <optional>

#include "cli/cli_common.h"
#include "drover/config.h"

namespace drover::cli {

namespace {

constexpr const char* kProg = "sacctmgr";
enum LongOnly { kOptUsage = 1000 };

constexpr const char* kUsage =
    "Usage: sacctmgr [-hinpPQrsvV] [list|show] [user|account|association] [NAMES] "
    "[where] [KEY=VALUE ...] [withassoc] [format=FIELD[%[-]WIDTH],...]\n";
constexpr const char* kHelp =
    "sacctmgr [<OPTION>] [<COMMAND>]                                           \n"
    "    Drover's sacctmgr shows the account tree of cluster.conf; it changes   \n"
    "    nothing (edit cluster.conf's accounts: and run scontrol reconfigure). \n"
    "    Valid <OPTION> values are:                                            \n"
    "     -h or --help: equivalent to \"help\" command                         \n"
    "     -i or --immediate: accepted, nothing to commit                       \n"
    "     -n or --noheader: no header will be added to the beginning of output \n"
    "     -p or --parsable: output will be '|' delimited with a '|' at the end \n"
    "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -Q or --quiet: equivalent to \"quiet\" command                       \n"
    "     -r or --readonly: accepted, sacctmgr is read-only here               \n"
    "     -s or --associations: equivalent to \"withassoc\"                    \n"
    "     -v or --verbose: accepted                                            \n"
    "     -V or --version: equivalent to \"version\" command                   \n"
    "                                                                          \n"
    "    Valid <COMMAND> values are:                                           \n"
    "     list <ENTITY> [<SPECS>]  display info of identified entities         \n"
    "     show <ENTITY> [<SPECS>]  same as list                                \n"
    "                                                                          \n"
    "  <ENTITY> may be \"account\", \"association\" or \"user\".              \n"
    "  <SPECS>: names of the entity; where; Accounts=, Clusters=, Names=,      \n"
    "  Users= (comma lists); WithAssoc; Format= (comma list of fields, each    \n"
    "  with an optional %[-]WIDTH).                                            \n";

// Slurm's answer to an entity list does not know; Drover's to an entity it does not keep.
constexpr const char* kNoEntity =
    "No valid entity in list command\n"
    "Input line must include \"Account\", \"Association\", \"Cluster\", \"Configuration\",\n"
    "\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", \"Reservation\",\n"
    "\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", or \"WCKey\"";
constexpr const char* kSlurmEntities[] = {"cluster", "configuration", "event", "federation",
                                          "problem", "qos", "resource", "reservation",
                                          "runawayjobs", "stats", "transaction", "tres", "wckey"};
constexpr const char* kChangeVerbs[] = {"add", "archive", "clear", "create", "delete", "dump",
                                        "load", "modify", "reconfigure", "remove", "shutdown",
                                        "update"};

std::optional<SacctmgrEntity> entityOf(std::string_view word) {
  if (abbrev(word, "users", 2)) return SacctmgrEntity::User;
  if (abbrev(word, "accounts", 2)) return SacctmgrEntity::Account;
  if (abbrev(word, "associations", 2)) return SacctmgrEntity::Association;
  return std::nullopt;
}

void append(std::vector<std::string>& to, std::string_view list) {
  for (auto& v : splitCommas(list)) to.push_back(v);
}

// The words after `list <entity>`: names, `where`, KEY=VALUE conditions, withassoc, format=.
Result<bool> parseSpecs(const std::vector<std::string>& words, SacctmgrQuery& q) {
  for (const auto& w : words) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) {
      if (equalsIgnoreCase(w, "where")) continue;
      if (abbrev(w, "withassoc", 5)) {
        q.with_assoc = true;
        continue;
      }
      // A bare word names the entity itself (users of `list user`, accounts of `list account`).
      append(q.entity == SacctmgrEntity::Account ? q.accounts : q.users, w);
      continue;
    }
    const std::string key = toLowerAscii(std::string_view(w).substr(0, eq));
    const std::string_view val = std::string_view(w).substr(eq + 1);
    if (key == "format") {
      auto cols = parseSacctmgrFormat(val);
      if (!cols.ok()) return makeError(cols.error());
      q.columns = std::move(*cols);
    } else if (key == "names" || key == "name") {
      if (q.entity == SacctmgrEntity::Association) return makeError(" Unknown condition: " + w);
      append(q.entity == SacctmgrEntity::Account ? q.accounts : q.users, val);
    } else if (key == "users" || key == "user") {
      append(q.users, val);
    } else if (key == "accounts" || key == "account" || key == "acct") {
      append(q.accounts, val);
    } else if (key == "clusters" || key == "cluster") {
      append(q.clusters, val);
    } else {
      return makeError(" Unknown condition: " + w + "\n Use keyword 'set' to modify value");
    }
  }
  return true;
}

}  // namespace

Result<SacctmgrCommand> parseSacctmgrArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"help", no_argument, nullptr, 'h'},      {"immediate", no_argument, nullptr, 'i'},
      {"noheader", no_argument, nullptr, 'n'},  {"parsable", no_argument, nullptr, 'p'},
      {"parsable2", no_argument, nullptr, 'P'}, {"quiet", no_argument, nullptr, 'Q'},
      {"readonly", no_argument, nullptr, 'r'},  {"associations", no_argument, nullptr, 's'},
      {"verbose", no_argument, nullptr, 'v'},   {"version", no_argument, nullptr, 'V'},
      {"usage", no_argument, nullptr, kOptUsage},
      {"cluster", required_argument, nullptr, 'M'}, {"clusters", required_argument, nullptr, 'M'},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SacctmgrCommand cmd;
  opterr = 0;
  optind = 0;
  int c;
  // Options may follow the command words (`sacctmgr list user -s alice`), as Slurm's.
  while ((c = getopt_long(argv.argc(), argv.argv(), "hinpPQrsvVM:", kLong, nullptr)) != -1) {
    switch (c) {
      case 'h': cmd.help = true; break;
      case 'n': cmd.output.no_header = true; break;
      case 'p': cmd.output.parsable = true; break;
      case 'P': cmd.output.parsable2 = true; break;
      case 's': cmd.query.with_assoc = true; break;
      case 'V': cmd.version = true; break;
      case kOptUsage: cmd.usage = true; break;
      case 'i': case 'Q': case 'r': case 'v': case 'M': break;
      default: return makeError("sacctmgr: error: " + unrecognizedOption(kProg, argv[optind - 1]));
    }
  }
  std::vector<std::string> words;
  // getopt_long moved the options in front of the words: read its (permuted) pointers.
  for (int i = optind; i < argv.argc(); ++i) words.emplace_back(argv.argv()[i]);
  if (cmd.help || cmd.usage || cmd.version) return cmd;
  if (words.empty()) {
    return makeError("sacctmgr: error: no command given (Drover's sacctmgr has no interactive "
                     "mode); try \"sacctmgr --help\"");
  }
  const std::string verb = toLowerAscii(words[0]);
  if (verb == "help") {
    cmd.help = true;
    return cmd;
  }
  if (verb == "version") {
    cmd.version = true;
    return cmd;
  }
  for (const char* v : kChangeVerbs) {
    if (abbrev(verb, v, 3)) {
      cmd.refused_verb = v;
      return cmd;
    }
  }
  if (!abbrev(verb, "list", 2) && !abbrev(verb, "show", 2)) {
    return makeError("Invalid keyword: " + words[0]);
  }
  if (words.size() < 2) return makeError(kNoEntity);
  auto entity = entityOf(words[1]);
  if (!entity) {
    for (const char* e : kSlurmEntities) {
      if (abbrev(words[1], e, 2)) {
        return makeError("sacctmgr: error: Drover keeps no " + words[1] +
                         " records; sacctmgr lists Account, Association and User");
      }
    }
    return makeError(kNoEntity);
  }
  cmd.list = true;
  cmd.query.entity = *entity;
  auto specs = parseSpecs({words.begin() + 2, words.end()}, cmd.query);
  if (!specs.ok()) return makeError(specs.error());
  return cmd;
}

int runSacctmgr(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = parseSacctmgrArgs(args);
  if (!parsed.ok()) {
    std::cerr << parsed.error() << "\n";
    return 1;
  }
  SacctmgrCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  if (!cmd.refused_verb.empty()) {
    printError(kProg, "'" + cmd.refused_verb +
                          "' is not done by sacctmgr here: Drover's accounts and users are the "
                          "accounts: of cluster.conf; edit it and run 'scontrol reconfigure'");
    return 1;
  }
  auto config = config::loadClusterConfig(config::defaultConfigPath());
  if (!config.ok()) {
    printError(kProg, config.error());
    return 1;
  }
  std::cout << renderSacctmgr(*config, cmd.query, cmd.output);
  return 0;
}

}  // namespace drover::cli
