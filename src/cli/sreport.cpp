#include "cli/sreport.h"

#include <pwd.h>
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/sreport_args.h"
#include "cli/sreport_query.h"
#include "cli/sreport_view.h"
#include "drover/config.h"

namespace drover::cli {

namespace {

using namespace sreport;

constexpr const char* kProg = "sreport";
constexpr const char* kHelp =
    "sreport [<OPTION>] [<COMMAND>]                                             \n"
    "    Valid <OPTION> values are:                                             \n"
    "     -h or --help: equivalent to \"help\" command                          \n"
    "     -n or --noheader: equivalent to \"noheader\" command                  \n"
    "     -p or --parsable: output will be '|' delimited with a '|' at the end  \n"
    "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -Q or --quiet: equivalent to \"quiet\" command                        \n"
    "     -t <time_format>: Second, Minute, Hour, Percent, SecPer, MinPer, HourPer\n"
    "     -T or --tres: comma separated list of TRES, or 'ALL' for all TRES     \n"
    "     -V or --version: equivalent to \"version\" command                    \n"
    "                                                                           \n"
    "  <keyword> may be omitted from the execute line and sreport will execute  \n"
    "  in interactive mode. It will process commands as entered until explicitly\n"
    "  terminated.                                                              \n"
    "                                                                           \n"
    "    Valid <COMMAND> values are:                                            \n"
    "     exit, quit          Terminate sreport                                 \n"
    "     help                Print this description of use.                    \n"
    "     nonparsable         Return output to normal                           \n"
    "     parsable            Output will be | delimited with an ending '|'     \n"
    "     parsable2           Output will be | delimited without an ending '|'  \n"
    "     time <time_format>  Second, Minute, Hour, Percent, SecPer, MinPer, HourPer\n"
    "     version             Display tool version number.                      \n"
    "     !!                  Repeat the last command entered.                  \n"
    "                                                                           \n"
    "    Valid report types are:                                                \n"
    "     cluster - AccountUtilizationByUser, UserUtilizationByAccount, Utilization\n"
    "     job     - SizesByAccount                                              \n"
    "     user    - TopUsage                                                    \n"
    "                                                                           \n"
    "  <OPTIONS>: Start=, End=, Clusters=, Format=Field[%WIDTH],...; cluster:   \n"
    "  Accounts=, Users=, Tree; job: Accounts=, Users=, Grouping=, FlatView,    \n"
    "  PrintJobCount; user: Accounts=, Users=, Group, TopCount=.                \n"
    "  Usage is counted from Drover's job records (see docs/operations.md).     \n";

// What the controller and cluster.conf give every report: the sums of the window's jobs, the
// cluster's capacity and its account tree.
Result<ReportData> loadData(const ReportRequest& request, std::int64_t now) {
  ReportData d;
  d.window = reportWindow(request.start, request.end, now);
  auto config = config::loadClusterConfig(config::defaultConfigPath());
  if (!config.ok()) return makeError(config.error());
  for (const auto& a : config->accounts) {
    d.parents[a.name] = a.parent.empty() ? "root" : a.parent;
    d.account_order.push_back(a.name);
  }
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) return makeError(client.error());
  // The controller sums the window's jobs (QueryUsage); only the totals come over the wire.
  auto reply = client->queryUsage(usageRequest(request, d.window, now));
  if (!reply.ok()) return makeError(reply.error());
  d.cluster = reply->cluster_name().empty() ? config->cluster_name : reply->cluster_name();
  d.usage = usageSums(request, *reply);
  auto nodes = client->getNodes(v1::GetNodesRequest{});
  if (!nodes.ok()) return makeError(nodes.error());
  for (const auto& n : nodes->nodes()) {
    d.capacity["cpu"] += n.configured().cpus();
    d.capacity["billing"] += n.configured().cpus();
    d.capacity["mem"] += static_cast<double>(n.configured().real_memory_mb());
    d.capacity["node"] += 1;
    d.capacity["gres/gpu"] += n.configured().gpus_size();
  }
  d.proper_name = [](const std::string& login) -> std::string {
    const passwd* pw = getpwnam(login.c_str());
    if (!pw || !pw->pw_gecos) return "";
    std::string gecos = pw->pw_gecos;
    return gecos.substr(0, gecos.find(','));
  };
  return d;
}

struct Session {
  Options options;
  SreportIo io;
  const SreportLoader& load;
  std::int64_t now;
  bool quit = false;
};

// Runs one command; returns its exit code.
int runWords(const std::vector<std::string>& words, Session& s) {
  auto cmd = parseCommandWords(words, s.now);
  if (!cmd.ok()) {
    s.io.err << cmd.error() << "\n";
    return 1;
  }
  switch (cmd->verb) {
    case Verb::kNothing: return 0;
    case Verb::kQuit: s.quit = true; return 0;
    case Verb::kHelp: s.io.out << kHelp; return 0;
    case Verb::kVersion: s.io.out << kVersionLine << "\n"; return 0;
    case Verb::kParsable: s.options.style.parsable = true; s.options.style.parsable2 = false; return 0;
    case Verb::kParsable2: s.options.style.parsable2 = true; s.options.style.parsable = false; return 0;
    case Verb::kNonParsable: s.options.style.parsable = s.options.style.parsable2 = false; return 0;
    case Verb::kTime:
      for (const auto& w : cmd->warnings) s.io.err << w;
      if (cmd->warnings.empty()) s.options.time = cmd->time;
      return 0;
    case Verb::kQuiet: s.options.quiet = true; return 0;
    case Verb::kVerbose: return 0;
    case Verb::kReport: break;
  }
  for (const auto& w : cmd->report.warnings) s.io.err << w << "\n";
  cmd->report.size_tres = s.options.tres.front();
  auto data = s.load(cmd->report, s.now);
  if (!data.ok()) {
    s.io.err << kProg << ": error: " << data.error() << "\n";
    return 1;
  }
  const Rendered r = renderReport(cmd->report, s.options, *data);
  s.io.out << r.out << std::flush;
  s.io.err << r.err;
  if (cmd->report.bad_condition) return 1;
  return r.exit_code;
}

std::vector<std::string> splitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// No command: one command per line until exit/quit or the end of input. The prompt, and the
// line echoed after it when stdin is no terminal, are what Slurm's readline prints; the exit
// code is the last failure's.
int runInteractive(Session& s) {
  int rc = 0;
  std::string line, last;
  for (;;) {
    s.io.out << "sreport: " << std::flush;
    if (!std::getline(s.io.in, line)) break;
    if (!s.io.in_is_tty) s.io.out << line << "\n" << std::flush;
    if (line == "!!") line = last;
    last = line;
    if (const int code = runWords(splitWords(line), s); code != 0) rc = code;
    if (s.quit) break;
  }
  if (!s.quit) s.io.out << "\n";
  return rc;
}

}  // namespace

