#include "cli/sacct.h"

#include <nlohmann/json.hpp>

#include <getopt.h>
#include <charconv>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <iostream>

#include "acct/job_flags.h"
#include "cli/cli_common.h"
#include "cli/slurm_json.h"
#include "cli/controller_client.h"
#include "cli/node_values.h"
#include "cli/window_time.h"
#include "ctld/acct_wire.h"
#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "drover/hostlist.h"
#include "drover/time_spec.h"

namespace drover::cli {
namespace {

// Which part of a `-j` id is wrong, in the reference's words: the job (`abc.0`: the whole id),
// the array element (`1_x`: "Bad job array element specified: 1") or the step (`1.abc`,
// `1_1.x`: "Bad step specified: 1", what precedes the step).
std::string badJobSelector(const std::string& id) {
  const std::string head = id.substr(0, id.find('.'));
  const std::string job = head.substr(0, head.find('_'));
  const bool job_ok = !job.empty() && job.find_first_not_of("0123456789") == std::string::npos;
  if (!job_ok) return "Bad job/step specified: " + id;
  if (head != job && !acct::parseJobSelector(head).ok()) {
    return "Bad job array element specified: " + job;
  }
  if (head != id) return "Bad step specified: " + head;
  return "Bad job/step specified: " + id;
}

constexpr const char* kProg = "sacct";
// -c and -f without job completion data (JobCompType), as the reference said it.
constexpr const char* kCompletionDisabled = "Slurm job completion is disabled";

enum LongOnly {
  kOptHelp = 1000, kOptUsage, kOptJson, kOptName, kOptNoConvert, kOptLocal, kOptFederation, kOptDelimiter,
  kOptUnits, kOptUseLocalUid, kOptWholeHetjob, kOptYaml, kOptEnvVars
};

constexpr const char* kHelp =
    "sacct [<OPTION>]\n"
    "    Valid <OPTION> values are:\n"
    "     -a, --allusers:    Display jobs for all users.\n"
    "     -A, --accounts:    Use this comma separated list of accounts.\n"
    "     -b, --brief:       Equivalent to '--format=jobid,state,exitcode'.\n"
    "     -D, --duplicates:  If Slurm job ids are reset, show all jobs with the id.\n"
    "     --delimiter:       ASCII characters used to separate the fields when -p or -P is given.\n"
    "     -e, --helpformat:  Print a list of fields that can be specified with '--format'.\n"
    "     -E, --endtime:     Select jobs eligible before this time.\n"
    "     -x, --associations: Select jobs of these association ids (as sshare shows them).\n"
    "     -F, --flags:       Select jobs started by these scheduling paths (SchedSubmit,\n"
    "                        SchedMain, SchedBackfill) or with StartRecieved.\n"
    "     -j, --jobs:        Display information about this job or comma-separated list of jobs.\n"
    "     --json:            Produce JSON output.\n"
    "     --yaml:            Produce YAML output.\n"
    "     -l, --long:        Equivalent to specifying a long list of fields.\n"
    "     --name:            Display jobs that have any of these name(s).\n"
    "     -n, --noheader:    No header will be added to the beginning of output.\n"
    "     -N, --nodelist:    Display jobs that ran on any of these nodes.\n"
    "     -o, --format:      Comma separated list of fields (use '--helpformat' for a list).\n"
    "     -p, --parsable:    Output will be '|' delimited with a '|' at the end.\n"
    "     -P, --parsable2:   Output will be '|' delimited without a '|' at the end.\n"
    "     -r, --partition:   Comma separated list of partitions to select jobs from.\n"
    "     -s, --state:       Select jobs based on their state during the time period given.\n"
    "     -S, --starttime:   Select jobs eligible after this time (default: midnight today).\n"
    "     -T, --truncate:    Cut start and end times to the --starttime/--endtime window.\n"
    "     -B, --batch-script: Print the batch script of the jobs given with -j, where kept.\n"
    "     --env-vars:        Print the environment of the jobs given with -j, where kept.\n"
    "     -u, --uid/--user:  Use this comma separated list of uids or user names.\n"
    "     -X, --allocations: Only show statistics relevant to the job allocation itself.\n"
    "     -V, --version:     Print the version.\n"
    "     -h, --help:        Print this description.\n";

std::int64_t midnight(std::int64_t now) { return localMidnight(now); }

Result<std::int64_t> sacctWindowTime(const std::string& text, std::int64_t now) {
  auto t = cli::parseWindowTime(text, now);
  // The reference's words, without sacct's name.
  if (!t.ok()) return makeError(std::string(kBareMark) + t.error());
  return *t;
}

// A uid or gid written as a number; nothing for any other text, a number too large for one
// included (std::stoul threw on `-u 99999999999999999999`, a crash; the reference said
// "Invalid user id", as the controller's name lookup now does).
std::optional<std::uint32_t> numericId(const std::string& text) {
  std::uint32_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

}  // namespace

Result<SacctCommand> parseSacctArgs(const std::vector<std::string>& args, std::int64_t now,
                                    std::uint32_t uid) {
  static const option kLong[] = {
      {"allusers", no_argument, nullptr, 'a'},   {"accounts", required_argument, nullptr, 'A'},
      {"brief", no_argument, nullptr, 'b'},      {"duplicates", no_argument, nullptr, 'D'},
      {"helpformat", no_argument, nullptr, 'e'}, {"endtime", required_argument, nullptr, 'E'},
      {"help", no_argument, nullptr, 'h'},       {"jobs", required_argument, nullptr, 'j'},
      {"long", no_argument, nullptr, 'l'},       {"cluster", required_argument, nullptr, 'M'},
      {"clusters", required_argument, nullptr, 'M'}, {"noheader", no_argument, nullptr, 'n'},
      {"nodelist", required_argument, nullptr, 'N'}, {"format", required_argument, nullptr, 'o'},
      {"parsable", no_argument, nullptr, 'p'},   {"parsable2", no_argument, nullptr, 'P'},
      {"partition", required_argument, nullptr, 'r'}, {"state", required_argument, nullptr, 's'},
      {"starttime", required_argument, nullptr, 'S'}, {"uid", required_argument, nullptr, 'u'},
      {"user", required_argument, nullptr, 'u'}, {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},    {"allocations", no_argument, nullptr, 'X'},
      {"usage", no_argument, nullptr, kOptUsage}, {"json", no_argument, nullptr, kOptJson},
      {"name", required_argument, nullptr, kOptName}, {"noconvert", no_argument, nullptr, kOptNoConvert},
      {"local", no_argument, nullptr, kOptLocal}, {"federation", no_argument, nullptr, kOptFederation},
      {"delimiter", required_argument, nullptr, kOptDelimiter},
      {"units", required_argument, nullptr, kOptUnits},
      {"qos", required_argument, nullptr, 'q'},  {"gid", required_argument, nullptr, 'g'},
      {"group", required_argument, nullptr, 'g'}, {"nnodes", required_argument, nullptr, 'i'},
      {"ncpus", required_argument, nullptr, 'I'}, {"timelimit-min", required_argument, nullptr, 'k'},
      {"timelimit-max", required_argument, nullptr, 'K'}, {"reason", required_argument, nullptr, 'R'},
      {"wckeys", required_argument, nullptr, 'W'}, {"constraints", required_argument, nullptr, 'C'},
      {"flags", required_argument, nullptr, 'F'}, {"associations", required_argument, nullptr, 'x'},
      {"completion", no_argument, nullptr, 'c'}, {"file", required_argument, nullptr, 'f'},
      {"allclusters", no_argument, nullptr, 'L'}, {"use-local-uid", no_argument, nullptr, kOptUseLocalUid},
      {"whole-hetjob", optional_argument, nullptr, kOptWholeHetjob},
      {"truncate", no_argument, nullptr, 'T'},
      {"yaml", no_argument, nullptr, kOptYaml},
      {"batch-script", no_argument, nullptr, 'B'}, {"env-vars", no_argument, nullptr, kOptEnvVars},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);

  SacctCommand cmd;
  auto& f = cmd.filter;
  std::string format;
  bool format_given = false;   // -o "" too: no columns, an empty line per record (the reference)
  bool brief = false, long_format = false, have_start = false, have_users = false;
  bool states_never_entered = false;  // -s named only states no job enters (RS, RV)
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), ":aA:bBcC:DeE:f:F:g:hi:I:j:k:K:lLM:nN:o:pPq:r:R:s:S:Tu:vVW:x:X",
                          kLong, nullptr)) != -1) {
    switch (c) {
      case 'a': cmd.all_users = true; break;
      case 'A': for (auto& a : splitCommas(optarg)) f.accounts.push_back(a); break;
      case 'b': brief = true; break;
      case 'D': f.duplicates = true; break;
      case 'v': case kOptLocal: case kOptFederation: break;
      case kOptNoConvert: cmd.sizes.no_convert = true; break;
      // One cluster, no heterogeneous jobs, uids as this host has them: nothing to change.
      case 'L': case kOptUseLocalUid: case kOptWholeHetjob: break;
      case 'T': cmd.truncate = true; break;
      case kOptYaml: cmd.yaml = true; break;
      case 'B': cmd.batch_script = true; break;
      case kOptEnvVars: cmd.env_vars = true; break;
      case 'q':  // checked against cluster.conf's QOS table by checkSacctQos
        for (auto& q : splitCommas(optarg)) cmd.records.qos.push_back(q);
        break;
      case 'R': for (auto& r : splitCommas(optarg)) cmd.records.reasons.push_back(r); break;
      case 'W': for (auto& w : splitCommas(optarg)) cmd.records.wckeys.push_back(w); break;
      case 'C': for (auto& feature : splitCommas(optarg)) cmd.records.constraints.push_back(feature); break;
      // Job completion data (JobCompType; -f reads its filetxt log): Drover keeps none, and
      // says so as the reference without a JobCompType did.
      case 'c': return makeError(std::string(kBareMark) + kCompletionDisabled);
      case 'f': {
        struct stat st {};
        if (::stat(optarg, &st) != 0 || !S_ISREG(st.st_mode)) {
          return makeError(std::string(kBareMark) + optarg + " is not a valid file");
        }
        return makeError(std::string(kBareMark) + kCompletionDisabled);
      }
      case 'x':
        // As the reference: a word that is no id selects nothing, without an error.
        for (const auto& word : splitCommas(optarg)) {
          const auto id = numericId(word);
          cmd.records.associations.push_back(id ? *id : UINT32_MAX);
        }
        break;
      case 'F': {
        // Given at all, it selects: an empty list keeps nothing, as the reference's `-F ""`.
        auto& flags = cmd.records.flags.emplace();
        for (const auto& word : splitCommas(optarg)) {
          auto flag = acct::parseJobFlag(word);
          if (!flag) return makeError("str_2_job_flags: Invalid job flag " + word);
          flags.emplace_back(*flag);
        }
        break;
      }
      case 'i': case 'I': {
        auto range = parseCountRange(optarg, c == 'i' ? "node" : "cpu");
        if (!range.ok()) return makeError(range.error());
        (c == 'i' ? cmd.records.nnodes : cmd.records.ncpus) = *range;
        break;
      }
      case 'k': case 'K': {
        auto minutes = parseTimeLimitMinutes(optarg);
        if (!minutes.ok()) return makeError(std::string(kFatalMark) + "Invalid time limit specification");
        (c == 'k' ? cmd.records.timelimit_min : cmd.records.timelimit_max) = *minutes;
        break;
      }
      case 'g':
        for (const auto& g : splitCommas(optarg)) {
          if (auto gid = numericId(g)) {
            f.gids.push_back(*gid);
          } else {
            cmd.group_names.push_back(g);
          }
        }
        break;
      case kOptUnits: {
        auto unit = acct::report::parseSizeUnit(optarg);
        if (!unit.ok()) {
          return makeError(std::string(kBareMark) + "sacct: error: " + unit.error() +
                           "\nsacct: fatal: Invalid unit type");
        }
        cmd.sizes.unit = *unit;
        break;
      }
      case 'e': cmd.helpformat = true; break;
      case 'E': {
        if (*optarg == '\0') break;   // as not given, as the reference
        auto t = sacctWindowTime(optarg, now);
        if (!t.ok()) return makeError(t.error());
        f.window_end = *t;
        break;
      }
      case 'h': cmd.help = true; break;
      case 'j':
        for (const auto& id : splitCommas(optarg)) {
          auto sel = acct::parseJobSelector(id);
          if (!sel.ok()) return makeError(std::string(kFatalMark) + badJobSelector(id));
          f.jobs.push_back(*sel);
        }
        break;
      case 'l': long_format = true; break;
      case 'M': return makeError(std::string(kClustersUnsupported));
      case 'n': cmd.render.header = false; break;
      case 'N': {
        auto hosts = hostlist::expand(optarg);
        if (!hosts.ok()) return makeError("Invalid node list " + std::string(optarg) + ": " + hosts.error());
        for (auto& h : *hosts) f.nodes.push_back(h);
        break;
      }
      case 'o':
        format += (format.empty() ? "" : ",") + std::string(optarg);
        format_given = true;
        break;
      case 'p': cmd.render.parsable = acct::report::Parsable::kTrailing; break;
      case 'P': cmd.render.parsable = acct::report::Parsable::kNoTrailing; break;
      case 'r': for (auto& p : splitCommas(optarg)) f.partitions.push_back(p); break;
      case 's':
        for (const auto& s : splitCommas(optarg)) {
          const std::string lower = toLowerAscii(s);
          // As the reference: completing and special-exit are no accounted states; resizing and
          // revoked are, and no Drover job is ever in them.
          if (lower == "cg" || lower == "completing" || lower == "se" || lower == "special_exit")
            return makeError(std::string(kFatalMark) + "job state " + s + " is not supported / accounted");
          if (lower == "rs" || lower == "resizing" || lower == "rv" || lower == "revoked") {
            states_never_entered = true;
            continue;
          }
          auto st = acct::parseJobState(s);
          if (!st) return makeError(std::string(kFatalMark) + "unrecognized job state value '" + s + "'");
          f.states.push_back(*st);
        }
        break;
      case 'S': {
        if (*optarg == '\0') break;   // as not given, as the reference
        auto t = sacctWindowTime(optarg, now);
        if (!t.ok()) return makeError(t.error());
        f.window_start = *t;
        have_start = true;
        break;
      }
      case 'u':
        have_users = true;
        for (const auto& u : splitCommas(optarg)) {
          if (auto uid = numericId(u))
            f.uids.push_back(*uid);
          else
            f.users.push_back(u);
        }
        break;
      case 'V': cmd.version = true; break;
      case 'X': f.include_steps = false; break;
      case kOptUsage: cmd.usage = true; break;
      case kOptJson: cmd.json = true; break;
      case kOptDelimiter: cmd.render.delimiter = optarg; break;
      case kOptName: for (auto& n : splitCommas(optarg)) f.names.push_back(n); break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong, false));
    }
  }
  if (optind < argv.argc())
    return makeError(std::string("Unknown argument: ") + argv[optind]);
  // -B / --env-vars name what was kept of specific jobs, as the reference's sacct insisted.
  if (cmd.batch_script && cmd.env_vars) {
    return makeError("fatal: Options --batch-script and --env-vars are mutually exclusive");
  }
  if ((cmd.batch_script || cmd.env_vars) && f.jobs.empty()) {
    return makeError(std::string("fatal: When requesting job ") + (cmd.batch_script ? "scripts" : "environment") +
                     " you must also request specific jobs with the '-j' option.");
  }
  // Slurm's defaults: the window starts at midnight today unless jobs or states were named
  // (then: no start bound for -j, "now" for -s), and a user sees their own jobs unless -a/-u.
  if (!have_start) {
    if (!f.states.empty() && f.jobs.empty()) f.window_start = now;
    else if (f.jobs.empty()) f.window_start = midnight(now);
  }
  // With -s and no -E the window ends where it starts (sacct(1), DEFAULT TIME WINDOW): the
  // jobs in those states at the -S moment, as the reference listed them; now without -S.
  if (!f.states.empty() && !f.window_end) f.window_end = have_start ? *f.window_start : now;
  // A window that ends before it starts (an -S in the future with no -E: the end is now) is
  // refused, as the reference's sacct refused it, rather than answered with no rows; with -s
  // and no -E it took the future -S without a word (the header, exit 0), and so does Drover.
  const std::int64_t window_end = f.window_end ? *f.window_end : now;
  if (f.window_start && (f.window_end || f.states.empty()) && *f.window_start > window_end) {
    return makeError("Start time (" + formatIsoTime(*f.window_start) + ") requested is after end time (" +
                     formatIsoTime(window_end) + ").");
  }
  // A user sees their own jobs unless -a or -u, or jobs are named with -j: the reference listed
  // another user's job by id (no PrivateData), as sacct(1)'s -a says.
  if (!have_users && !cmd.all_users && uid != 0 && f.jobs.empty()) f.uids.push_back(uid);
  if (format_given && format.find_first_not_of(", ") == std::string::npos) {
    cmd.columns.clear();
  } else if (format_given) {
    auto cols = acct::report::parseFormat(format);
    if (!cols.ok()) return makeError(cols.error());
    cmd.columns = std::move(*cols);
  } else if (brief) {
    cmd.columns = acct::report::briefColumns();
  } else if (long_format) {
    cmd.columns = acct::report::longColumns();
  } else {
    cmd.columns = acct::report::defaultColumns();
  }
  if (states_never_entered && f.states.empty()) {
    f.states.push_back(acct::JobState::kPending);  // the window rule of -s still applies
    cmd.records.none = true;
  }
  cmd.render.now = now;
  return cmd;
}

