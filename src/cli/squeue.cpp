#include "cli/squeue.h"

#include <getopt.h>
#include <unistd.h>

#include <cctype>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>
#include <set>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/huge_page_heap.h"
#include "cli/iterate.h"
#include "cli/squeue_steps.h"
#include "cli/step_rows.h"
#include "common/file_write.h"
#include "drover/config.h"
#include "drover/hostlist.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "squeue";

enum LongOnly { kOptHelp = 1000, kOptUsage, kOptJson, kOptYaml, kOptStart, kOptLocal, kOptFederation, kOptHide, kOptNoConvert, kOptMe, kOptArrayUnique };

constexpr const char* kUsage =
    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
    "              [--reservation reservation] [--sort fields] [--start]\n"
    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
    "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
    "              [--expand-patterns] [--json] [-ahjlrsv]\n";

constexpr const char* kHelp =
    "Usage: squeue [OPTIONS]\n"
    "  -A, --account=account(s)        comma separated list of accounts\n"
    "                                  to view, default is all accounts\n"
    "  -a, --all                       display jobs in hidden partitions\n"
    "  -h, --noheader                  no headers on output\n"
    "  -j, --job=job(s)                comma separated list of jobs IDs\n"
    "                                  to view, default is all\n"
    "      --json                      Produce JSON output\n"
    "      --yaml                      Produce YAML output\n"
    "  -l, --long                      long report\n"
    "  -L, --licenses=(license names)  comma separated list of license names to view\n"
    "      --me                        equivalent to --user=<my username>\n"
    "  -n, --name=job_name(s)          comma separated list of job names to view\n"
    "  -o, --format=format             format specification\n"
    "  -O, --Format=format             format specification\n"
    "  -p, --partition=partition(s)    comma separated list of partitions\n"
    "                                  to view, default is all partitions\n"
    "  -q, --qos=qos(s)                comma separated list of qos's\n"
    "                                  to view, default is all qos's\n"
    "  -R, --reservation=name          reservation to view, default is all\n"
    "  -r, --array                     display one job array element per line\n"
    "  -s, --step=step(s)              comma separated list of job steps\n"
    "                                  to view, default is all\n"
    "  -S, --sort=fields               comma separated list of fields to sort on\n"
    "      --start                     print expected start times of pending jobs\n"
    "  -t, --states=states             comma separated list of states to view,\n"
    "                                  default is pending and running,\n"
    "                                  '--states=all' reports all states\n"
    "  -u, --user=user_name(s)         comma separated list of users to view\n"
    "  -w, --nodelist=hostlist         list of nodes to view, default is\n"
    "                                  all nodes\n"
    "  -v, --verbose                   verbosity level\n"
    "  -V, --version                   output version information and exit\n"
    "\nHelp options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief summary of squeue options\n";

std::vector<std::string> append(std::vector<std::string> to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
  return to;
}


// -u of a user nobody is, as the controller found: the reference's error and an empty line
// each (stderr), then the report of the others, exit 0.
void reportUnknownUsers(const v1::GetJobsReply& reply) {
  for (const auto& u : reply.unknown_users()) std::cerr << "squeue: error: Invalid user: " << u << "\n\n";
}

// squeue -s: the jobs that can hold steps, with only what the step view reads.
int runSqueueSteps(ControllerClient& client, const SqueueOptions& o) {
  v1::GetJobsRequest request;
  for (const auto& id : o.job_ids) request.add_job_ids(id);
  // The jobs of the listed steps (an id the job list does not name selects nothing either way).
  if (o.job_ids.empty()) {
    for (const auto& id : o.step_ids) request.add_job_ids(id.job);
  }
  for (const auto& u : o.users) request.add_users(u);
  for (const auto& p : o.partitions) request.add_partitions(p);
  requestJobsHoldingSteps(&request);
  for (auto n : squeueStepFields().info) request.add_fields(n);
  auto reply = client.getJobs(request);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  reportUnknownUsers(*reply);
  std::vector<const v1::JobInfo*> jobs;
  for (const auto& job : reply->jobs()) jobs.push_back(&job);
  const std::int64_t now = reply->time() != 0 ? reply->time() : static_cast<std::int64_t>(std::time(nullptr));
  std::string text;
  std::vector<std::string> warnings;
  const Status rendered = renderSqueueStepsTo(o, jobs, now, &text, &warnings);
  for (const auto& w : warnings) printError(kProg, w);
  if (!rendered.ok()) {
    printError(kProg, rendered.error());
    return 1;
  }
  writeAll(STDOUT_FILENO, text);
  return 0;
}

