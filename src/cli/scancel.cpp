#include "cli/scancel.h"
#include "common/slurm_errors.h"

#include <algorithm>

#include <getopt.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <set>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/job_values.h"
#include "jobspec/signal_spec.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scancel";

// Slurm's error numbers: scancel exits with the last one's low byte (ESLURM_ACCESS_DENIED 2002
// -> 210, as golden 066).
constexpr int kExitAccessDenied = 2002 & 0xff;
// ESLURM_INVALID_JOB_ID 2017 -> 225: the reference's exit for a step its running job lacks
// (`scancel 156.3`; a step of an ended or unknown job exited 1).
constexpr int kExitNoSuchStep = 2017 & 0xff;

enum LongOnly { kOptHelp = 1000, kOptUsage, kOptMe, kOptHurry, kOptFederation, kOptSibling, kOptCtld };

constexpr const char* kUsage =
    "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
    "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
    "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
    "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
    "               [job_id[_array_id][.step_id]]\n";

constexpr const char* kHelp =
    "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
    "  -A, --account=account           act only on jobs charging this account\n"
    "  -b, --batch                     signal batch shell for specified job\n"
    "      --ctld                      send request directly to the controller (always so)\n"
    "  -f, --full                      signal batch shell and all steps for specified job\n"
    "  -H, --hurry                     avoid burst buffer stage out\n"
    "  -i, --interactive               require response from user for each job\n"
    "      --me                        equivalent to --user=<my username>\n"
    "  -n, --name=job_name             act only on jobs with this name\n"
    "  -p, --partition=partition       act only on jobs in this partition\n"
    "  -Q, --quiet                     disable warnings\n"
    "  -s, --signal=name | integer     signal to send to job, default is SIGKILL\n"
    "  -t, --state=states              act only on jobs in this state.  Valid job\n"
    "                                  states are PENDING, RUNNING and SUSPENDED\n"
    "  -u, --user=user_name            act only on jobs of this user\n"
    "  -V, --version                   output version information and exit\n"
    "  -v, --verbose                   verbosity level\n"
    "  -w, --nodelist                  act only on jobs on these nodes\n"
    "\nHelp options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display brief usage message\n";

bool silentUnlessVerbose(const std::string& error) {
  return error == kInvalidJobId || error == kAlreadyDone;
}

}  // namespace