namespace {

// The --json document as the CLIs' JSON tree, for --yaml (slurm_yaml.cpp), keys in order.
json::Value fromNlohmann(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::object: {
      json::Object out;
      for (const auto& [key, value] : j.items()) out.emplace_back(key, fromNlohmann(value));
      return out;
    }
    case nlohmann::ordered_json::value_t::array: {
      json::Array out;
      for (const auto& value : j) out.push_back(fromNlohmann(value));
      return out;
    }
    case nlohmann::ordered_json::value_t::string: return j.get<std::string>();
    case nlohmann::ordered_json::value_t::boolean: return j.get<bool>();
    case nlohmann::ordered_json::value_t::number_integer: return j.get<std::int64_t>();
    case nlohmann::ordered_json::value_t::number_unsigned: return j.get<std::uint64_t>();
    case nlohmann::ordered_json::value_t::number_float: return j.get<double>();
    default: return nullptr;
  }
}

}  // namespace

Status checkSacctQos(SacctCommand& cmd, const config::ClusterConfig& config) {
  for (std::string& name : cmd.records.qos) {
    if (const config::QosConfig* q = config.findQos(name)) {
      name = q->name;
      continue;
    }
    std::vector<std::string> valid;  // in the table's order, as the reference's (by id)
    for (const config::QosConfig& q : config.qos) valid.push_back(q.name);
    return makeError(std::string(kBareMark) + "sacct: error: You gave a bad qos '" + name +
                     "'. Valid QOS's are " + joinCommas(valid) +
                     "\nsacct: fatal: problem processing qos list");
  }
  return okStatus();
}

