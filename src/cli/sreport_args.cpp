#include "cli/sreport_args.h"

#include <getopt.h>
#include <grp.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "cli/cli_common.h"
#include "cli/sreport_usage.h"
#include "cli/window_time.h"
#include "common/ascii_case.h"
#include "drover/hostlist.h"

namespace drover::cli::sreport {

namespace {

constexpr const char* kProg = "sreport";
enum LongOnly { kOptUsage = 1000, kOptLocal, kOptFederation };

std::vector<std::string> listValue(const std::string& v) {
  std::vector<std::string> out;
  for (auto& item : splitCommas(v)) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// A report's name after its type, as Slurm matches them (abbreviations; `cluster u` is too
// short to choose). nullopt with `unsupported` set: a report Slurm has and Drover does not.
std::optional<ReportKind> reportKind(const std::string& type, const std::string& name,
                                     std::string& unsupported) {
  if (type == "cluster") {
    if (abbrev(name, "AccountUtilizationByUser")) return ReportKind::kAccountUtilizationByUser;
    if (abbrev(name, "UserUtilizationByAccount", 18)) return ReportKind::kUserUtilizationByAccount;
    if (abbrev(name, "Utilization", 2)) return ReportKind::kUtilization;
    if (abbrev(name, "UserUtilizationByWckey", 18)) unsupported = "UserUtilizationByWckey";
    else if (abbrev(name, "WCKeyUtilizationByUser")) unsupported = "WCKeyUtilizationByUser";
  } else if (type == "job") {
    if (abbrev(name, "SizesByAccount")) return ReportKind::kSizesByAccount;
    if (abbrev(name, "SizesByAccountAndWckey")) unsupported = "SizesByAccountAndWckey";
    else if (abbrev(name, "SizesByWckey", 8)) unsupported = "SizesByWckey";
  } else if (type == "user") {
    if (abbrev(name, "TopUsage")) return ReportKind::kTopUsage;
  } else if (type == "reservation") {
    if (abbrev(name, "Utilization")) unsupported = "reservation Utilization";
  }
  return std::nullopt;
}

std::string notValidReport(const std::string& type, const std::string& name) {
  std::string valid;
  if (type == "cluster")
    valid = "Valid cluster reports are, \"AccountUtilizationByUser\", \"UserUtilizationByAccount\", "
            "\"UserUtilizationByWckey\", \"Utilization\", and \"WCKeyUtilizationByUser\"";
  else if (type == "job")
    valid = "Valid job reports are, \"SizesByAccount, SizesByAccountAndWcKey, and  SizesByWckey\"";
  else if (type == "user")
    valid = "Valid user reports are, \"Top\"";
  else
    valid = "Valid reservation reports are, \"Utilization\"";
  return "Not valid report " + name + "\n" + valid;
}

// A GID= item: a number, or a group's name.
std::optional<std::uint32_t> groupId(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() <= 10) {
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (v <= 0xfffffffeULL) return static_cast<std::uint32_t>(v);
    return std::nullopt;
  }
  const group* g = getgrnam(text.c_str());
  if (!g) return std::nullopt;
  return static_cast<std::uint32_t>(g->gr_gid);
}

// One condition word into the request; false when Slurm would call it unknown.
bool applyCondition(const std::string& word, std::int64_t now, ReportRequest& r) {
  const std::size_t eq = word.find('=');
  const std::string key = toLowerAscii(word.substr(0, eq));
  const bool has_value = eq != std::string::npos;
  const std::string value = has_value ? word.substr(eq + 1) : "";
  if (key.empty()) return false;
  auto is = [&](std::string_view full, std::size_t min) { return abbrev(key, full, min); };
  // A bad time is reported and leaves the default, as Slurm's.
  auto when = [&](std::optional<std::int64_t>& slot) {
    if (value.empty()) return;   // the default, without a word, as the reference
    auto t = parseWindowTime(value, now);
    if (t.ok()) slot = *t;
    else r.warnings.push_back(t.error());
  };
  if (!has_value) {
    if (is("all_clusters", 2)) return true;
    if (is("tree", 4)) { r.tree = true; return true; }
    if (is("group", 5)) { r.group = true; return true; }
    if (is("printjobcount", 5)) { r.print_job_count = true; return true; }
    if (is("flatview", 4)) { r.flat_view = true; return true; }
    if (is("acctasparent", 5)) { r.acct_as_parent = true; return true; }
    r.clusters.push_back(word);   // Slurm takes any other bare word for a cluster's name
    return true;
  }
  // Utilization has no account or user rows to choose: Slurm calls these unknown there.
  if (r.kind == ReportKind::kUtilization && (is("accounts", 3) || key == "acct" || is("users", 3) || key == "user"))
    return false;
  if (r.kind == ReportKind::kSizesByAccount) {
    if (is("partitions", 4)) { r.partitions = listValue(value); return true; }
    if (is("nodes", 4)) {
      auto hosts = hostlist::expand(value);
      if (!hosts.ok()) {
        r.warnings.push_back(" Invalid node list: " + value + " (" + hosts.error() + ")");
        r.bad_condition = true;
      } else {
        r.nodes = std::move(*hosts);
      }
      return true;
    }
    if (is("gid", 2)) {
      r.gids.clear();
      for (const auto& g : listValue(value)) {
        auto gid = groupId(g);
        if (!gid) {
          r.warnings.push_back(" Invalid group id: " + g);
          r.bad_condition = true;
          continue;
        }
        r.gids.push_back(*gid);
      }
      return true;
    }
    if (is("jobs", 3)) {
      r.jobs.clear();
      for (const auto& id : listValue(value)) {
        auto selector = acct::parseJobSelector(id);
        if (!selector.ok()) {
          r.warnings.push_back(" Invalid job id: " + id + " (" + selector.error() + ")");
          r.bad_condition = true;
          continue;
        }
        r.jobs.push_back(*selector);
      }
      return true;
    }
  }
  if (is("accounts", 3) || key == "acct") { r.accounts = listValue(value); return true; }
  if (is("users", 3) || key == "user") { r.users = listValue(value); return true; }
  if (is("clusters", 3)) { r.clusters = listValue(value); return true; }
  if (is("start", 3)) { when(r.start); return true; }
  if (is("end", 1)) { when(r.end); return true; }
  if (is("format", 3)) {
    r.format.clear();
    for (const auto& item : listValue(value)) {
      auto choice = splitFieldWidth(item);
      if (!choice.ok()) { r.warnings.push_back(choice.error()); r.bad_condition = true; continue; }
      r.format.push_back(*choice);
    }
    return true;
  }
  if (is("topcount", 3)) {
    const long n = std::strtol(value.c_str(), nullptr, 10);   // atoi's reading, without overflow
    r.top_count = static_cast<int>(std::clamp(n, -1'000'000L, 1'000'000L));
    return true;
  }
  if (is("grouping", 6)) {
    if (abbrev(toLowerAscii(value), "individual", 3)) { r.individual = true; return true; }
    r.individual = false;
    r.grouping.clear();
    for (const auto& g : listValue(value)) {
      const long n = std::strtol(g.c_str(), nullptr, 10);
      if (n > 0 && n < 1'000'000'000) r.grouping.push_back(static_cast<std::uint64_t>(n));
    }
    std::sort(r.grouping.begin(), r.grouping.end());
    return true;
  }
  return false;
}

}  // namespace

std::optional<TimeFormat> parseTimeFormat(const std::string& text) {
  const std::string t = toLowerAscii(text);
  if (t.empty()) return std::nullopt;
  if (abbrev(t, "secper", 4)) return TimeFormat{TimeUnit::kSeconds, true, true};
  if (abbrev(t, "minper", 4)) return TimeFormat{TimeUnit::kMinutes, true, true};
  if (abbrev(t, "hourper", 5)) return TimeFormat{TimeUnit::kHours, true, true};
  if (abbrev(t, "seconds")) return TimeFormat{TimeUnit::kSeconds, true, false};
  if (abbrev(t, "minutes")) return TimeFormat{TimeUnit::kMinutes, true, false};
  if (abbrev(t, "hours")) return TimeFormat{TimeUnit::kHours, true, false};
  if (abbrev(t, "percent")) return TimeFormat{TimeUnit::kMinutes, false, true};
  return std::nullopt;
}

Result<std::vector<std::string>> parseTresList(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& item : listValue(text)) {
    if (toLowerAscii(item) == "all") return knownTres();
    const std::string name = toLowerAscii(item);
    const auto& known = knownTres();
    if (std::find(known.begin(), known.end(), name) != known.end() &&
        std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  if (out.empty()) return makeError("sreport: fatal: No valid TRES given");
  return out;
}

Result<Invocation> parseSreportArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"all_clusters", no_argument, nullptr, 'a'}, {"cluster", required_argument, nullptr, 'M'},
      {"federation", no_argument, nullptr, kOptFederation}, {"help", no_argument, nullptr, 'h'},
      {"local", no_argument, nullptr, kOptLocal},   {"noheader", no_argument, nullptr, 'n'},
      {"parsable", no_argument, nullptr, 'p'},      {"parsable2", no_argument, nullptr, 'P'},
      {"quiet", no_argument, nullptr, 'Q'},         {"tres", required_argument, nullptr, 'T'},
      {"verbose", no_argument, nullptr, 'v'},       {"version", no_argument, nullptr, 'V'},
      {"usage", no_argument, nullptr, kOptUsage},   {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  Invocation inv;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), ":ahM:npPQt:T:vV", kLong, nullptr)) != -1) {
    switch (c) {
      case 'h': inv.help = true; break;
      case 'n': inv.options.style.no_header = true; break;
      case 'p': inv.options.style.parsable = true; inv.options.style.parsable2 = false; break;
      case 'P': inv.options.style.parsable2 = true; inv.options.style.parsable = false; break;
      case 'Q': inv.options.quiet = true; break;
      case 't': {
        auto t = parseTimeFormat(optarg);
        if (t) inv.options.time = *t;
        else inv.warnings.push_back(std::string("unknown time format ") + optarg);
        break;
      }
      case 'T': {
        auto tres = parseTresList(optarg);
        if (!tres.ok()) return makeError(tres.error());
        inv.options.tres = *tres;
        inv.options.tres_given = true;
        break;
      }
      case 'V': inv.version = true; break;
      case kOptUsage: inv.usage = true; break;
      case 'a': case 'M': case 'v': case kOptLocal: case kOptFederation: break;
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  for (int i = optind; i < argv.argc(); ++i) inv.words.emplace_back(argv.argv()[i]);
  return inv;
}

Result<Command> parseCommandWords(const std::vector<std::string>& words, std::int64_t now) {
  Command cmd;
  if (words.empty()) return cmd;
  const std::string& kw = words[0];
  const std::string k = toLowerAscii(kw);
  auto is = [&](std::string_view full, std::size_t min) { return abbrev(k, full, min); };
  if (k == "!!") return makeError("invalid keyword: " + kw);
  if (is("help", 2)) { cmd.verb = Verb::kHelp; return cmd; }
  if (is("version", 4)) { cmd.verb = Verb::kVersion; return cmd; }
  if (is("exit", 4) || is("quit", 4)) { cmd.verb = Verb::kQuit; return cmd; }
  if (k == "parsable2") { cmd.verb = Verb::kParsable2; return cmd; }
  if (is("parsable", 8)) { cmd.verb = Verb::kParsable; return cmd; }
  if (is("nonparsable", 3)) { cmd.verb = Verb::kNonParsable; return cmd; }
  if (is("quiet", 4)) { cmd.verb = Verb::kQuiet; return cmd; }
  if (is("verbose", 4)) { cmd.verb = Verb::kVerbose; return cmd; }
  if (is("time", 1)) {
    if (words.size() < 2) return makeError("too few arguments for keyword:" + kw);
    cmd.verb = Verb::kTime;
    // As -t: a bad format is reported (without a newline, as Slurm) and changes nothing.
    if (auto t = parseTimeFormat(words[1])) cmd.time = *t;
    else cmd.warnings.push_back("unknown time format " + words[1]);
    return cmd;
  }
  std::string type;
  if (is("cluster", 2)) type = "cluster";
  else if (is("job", 1)) type = "job";
  else if (is("user", 1)) type = "user";
  else if (is("reservation", 2)) type = "reservation";
  else return makeError("invalid keyword: " + kw);
  if (words.size() < 2) return makeError("too few arguments for keyword:" + kw);
  std::string unsupported;
  auto kind = reportKind(type, toLowerAscii(words[1]), unsupported);
  if (!kind) {
    if (!unsupported.empty())
      return makeError("The " + unsupported + " report is not available in Drover (no wckeys or "
                       "reservation accounting are recorded)");
    return makeError(notValidReport(type, words[1]));
  }
  cmd.verb = Verb::kReport;
  cmd.report.kind = *kind;
  for (std::size_t i = 2; i < words.size(); ++i) {
    if (!applyCondition(words[i], now, cmd.report)) {
      cmd.report.warnings.push_back(" Unknown condition: " + words[i] + "\nUse keyword set to modify value");
      cmd.report.bad_condition = true;
    }
  }
  return cmd;
}

}  // namespace drover::cli::sreport