Result<ScancelCommand> parseScancelArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"account", required_argument, nullptr, 'A'}, {"batch", no_argument, nullptr, 'b'},
      {"full", no_argument, nullptr, 'f'},          {"hurry", no_argument, nullptr, 'H'},
      {"interactive", no_argument, nullptr, 'i'},   {"cluster", required_argument, nullptr, 'M'},
      {"clusters", required_argument, nullptr, 'M'}, {"name", required_argument, nullptr, 'n'},
      {"jobname", required_argument, nullptr, 'n'}, {"partition", required_argument, nullptr, 'p'},
      {"qos", required_argument, nullptr, 'q'},     {"quiet", no_argument, nullptr, 'Q'},
      {"reservation", required_argument, nullptr, 'R'}, {"signal", required_argument, nullptr, 's'},
      {"state", required_argument, nullptr, 't'},   {"user", required_argument, nullptr, 'u'},
      {"verbose", no_argument, nullptr, 'v'},       {"version", no_argument, nullptr, 'V'},
      {"nodelist", required_argument, nullptr, 'w'}, {"wckey", required_argument, nullptr, 'W'},
      {"help", no_argument, nullptr, kOptHelp},     {"usage", no_argument, nullptr, kOptUsage},
      {"me", no_argument, nullptr, kOptMe},         {"federation", no_argument, nullptr, kOptFederation},
      {"sibling", required_argument, nullptr, kOptSibling}, {"ctld", no_argument, nullptr, kOptCtld},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);

  ScancelCommand cmd;
  auto& r = cmd.request;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), ":A:bfHiM:n:p:q:QR:s:t:u:vVw:W:",
                          kLong, nullptr)) != -1) {
    switch (c) {
      case 'A': r.set_account(optarg); break;
      case 'b': r.set_batch_only(true); break;
      case 'f': r.set_full(true); break;
      case 'H': case kOptFederation: case kOptSibling: case kOptCtld: break;
      case 'q': r.set_qos(optarg); break;
      case 'R': r.set_reservation(optarg); break;
      case 'W': r.set_wckey(optarg); break;
      case 'i': cmd.interactive = true; break;
      case 'M': return makeError(std::string(kClustersUnsupported));
      case 'n': r.set_name(optarg); break;
      case 'p': r.set_partition(optarg); break;
      case 'Q': cmd.quiet = true; break;
      case 's': {
        auto sig = jobspec::signalFromName(optarg);
        // The reference's words, bare (0 too: no signal is no cancel).
        if (!sig) return makeError(std::string(kBareMark) + "Unknown job signal: " + optarg);
        r.set_signal(*sig);
        break;
      }
      case 't':
        for (const auto& s : splitCommas(optarg)) {
          auto st = parseJobStateName(s);
          if (!st || (*st != v1::JOB_PENDING && *st != v1::JOB_RUNNING && *st != v1::JOB_SUSPENDED))
            return makeError(std::string(kBareMark) + "Invalid job state specified: " + s +
                             "\nValid job states are PENDING, RUNNING, and SUSPENDED");
          r.add_states(std::string(jobStateName(*st)));
        }
        break;
      // A name nobody has: the controller answers "Invalid user name: X" (this static binary
      // cannot look names up safely: glibc's NSS modules crash it for an unknown name).
      case 'u': r.set_user(optarg); break;
      // By uid: the reference's -v no-match line named --me's user so ("user_name=1001").
      case kOptMe: r.set_user(std::to_string(getuid())); break;
      case 'v': cmd.verbose = true; break;
      case 'V': cmd.version = true; break;
      case 'w': r.set_nodes(optarg); break;
      case kOptHelp: cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  for (int i = optind; i < argv.argc(); ++i) {
    for (const auto& id : splitCommas(argv[i])) {
      // 123, 123_4, 123_[1-3], 123.0, 123_4.0
      // Job 0 does not exist: the reference refused `0`, `00` and `0_1` before asking.
      const auto bad = id.find_first_not_of("0123456789_[]-,.%");
      const bool zero = std::strtoull(id.c_str(), nullptr, 10) == 0;
      if (id.empty() || !std::isdigit(static_cast<unsigned char>(id[0])) || bad != std::string::npos || zero)
        return makeError("Invalid job id " + id);
      r.add_job_ids(id);
    }
  }
  if (!cmd.help && !cmd.usage && !cmd.version && r.job_ids_size() == 0 && r.user().empty() &&
      r.name().empty() && r.states_size() == 0 && r.partition().empty() && r.nodes().empty() &&
      r.account().empty() && r.qos().empty() && r.reservation().empty() && r.wckey().empty()) {
    return makeError("No job identification provided");
  }
  return cmd;
}

namespace {

// -v with filters and no job id, when no job matched: the reference's line, the filters by
// name in its order (alphabetical), each "key=value " (exit 0).
std::string noMatchLine(const v1::CancelJobsRequest& r) {
  std::string out = "scancel: error: No active jobs match ALL job filters, including: ";
  auto add = [&out](const char* key, const std::string& value) {
    if (!value.empty()) out += std::string(key) + "=" + value + " ";
  };
  add("account", r.account());
  add("job_name", r.name());
  add("nodelist", r.nodes());
  add("partition", r.partition());
  add("qos", r.qos());
  add("reservation", r.reservation());
  add("state", r.states_size() > 0 ? r.states(0) : std::string());
  add("user_name", r.user());
  add("wckey", r.wckey());
  return out + "\n";
}

// Whether the controller's result for one job (`7`, `7_3`) answers the id as given: itself, a
// task of the array given whole (`7`), or one of a task list given (`7_[2-3,5]`).
bool answers(const std::string& given, const std::string& result) {
  if (result == given) return true;
  const std::size_t us = given.find('_');
  const std::string array = given.substr(0, us);
  if (result.compare(0, array.size() + 1, array + "_") != 0) return false;
  if (us == std::string::npos) return true;
  const std::string list = given.substr(us + 1);
  if (list.size() < 2 || list.front() != '[' || list.back() != ']') return false;
  const auto tasks = expandArrayTasks(std::string_view(list).substr(1, list.size() - 2));
  const auto task = static_cast<std::uint32_t>(std::strtoul(result.c_str() + array.size() + 1, nullptr, 10));
  return std::find(tasks.begin(), tasks.end(), task) != tasks.end();
}

// The results grouped under the ids as given, in their order (the rest, selected by filters,
// one group each), so that -v names each id once as written, as the reference's
// "Terminating job 7067_[2-3]" for two tasks.
std::vector<std::pair<std::string, std::vector<const v1::CancelResult*>>> groupByGivenId(
    const v1::CancelJobsRequest& request, const v1::CancelJobsReply& reply) {
  std::vector<std::pair<std::string, std::vector<const v1::CancelResult*>>> groups;
  for (const auto& id : request.job_ids()) groups.push_back({id, {}});
  for (const auto& r : reply.results()) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return answers(g.first, r.job_id()); });
    if (it == groups.end()) groups.push_back({r.job_id(), {&r}});
    else it->second.push_back(&r);
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return g.second.empty(); }),
               groups.end());
  return groups;
}

}  // namespace

