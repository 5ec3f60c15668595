#include "cli/sstat.h"

#include <getopt.h>

#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "common/ascii_case.h"
#include "ctld/acct_wire.h"
#include "drover/hostlist.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "sstat";
// Item errors Slurm's sstat ends with as "fatal" (exit 1); every other error is "error".
constexpr std::string_view kFatal = "fatal: ";

enum LongOnly { kOptUsage = 1000, kOptNoConvert };

constexpr const char* kUsage =
    "Usage: sstat [options] -j <job(.stepid)>\n"
    "\tUse --help for help\n";

constexpr const char* kHelp =
    "sstat [<OPTION>] -j <job(.stepid)>\n"
    "    Valid <OPTION> values are:\n"
    "      -a, --allsteps:\n"
    "                   Print all steps for the given job(s) when no step is\n"
    "                   specified.\n"
    "      -e, --helpformat:\n"
    "                   Print a list of fields that can be specified with the\n"
    "                   '--format' option\n"
    "     -h, --help:   Print this description of use.\n"
    "     -i, --pidformat:\n"
    "                   Predefined format to list the pids running for each\n"
    "                   job step.  (JobId,Nodes,Pids)\n"
    "     -j, --jobs:\n"
    "                   Format is <job(.step)>. Stat this job step\n"
    "                   or comma-separated list of job steps. This option is\n"
    "                   required.  The step portion will default to the lowest\n"
    "                   numbered (not batch, extern, etc) step running if not\n"
    "                   specified, unless the --allsteps flag is set where not\n"
    "                   specifying a step will result in all running steps\n"
    "                   to be displayed. A step id of 'batch' will display the\n"
    "                   information about the batch step.\n"
    "     -n, --noheader:\n"
    "                   No header will be added to the beginning of output.\n"
    "                   The default is to print a header.\n"
    "     --noconvert:  Don't convert units from their original type\n"
    "                   (e.g. 2048M won't be converted to 2G).\n"
    "     -o, --format:\n"
    "                   Comma separated list of fields. (use \"--helpformat\"\n"
    "                   for a list of available fields).\n"
    "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     --usage:      Display brief usage message.\n"
    "     -v, --verbose:\n"
    "                   Primarily for debugging purposes, report the state of\n"
    "                   various variables during processing.\n"
    "     -V, --version: Print version.\n";

std::string stepText(std::uint64_t job_id, std::int64_t step_id) {
  return "StepId=" + std::to_string(job_id) + "." + acct::stepIdName(step_id);
}

// The first node of a step's node list: where Slurm's sstat names the refusal.
std::string firstNode(const std::string& node_list) {
  auto nodes = hostlist::expand(node_list);
  return nodes.ok() && !nodes->empty() ? nodes->front() : node_list;
}

}  // namespace

Result<SstatTarget> parseSstatTarget(const std::string& text) {
  const auto dot = text.find('.');
  const std::string job = text.substr(0, dot);
  if (!allAsciiDigits(job) || job.size() > 19) {
    return makeError(std::string(kFatal) + "Bad job/step specified: " + text);
  }
  SstatTarget t;
  t.job_id = std::stoull(job);
  if (dot == std::string::npos) return t;
  const std::string step = text.substr(dot + 1);
  if (step == "batch") {
    t.step_id = acct::kBatchStep;
  } else if (step == "extern") {
    t.step_id = acct::kExternStep;
  } else if (allAsciiDigits(step) && step.size() <= 9) {
    t.step_id = std::stoll(step);
  } else {
    // Slurm's text names the job, not the step it could not read.
    return makeError(std::string(kFatal) + "Bad step specified: " + job);
  }
  return t;
}