int runSacct(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv, {{"SACCT_FORMAT", "--format"}});
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  auto parsed = parseSacctArgs(args, now, static_cast<std::uint32_t>(getuid()));
  if (!parsed.ok()) {
    printParseError(kProg, parsed.error());
    return 1;
  }
  SacctCommand& cmd = *parsed;
  acct::report::setSizeUnits(cmd.sizes);
  if (printedInfo(cmd, kHelp, kHelp)) return 0;
  if (cmd.helpformat) {
    std::cout << acct::report::renderHelpFormat();
    return 0;
  }
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  // The QOS table (for -q and QOSRAW) is cluster.conf's, as the reference's was its database's.
  auto config = config::loadClusterConfig(config::defaultConfigPath());
  if (!config.ok()) {
    printError(kProg, config.error());
    return 1;
  }
  if (auto checked = checkSacctQos(cmd, *config); !checked.ok()) {
    printParseError(kProg, checked.error());
    return 1;
  }
  v1::QueryAccountingRequest request = ctld::toWire(cmd.filter);
  request.set_all_users(cmd.all_users);
  for (const auto& g : cmd.group_names) request.add_groups(g);
  request.set_with_batch_script(cmd.batch_script);
  request.set_with_environment(cmd.env_vars);
  auto reply = client->queryAccounting(request);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  std::vector<acct::JobWithSteps> jobs;
  jobs.reserve(static_cast<std::size_t>(reply->jobs_size()));
  for (const auto& j : reply->jobs()) {
    acct::JobWithSteps job = ctld::fromWire(j);
    if (const config::QosConfig* q = config->findQos(job.job.qos)) job.job.qos_id = q->id;
    if (!cmd.records.keeps(job.job)) continue;
    if (cmd.truncate) truncateToWindow(job, cmd.filter.window_start, cmd.filter.window_end.value_or(now));
    jobs.push_back(std::move(job));
  }
  if (cmd.batch_script || cmd.env_vars) {
    std::cout << acct::report::renderKeptSubmission(jobs, cmd.batch_script);
  } else if (cmd.yaml) {
    std::cout << json::dumpYaml(fromNlohmann(nlohmann::ordered_json::parse(acct::report::renderSacctJson(jobs, now))));
  } else if (cmd.json) {
    std::cout << acct::report::renderSacctJson(jobs, now);
  } else {
    std::cout << acct::report::renderSacct(jobs, cmd.columns, cmd.render);
  }
  std::cout.flush();
  return 0;
}

}  // namespace drover::cli