ScancelReport reportScancel(const ScancelCommand& command, const v1::CancelJobsReply& reply,
                            const std::set<std::string>& running_jobs) {
  ScancelReport report;
  if (command.verbose && !command.quiet && reply.results_size() == 0 &&
      command.request.job_ids_size() == 0) {
    report.stderr_text = noMatchLine(command.request);
    return report;
  }
  const int sig = command.request.signal();
  // With a signal (-s, KILL too), --batch or -i the reference reported every failure, an
  // unknown or finished job's as well, as "Kill job error", exit 1 (-Q silenced the line, not
  // the status); a plain cancel of such a job is silent unless -v.
  const bool loud_always = sig != 0 || command.request.batch_only() || command.interactive;
  for (const auto& [given, results] : groupByGivenId(command.request, reply)) {
    // A step named by its id is reported whatever went wrong, as the reference's `scancel
    // 99999.0` ("Kill job error on job step id 99999.0: Invalid job id specified", exit 1).
    const bool step = given.find('.') != std::string::npos;
    const bool loud = loud_always || step;
    if (command.verbose) {
      if (sig != 0) {
        report.stderr_text += "scancel: Signal " + std::to_string(sig) + " to job " + given + "\n";
      } else {
        report.stderr_text += std::string("scancel: Terminating ") + (step ? "step " : "job ") +
                              given + "\n";
      }
    }
    // Tasks of a group that ended before are no error while others took the cancel (the
    // reference's `scancel -v A` with some tasks done printed its one line); a group that
    // failed throughout says so once, under the id as given.
    const bool any_ok = std::any_of(results.begin(), results.end(), [](const auto* r) { return r->ok(); });
    const bool one_failure = !any_ok && std::all_of(results.begin(), results.end(), [&](const auto* r) {
      return r->error() == results.front()->error();
    });
    for (const v1::CancelResult* r : results) {
      if (r->ok()) continue;
      // A step of a job still pending: nothing to end, and the reference said nothing, exit 0.
      const bool pending_step = step && r->error() == "Job is pending execution";
      const bool quiet_kind = (silentUnlessVerbose(r->error()) && !loud) || pending_step;
      if (quiet_kind && (!command.verbose || any_ok)) continue;
      // A step its running job lacks: the reference named the job alone, and exited 225.
      const std::string job_part = given.substr(0, given.find('.'));
      const bool missing_step =
          step && r->error() == kInvalidJobId && running_jobs.contains(job_part);
      if (!quiet_kind) {
        report.exit_code = r->error() == "Access/permission denied" ? kExitAccessDenied
                           : missing_step                          ? kExitNoSuchStep
                                                                   : 1;
      }
      if (command.quiet && silentUnlessVerbose(r->error())) continue;
      const std::string& id = missing_step ? job_part : one_failure ? given : r->job_id();
      report.stderr_text += std::string("scancel: error: Kill job error on job ") +
                            (step ? "step id " : "id ") + id + ": " + r->error() + "\n";
      if (one_failure) break;
    }
  }
  return report;
}