// Whether the controller knows job `id` at all, in any state: asked again without -u's filter
// unless the reply came without one (`unfiltered`).
bool jobKnown(ControllerClient& client, const std::string& id, bool unfiltered) {
  if (unfiltered) return false;
  v1::GetJobsRequest probe;
  probe.add_job_ids(id);
  probe.set_include_finished(true);
  probe.add_fields(v1::JobInfo::kJobIdFieldNumber);
  auto reply = client.getJobs(probe);
  return reply.ok() && reply->jobs_size() > 0;
}

// The first -w name that is no node of the cluster (the controller's list), if any.
std::optional<std::string> firstUnknownNode(ControllerClient& client, const std::vector<std::string>& names) {
  auto reply = client.getNodes(v1::GetNodesRequest{});  // all: one unknown name fails a named request
  if (!reply.ok()) return std::nullopt;  // the jobs request reports an unreachable controller
  std::set<std::string> known;
  for (const auto& n : reply->nodes()) known.insert(n.name());
  for (const auto& n : names)
    if (!known.count(n)) return n;
  return std::nullopt;
}

// One report of the jobs (or with -s the steps) the options select, printed; 1 when the
// controller could not be asked or the options do not render.
int report(ControllerClient& client, const SqueueOptions& o) {
  // --json prints jobs whatever else is given (Slurm 22.05 ignores -s there too).
  if (o.steps && !o.json) return runSqueueSteps(client, o);
  for (const auto& w : squeueFormatWarnings(o)) printError(kProg, w);
  std::vector<std::string> sort_warnings;
  if (auto bad = invalidSortKey(o.sort, &sort_warnings)) {
    // As the reference: the header, then the error.
    std::string header;
    if (renderSqueueTo(o, {}, static_cast<std::int64_t>(std::time(nullptr)), &header).ok()) {
      writeAll(STDOUT_FILENO, header);
    }
    printError(kProg, std::string("Invalid sort specification: ") + *bad);
    return 1;
  }
  for (const auto& w : sort_warnings) std::cerr << kProg << ": " << w << "\n";
  // As the reference: `-w node99` is an error before anything is listed, header included.
  if (!o.nodes.empty()) {
    if (auto unknown = firstUnknownNode(client, o.nodes)) {
      printError(kProg, "Invalid node name " + *unknown);
      return 1;
    }
  }
  v1::GetJobsRequest request;
  // One job id, as the reference's squeue loads one job: the controller is asked for that job
  // (its array's records too) whatever its state and the other filters, which squeue applies
  // itself below; only a job the controller does not know at all is an error. A known job the
  // filters leave out (finished, another user's) prints the header alone, exit 0.
  const bool one_job = o.job_ids.size() == 1;
  const std::string one_id =
      one_job ? o.job_ids.front().substr(0, o.job_ids.front().find_first_not_of("0123456789")) : "";
  if (one_job) {
    request.add_job_ids(one_id);
    for (const auto& u : o.users) request.add_users(u);  // the controller names unknown users
    request.set_include_finished(true);
  } else {
    for (const auto& id : o.job_ids) request.add_job_ids(id);
    for (const auto& u : o.users) request.add_users(u);
    for (const auto& p : o.partitions) request.add_partitions(p);
    for (const auto& n : o.names) request.add_names(n);
    for (const auto& a : o.accounts) request.add_accounts(a);
    for (const auto& s : o.states) request.add_states(s);
    request.set_include_finished(!o.states.empty() || !o.job_ids.empty());
  }
  request.set_array_tasks_expanded(o.expand_arrays);
  // Only the fields the output reads: a few dozen bytes per job instead of its whole record.
  const SqueueFields fields = squeueFields(o);
  for (auto n : fields.info) request.add_fields(n);
  for (auto n : fields.spec) request.add_spec_fields(n);
  // Thousands of rows parsed into one arena: a few large blocks instead of an allocation per
  // string and message. It is never torn down (squeue exits right after printing; destroying
  // 5,000 rows and their strings was a fifth of its instructions), and stays reachable from
  // this static so leak checkers do not report it.
  static google::protobuf::Arena* const arena = [] {
    useHugePageHeap();
    google::protobuf::ArenaOptions arena_options;
    arena_options.start_block_size = 64 * 1024;
    arena_options.max_block_size = 1024 * 1024;
    return new google::protobuf::Arena(arena_options);
  }();
  static bool reused = false;
  if (reused) arena->Reset();   // -i: the previous report's rows are printed and done with
  reused = true;
  auto reply = client.getJobs(request, arena);
  if (!reply.ok()) {
    if (client.lastFailure() == FailureKind::kNotFound || client.lastFailure() == FailureKind::kInvalid) {
      std::cerr << "slurm_load_jobs error: " << reply.error() << "\n";
    } else {
      printError(kProg, reply.error());
    }
    return 1;
  }
  reportUnknownUsers(**reply);
  std::vector<const v1::JobInfo*> jobs;
  const v1::GetJobsReply& rows = **reply;
  jobs.reserve(rows.jobs_size());
  for (const auto& job : rows.jobs()) jobs.push_back(&job);
  const std::int64_t now = rows.time() != 0 ? rows.time() : static_cast<std::int64_t>(std::time(nullptr));
  if (one_job && jobs.empty() && !jobKnown(client, one_id, o.users.empty())) {
    std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  std::string text;
  if (auto rendered = renderSqueueTo(o, jobs, now, &text); !rendered.ok()) {
    printError(kProg, rendered.error());
    return 1;
  }
  writeAll(STDOUT_FILENO, text);
  return 0;
}

}  // namespace