int runSreportWith(const std::vector<std::string>& args, const std::string& argv0, std::int64_t now,
                   SreportIo io, const SreportLoader& load) {
  auto parsed = parseSreportArgs(args);
  if (!parsed.ok()) {
    const std::string& e = parsed.error();
    // Slurm: getopt's complaint carries argv[0]; the fatal TRES error is printed as is.
    if (e.rfind("sreport: fatal:", 0) == 0) {
      io.err << e << "\n";
    } else if (e.rfind(kBareMark, 0) == 0) {
      io.err << argv0 << e.substr(e.find(':', kBareMark.size())) << "\n";
    } else {
      io.err << argv0 << ": " << e << "\n";
    }
    return 1;
  }
  for (const auto& w : parsed->warnings) io.err << w;   // Slurm ends these with no newline
  if (parsed->version) {
    io.out << kVersionLine << "\n";
    return 0;
  }
  if (parsed->help || parsed->usage) {   // Slurm's --usage prints the help too
    io.out << kHelp;
    return 0;
  }
  Session s{parsed->options, io, load, now};
  if (parsed->words.empty()) return runInteractive(s);
  return runWords(parsed->words, s);
}

int runSreport(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {{"SREPORT_TRES", "--tres"}});
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  return runSreportWith(args, argc > 0 ? argv[0] : kProg, now,
                        SreportIo{std::cin, isatty(STDIN_FILENO) != 0, std::cout, std::cerr}, loadData);
}

}  // namespace drover::cli