std::vector<std::string> confirmEach(const v1::CancelJobsReply& would, std::istream& in,
                                     std::ostream& out) {
  std::vector<std::string> confirmed;
  for (const v1::CancelResult& r : would.results()) {
    if (!r.ok()) continue;
    const bool step = r.job_id().find('.') != std::string::npos;
    const std::string prompt = std::string("Cancel ") + (step ? "step_id=" : "job_id=") +
                               r.job_id() + " name=" + r.name() + " partition=" + r.partition() +
                               " [y/n]? ";
    for (;;) {
      out << prompt << std::flush;
      std::string answer;
      if (!std::getline(in, answer)) {
        out << "\n";
        return confirmed;
      }
      const char first = answer.empty() ? '\0' : answer[0];
      if (first == 'y' || first == 'Y') confirmed.push_back(r.job_id());
      if (first == 'y' || first == 'Y' || first == 'n' || first == 'N') break;
    }
  }
  return confirmed;
}

namespace {

// The jobs, still holding their nodes, of the steps the controller called unknown ("123" for
// 123.4): only those need the question, so a cancel that went well asks nothing more.
std::set<std::string> runningJobsOfMissingSteps(ControllerClient& client,
                                                const v1::CancelJobsReply& reply) {
  v1::GetJobsRequest query;
  for (const auto& r : reply.results()) {
    if (r.ok() || r.error() != kInvalidJobId) continue;
    const auto dot = r.job_id().find('.');
    if (dot != std::string::npos) query.add_job_ids(r.job_id().substr(0, dot));
  }
  std::set<std::string> running;
  if (query.job_ids_size() == 0) return running;
  auto jobs = client.getJobs(query);
  if (!jobs.ok()) return running;  // the plain message then
  for (const auto& j : jobs->jobs()) {
    if (j.state() == v1::JOB_RUNNING || j.state() == v1::JOB_SUSPENDED) {
      running.insert(std::to_string(j.job_id()));
    }
  }
  return running;
}

// scancel -i: a dry run names what the call would act on, the user confirms each, and only the
// confirmed ids (with the call's signal, --batch and --full, none of its filters) are sent.
// Refusals the dry run found are reported as the call would have reported them.
int runInteractively(const ScancelCommand& cmd, ControllerClient& client) {
  v1::CancelJobsRequest ask = cmd.request;
  ask.set_dry_run(true);
  auto would = client.cancelJobs(ask);
  if (!would.ok()) {
    printError(kProg, would.error());
    return 1;
  }
  v1::CancelJobsReply refused;
  for (const auto& r : would->results()) {
    if (!r.ok()) *refused.add_results() = r;
  }
  ScancelReport report = reportScancel(cmd, refused);
  std::cerr << report.stderr_text;
  const std::vector<std::string> confirmed = confirmEach(*would, std::cin, std::cout);
  if (confirmed.empty()) return report.exit_code;
  ScancelCommand act = cmd;
  act.request.Clear();
  for (const auto& id : confirmed) act.request.add_job_ids(id);
  act.request.set_signal(cmd.request.signal());
  act.request.set_batch_only(cmd.request.batch_only());
  act.request.set_full(cmd.request.full());
  auto reply = client.cancelJobs(act.request);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  const ScancelReport acted = reportScancel(act, *reply);
  std::cerr << acted.stderr_text;
  return std::max(report.exit_code, acted.exit_code);
}

}  // namespace

int runScancel(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv,
                                        {{"SCANCEL_ACCOUNT", "--account"},
                                         {"SCANCEL_BATCH", "--batch", false},
                                         {"SCANCEL_FULL", "--full", false},
                                         {"SCANCEL_NAME", "--name"},
                                         {"SCANCEL_PARTITION", "--partition"},
                                         {"SCANCEL_QOS", "--qos"},
                                         {"SCANCEL_STATE", "--state"},
                                         {"SCANCEL_USER", "--user"},
                                         {"SCANCEL_VERBOSE", "--verbose", false},
                                         {"SCANCEL_WCKEY", "--wckey"}});
  auto parsed = parseScancelArgs(args);
  if (!parsed.ok()) {
    printParseError(kProg, parsed.error());
    return 1;
  }
  const ScancelCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  if (cmd.interactive) return runInteractively(cmd, *client);
  auto reply = client->cancelJobs(cmd.request);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  auto report = reportScancel(cmd, *reply, runningJobsOfMissingSteps(*client, *reply));
  std::cerr << report.stderr_text;
  return report.exit_code;
}

}  // namespace drover::cli