Result<SstatCommand> parseSstatArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"allsteps", no_argument, nullptr, 'a'},    {"helpformat", no_argument, nullptr, 'e'},
      {"help", no_argument, nullptr, 'h'},        {"pidformat", no_argument, nullptr, 'i'},
      {"jobs", required_argument, nullptr, 'j'},  {"noheader", no_argument, nullptr, 'n'},
      {"format", required_argument, nullptr, 'o'}, {"fields", required_argument, nullptr, 'o'},
      {"parsable", no_argument, nullptr, 'p'},    {"parsable2", no_argument, nullptr, 'P'},
      {"verbose", no_argument, nullptr, 'v'},     {"version", no_argument, nullptr, 'V'},
      {"usage", no_argument, nullptr, kOptUsage}, {"noconvert", no_argument, nullptr, kOptNoConvert},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SstatCommand cmd;
  std::string format;
  bool pids = false;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), ":aehij:no:pPvV", kLong, nullptr)) != -1) {
    switch (c) {
      case 'a': cmd.all_steps = true; break;
      case 'e': cmd.helpformat = true; break;
      case 'h': cmd.help = true; break;
      case 'i': pids = true; break;
      case 'j':
        for (const auto& item : splitCommas(optarg)) {
          auto t = parseSstatTarget(item);
          if (!t.ok()) return makeError(t.error());
          cmd.targets.push_back(*t);
        }
        break;
      case 'n': cmd.render.header = false; break;
      case 'o': format += (format.empty() ? "" : ",") + std::string(optarg); break;
      case 'p': cmd.render.parsable = acct::report::Parsable::kTrailing; break;
      case 'P': cmd.render.parsable = acct::report::Parsable::kNoTrailing; break;
      case 'v': break;
      case 'V': cmd.version = true; break;
      case kOptUsage: cmd.usage = true; break;
      case kOptNoConvert: cmd.render.noconvert = true; break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong, false));
    }
  }
  if (optind < argv.argc()) return makeError(std::string("Unknown argument: ") + argv[optind]);
  // As Slurm's: -i wins over -o.
  if (pids) {
    cmd.columns = acct::report::sstatPidColumns();
  } else if (!format.empty()) {
    auto cols = acct::report::parseSstatFormat(format);
    if (!cols.ok()) return makeError(cols.error());
    cmd.columns = std::move(*cols);
  } else {
    cmd.columns = acct::report::sstatDefaultColumns();
  }
  return cmd;
}

int runSstat(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {});
  auto parsed = parseSstatArgs(args);
  if (!parsed.ok()) {
    const std::string& why = parsed.error();
    if (why.rfind(kFatal, 0) == 0) {
      std::cerr << kProg << ": " << why << "\n";
    } else {
      printError(kProg, why);
    }
    return 1;
  }
  const SstatCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  if (cmd.helpformat) {
    std::cout << acct::report::renderSstatHelpFormat();
    return 0;
  }
  if (cmd.targets.empty()) {
    std::cout << kUsage;
    std::cout.flush();
    printError(kProg, "You didn't give me any jobs to stat.");
    return 1;
  }
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  // The header first, then each item's rows or its error, as Slurm's: an item that fails is
  // told on stderr and the others are still printed (exit 0).
  if (cmd.render.header) {
    std::cout << acct::report::renderSstat({}, cmd.columns, cmd.render);
    std::cout.flush();
  }
  acct::report::SstatOptions rows_only = cmd.render;
  rows_only.header = false;
  for (const auto& target : cmd.targets) {
    v1::GetStepStatsRequest request;
    request.set_job_id(target.job_id);
    if (target.step_id) request.set_step_id(*target.step_id);
    request.set_all_steps(cmd.all_steps);
    auto reply = client->getStepStats(request);
    if (!reply.ok()) {
      printError(kProg, reply.error());
      // Unreachable controller or refused credential: no other item would fare better.
      if (client->lastFailure() != FailureKind::kNotFound &&
          client->lastFailure() != FailureKind::kInvalid)
        return 1;
      continue;
    }
    std::vector<acct::report::SstatRow> rows;
    for (const auto& s : reply->steps()) {
      const acct::StepRecord step = ctld::fromWire(s.step());
      if (s.permission_denied()) {
        printError(kProg, "slurm_job_step_stat: there was an error with the request to " +
                              firstNode(step.node_list) + " rc = Invalid user id");
        printError(kProg, "problem getting step_layout for " +
                              stepText(step.job_id, step.step_id) + ": Invalid user id");
        continue;
      }
      for (const auto& why : s.node_errors()) {
        printError(kProg, "slurm_job_step_stat: there was an error with the request to " + why);
      }
      if (static_cast<std::uint32_t>(s.node_errors_size()) >= step.nnodes) continue;
      rows.push_back(acct::report::SstatRow{step,
                                            {s.pids().begin(), s.pids().end()},
                                            s.tres_usage_out_min(),
                                            s.tres_usage_out_min_node(),
                                            s.tres_usage_out_min_task()});
    }
    std::cout << acct::report::renderSstat(rows, cmd.columns, rows_only);
    std::cout.flush();
  }
  return 0;
}

}  // namespace drover::cli