Result<SqueueCommand> parseSqueueArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"account", required_argument, nullptr, 'A'}, {"all", no_argument, nullptr, 'a'},
      {"noheader", no_argument, nullptr, 'h'},      {"iterate", required_argument, nullptr, 'i'},
      {"jobs", optional_argument, nullptr, 'j'},    {"job", optional_argument, nullptr, 'j'},
      {"long", no_argument, nullptr, 'l'},          {"cluster", required_argument, nullptr, 'M'},
      {"clusters", required_argument, nullptr, 'M'}, {"name", required_argument, nullptr, 'n'},
      {"format", required_argument, nullptr, 'o'},  {"Format", required_argument, nullptr, 'O'},
      // Slurm's name; --partition is an abbreviation of it (getopt's messages name it so).
      {"partitions", required_argument, nullptr, 'p'}, {"qos", required_argument, nullptr, 'q'},
      {"licenses", required_argument, nullptr, 'L'},
      {"reservation", required_argument, nullptr, 'R'},
      {"array", no_argument, nullptr, 'r'},         {"steps", optional_argument, nullptr, 's'},
      {"sort", required_argument, nullptr, 'S'},    {"states", required_argument, nullptr, 't'},
      {"state", required_argument, nullptr, 't'},   {"user", required_argument, nullptr, 'u'},
      {"users", required_argument, nullptr, 'u'},   {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},       {"nodelist", required_argument, nullptr, 'w'},
      {"help", no_argument, nullptr, kOptHelp},     {"usage", no_argument, nullptr, kOptUsage},
      {"json", no_argument, nullptr, kOptJson},
      {"yaml", no_argument, nullptr, kOptYaml},     {"start", no_argument, nullptr, kOptStart},
      {"local", no_argument, nullptr, kOptLocal},   {"federation", no_argument, nullptr, kOptFederation},
      {"hide", no_argument, nullptr, kOptHide},     {"noconvert", no_argument, nullptr, kOptNoConvert},
      {"me", no_argument, nullptr, kOptMe}, {"array-unique", no_argument, nullptr, kOptArrayUnique},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);

  SqueueCommand cmd;
  SqueueOptions& o = cmd.options;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), "+:A:ahi:j::lL:M:n:o:O:p:q:R:rs::S:t:u:vVw:",
                          kLong, nullptr)) != -1) {
    switch (c) {
      // --array-unique: a pending array is one line already (the reference's listing did not
      // change with it, -r or not).
      case 'a': case 'v': case kOptLocal: case kOptFederation: case kOptHide: case kOptNoConvert:
      case kOptArrayUnique:
        break;
      case 'A': o.accounts = append(o.accounts, splitCommas(optarg)); break;
      case 'h': o.no_header = true; break;
      case 'j':
        if (optarg) o.job_ids = append(o.job_ids, splitCommas(optarg));
        else if (optind < argv.argc() && argv[optind][0] != '-')
          o.job_ids = append(o.job_ids, splitCommas(argv[optind++]));
        break;
      case 'l': o.long_format = true; break;
      case 'n': o.names = append(o.names, splitCommas(optarg)); break;
      case 'o': o.format = optarg; break;
      case 'O': o.format_long = optarg; break;
      case 'p': o.partitions = append(o.partitions, splitCommas(optarg)); break;
      case 'q': o.qos = append(o.qos, splitCommas(optarg)); break;
      case 'L': o.licenses = append(o.licenses, splitCommas(optarg)); break;
      case 'R': o.reservation = optarg; break;
      case 'r': o.expand_arrays = true; break;
      case 's':
        o.steps = true;
        // Only attached (-s28.0, --steps=28.0): a separate word is not the list, as in Slurm.
        for (const auto& id : optarg ? splitCommas(optarg) : std::vector<std::string>{}) {
          auto step_id = parseStepId(id, false);
          if (!step_id.ok()) return makeError(step_id.error());
          o.step_ids.push_back(*step_id);
        }
        break;
      case 'S': o.sort = optarg; break;
      case 't': o.states = append(o.states, splitCommas(optarg)); break;
      // Each of -u and --me replaces what the other gave: the reference's `--me -u bob` listed
      // bob's jobs, `-u bob --me` the caller's.
      case 'u': o.users = splitCommas(optarg); break;
      // By uid, which the controller matches as it matches a name: this static binary cannot
      // look its user's name up: glibc's NSS modules crash it for a user /etc/passwd lacks.
      case kOptMe: o.users = {std::to_string(getuid())}; break;
      case 'w': {
        auto hosts = hostlist::expand(optarg);
        if (!hosts.ok()) return makeError("Invalid node name specified: " + hosts.error());
        o.nodes = append(o.nodes, *hosts);
        break;
      }
      case kOptJson: o.json = true; break;
      case kOptYaml: o.json = o.yaml = true; break;  // the --json document, written as YAML
      case kOptStart: o.start = true; break;
      case 'V': cmd.version = true; break;
      case kOptHelp: cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      case 'i': {
        const auto seconds = parseIterateSeconds(optarg);
        if (!seconds) {
          return makeError(std::string("--iterate=") + optarg +
                           ": the interval must be a number of seconds, 1 or more");
        }
        o.iterate_s = *seconds;
        break;
      }
      case 'M': return makeError(std::string(kClustersUnsupported));
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  // An id that does not start with a number is refused before asking, as the reference's
  // squeue refused "-j abc" (an unknown number is the controller's answer instead).
  for (const auto& id : o.job_ids) {
    if (id.empty() || !std::isdigit(static_cast<unsigned char>(id[0]))) return makeError("Invalid job id: " + id);
  }
  if (!o.format.empty() && o.long_format) return makeError(std::string(kFormatWithLong));
  if (!o.format.empty() && !o.format_long.empty()) {
    return makeError("-o (--format) is incompatible with -O (--Format)");
  }
  // A bare job id list, as Slurm accepts after options ("squeue 12,13" is not Slurm; ignore).
  if (optind < argv.argc()) {
    return makeError(std::string("Unknown argument: ") + argv[optind] +
                     "\nTry \"squeue --help\" for more information");
  }
  return cmd;
}

void applyEnvironmentFormats(SqueueOptions& options) {
  if (!options.format.empty() || !options.format_long.empty() || options.long_format) return;
  if (const char* format = std::getenv("SQUEUE_FORMAT"); format && *format) options.format = format;
  if (const char* format = std::getenv("SQUEUE_FORMAT2"); format && *format) {
    options.format_long = format;
  }
}

int runSqueue(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv,
                                        {{"SQUEUE_SORT", "--sort"},
                                         {"SQUEUE_PARTITION", "--partition"},
                                         {"SQUEUE_USERS", "--user"},
                                         {"SQUEUE_ACCOUNT", "--account"},
                                         {"SQUEUE_STATES", "--states"},
                                         {"SQUEUE_NAMES", "--name"}});
  auto parsed = parseSqueueArgs(args);
  if (!parsed.ok()) {
    printParseError(kProg, parsed.error());
    return 1;
  }
  applyEnvironmentFormats(parsed->options);
  if (parsed->options.json) {
    // --json names the cluster; only that output pays for reading the config a second time,
    // once for all of -i's reports.
    if (auto cfg = config::loadClusterConfig(config::defaultConfigPath())) {
      parsed->options.cluster_name = cfg->cluster_name;
    }
  }
  const SqueueCommand& cmd = *parsed;
  if (printedInfo(cmd, kHelp, kUsage)) return 0;
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  const SqueueOptions& o = cmd.options;
  if (o.iterate_s == 0) return report(*client, o);
  reportEvery(o.iterate_s, [&] { report(*client, o); });
}

}  // namespace drover::cli
