#include "cli/squeue_view.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "cli/cli_common.h"
#include "cli/format_spec.h"
#include "cli/job_values.h"
#include "cli/node_values.h"
#include "cli/slurm_json.h"
#include "cli/squeue_json.h"
#include "drover/hostlist.h"

namespace drover::cli {
namespace {

constexpr const char* kDefaultFormat = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
constexpr const char* kLongFormat = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
constexpr const char* kStartFormat = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

// Codes used internally for -O fields that have no -o letter.
constexpr char kRawJobId = 1;

std::string header(char code) {
  switch (code) {
    case kRawJobId: case 'i': case 'A': return "JOBID";
    case 'F': return "ARRAY_JOB_ID";
    case 'K': return "ARRAY_TASK_ID";
    case 'j': return "NAME";
    case 'u': return "USER";
    case 'U': return "UID";
    case 'g': return "GROUP";
    case 'G': return "GID";
    case 'a': return "ACCOUNT";
    case 'P': return "PARTITION";
    case 'T': return "STATE";
    case 't': return "ST";
    case 'r': return "REASON";
    case 'R': return "NODELIST(REASON)";
    case 'S': return "START_TIME";
    case 'V': return "SUBMIT_TIME";
    case 'e': return "END_TIME";
    case 'L': return "TIME_LEFT";
    case 'M': return "TIME";
    case 'l': return "TIME_LIMIT";
    case 'N': return "NODELIST";
    case 'D': return "NODES";
    case 'c': return "MIN_CPUS";
    case 'C': return "CPUS";
    case 'Z': return "WORK_DIR";
    case 'o': return "COMMAND";
    case 'm': return "MIN_MEMORY";
    case 'b': return "TRES_PER_NODE";
    case 'Q': return "PRIORITY";
    case 'q': return "QOS";
    case 'y': return "NICE";
    case 'E': return "DEPENDENCY";
    case 'k': return "COMMENT";
    case 'f': return "FEATURES";
    case 'B': return "EXEC_HOST";
    case 'Y': return "SCHEDNODES";
    case 'n': return "REQ_NODES";
    case 'x': return "EXC_NODES";
    case 'h': return "OVER_SUBSCRIBE";
    case 'I': return "CORES_PER_SOCKET";
    default: return "";
  }
}

std::string orNull(const std::string& s) { return s.empty() ? "(null)" : s; }

std::string timeOrNA(std::int64_t t) { return t > 0 ? formatIsoTime(t, "N/A") : "N/A"; }

std::string reasonText(const v1::JobInfo& j) {
  if (j.state() == v1::JOB_PENDING) return j.reason().empty() ? "None" : j.reason();
  if (isActiveState(j.state())) return "None";
  return j.reason().empty() ? "None" : j.reason();
}

std::string value(const v1::JobInfo& j, char code, std::int64_t now) {
  const bool pending = j.state() == v1::JOB_PENDING;
  switch (code) {
    case 'i': return jobIdText(j);
    case kRawJobId: case 'A': return std::to_string(j.job_id());
    case 'F': return std::to_string(j.array_job_id() != 0 ? j.array_job_id() : j.job_id());
    case 'K': return arrayTaskText(j);
    case 'j': return j.name();
    case 'u': return j.user().empty() ? std::to_string(j.uid()) : j.user();
    case 'U': return std::to_string(j.uid());
    case 'g': return j.group().empty() ? std::to_string(j.gid()) : j.group();
    case 'G': return std::to_string(j.gid());
    case 'a': return orNull(j.account());
    case 'P': return j.partition();
    case 'T': return std::string(jobStateName(j.state()));
    case 't': return std::string(jobStateShortName(j.state()));
    case 'r': return reasonText(j);
    case 'R':
      if (pending || j.nodes().empty()) return "(" + reasonText(j) + ")";
      return j.nodes();
    case 'S': return timeOrNA(j.start_time());
    case 'V': return timeOrNA(j.submit_time());
    case 'e': return timeOrNA(jobEndTime(j));
    case 'L': {
      if (j.time_limit_min() < 0) return "UNLIMITED";
      const std::int64_t left = j.time_limit_min() * 60 - (pending ? 0 : jobRunTime(j, now));
      return formatSqueueDuration(std::max<std::int64_t>(left, 0));
    }
    case 'M': return formatSqueueDuration(pending ? 0 : jobRunTime(j, now));
    case 'l': return formatSqueueLimit(j.time_limit_min());
    case 'N': return pending ? "" : j.nodes();
    case 'D': return std::to_string(j.num_nodes() > 0 ? j.num_nodes() : std::max(1u, j.spec().min_nodes()));
    case 'c': return std::to_string(std::max(1u, j.spec().cpus_per_task()));
    case 'C': return std::to_string(j.num_cpus());
    case 'Z': return j.work_dir();
    case 'o': return orNull(j.command());
    case 'm': return minMemory(j).text;
    case 'b': {
      auto t = tresPerNode(j);
      return t.empty() ? "N/A" : t;
    }
    case 'Q': return std::to_string(j.priority());
    case 'q': return j.qos().empty() ? "normal" : j.qos();
    case 'y': return std::to_string(j.nice());
    case 'E': return orNull(j.dependency());
    case 'k': return orNull(j.spec().comment());
    case 'f': return orNull(j.features());
    case 'B': return j.batch_host().empty() ? "n/a" : j.batch_host();
    case 'Y': return orNull(j.sched_nodes());
    case 'n': return j.req_nodes();
    case 'x': return j.exc_nodes();
    case 'h': return j.spec().exclusive() ? "NO" : "OK";
    default: return "";
  }
}

struct OField {
  const char* name;
  char code;
};
constexpr OField kOFields[] = {
    {"jobid", kRawJobId}, {"jobarrayid", 'i'}, {"arrayjobid", 'F'}, {"arraytaskid", 'K'},
    {"name", 'j'}, {"username", 'u'}, {"userid", 'U'}, {"groupname", 'g'}, {"groupid", 'G'},
    {"account", 'a'}, {"partition", 'P'}, {"state", 'T'}, {"statecompact", 't'}, {"reason", 'r'},
    {"reasonlist", 'R'}, {"starttime", 'S'}, {"submittime", 'V'}, {"endtime", 'e'},
    {"timeleft", 'L'}, {"timeused", 'M'}, {"timelimit", 'l'}, {"nodelist", 'N'}, {"numnodes", 'D'},
    {"mincpus", 'c'}, {"numcpus", 'C'}, {"workdir", 'Z'}, {"command", 'o'}, {"minmemory", 'm'},
    {"tres-per-node", 'b'}, {"priority", 'Q'}, {"prioritylong", 'Q'}, {"qos", 'q'}, {"nice", 'y'},
    {"dependency", 'E'}, {"comment", 'k'}, {"feature", 'f'}, {"batchhost", 'B'},
    {"schednodes", 'Y'}, {"reqnodes", 'n'}, {"excnodes", 'x'}, {"oversubscribe", 'h'},
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Result<Format> parseLongFormat(const std::string& text) {
  Format out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    FieldSpec spec;
    spec.width = 20;
    if (auto colon = item.find(':'); colon != std::string::npos) {
      std::string size = item.substr(colon + 1);
      item = item.substr(0, colon);
      if (!size.empty() && size[0] == '.') {
        spec.right = true;
        size = size.substr(1);
      }
      if (!size.empty()) {
        try {
          spec.width = std::stoi(size);
        } catch (...) {
          return makeError("Invalid size for -O field " + item + ": " + size);
        }
      }
    }
    const std::string key = lower(item);
    const OField* found = nullptr;
    for (const auto& f : kOFields)
      if (key == f.name) found = &f;
    if (!found) return makeError("Invalid job format specification: " + item);
    spec.code = found->code;
    FormatItem fi;
    fi.is_field = true;
    fi.field = spec;
    out.push_back(fi);
  }
  return out;
}

// Sort keys as Slurm's -S: [+|-]letter, comma separated; default "P,t,-p" (partition, state,
// priority descending). The sort is stable over the controller's order, as Slurm's list sort.
void sortJobs(std::vector<v1::JobInfo>& jobs, const std::string& spec_text, bool start) {
  std::string spec = spec_text.empty() ? (start ? "S" : "P,t,-p") : spec_text;
  struct Key {
    char code;
    bool desc;
  };
  std::vector<Key> keys;
  for (const auto& item : splitCommas(spec)) {
    if (item.empty()) continue;
    bool desc = item[0] == '-';
    char code = (item[0] == '-' || item[0] == '+') ? (item.size() > 1 ? item[1] : 0) : item[0];
    keys.push_back({code, desc});
  }
  auto cmp = [&keys](const v1::JobInfo& a, const v1::JobInfo& b) {
    for (const auto& k : keys) {
      int c = 0;
      auto three = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
      switch (k.code) {
        case 'P': c = three(a.partition(), b.partition()); break;
        case 't': case 'T': c = three(static_cast<int>(a.state()), static_cast<int>(b.state())); break;
        case 'p': case 'Q': c = three(a.priority(), b.priority()); break;
        case 'i': case 'A': c = three(a.job_id(), b.job_id()); break;
        case 'j': c = three(a.name(), b.name()); break;
        case 'u': c = three(a.user(), b.user()); break;
        case 'S': {
          // Unknown start times last, those by job id with an array's pending remainder after
          // single jobs (as Slurm's --start lists them).
          auto sa = a.start_time() > 0 ? a.start_time() : INT64_MAX;
          auto sb = b.start_time() > 0 ? b.start_time() : INT64_MAX;
          c = three(sa, sb);
          if (c == 0 && sa == INT64_MAX) {
            c = three(!a.array_task_pending().empty(), !b.array_task_pending().empty());
            if (c == 0) c = three(a.job_id(), b.job_id());
          }
          break;
        }
        case 'V': c = three(a.submit_time(), b.submit_time()); break;
        case 'M': c = three(a.run_time_s(), b.run_time_s()); break;
        case 'l': c = three(a.time_limit_min(), b.time_limit_min()); break;
        case 'D': c = three(a.num_nodes(), b.num_nodes()); break;
        case 'C': c = three(a.num_cpus(), b.num_cpus()); break;
        case 'N': c = three(a.nodes(), b.nodes()); break;
        default: break;
      }
      if (c != 0) return k.desc ? c > 0 : c < 0;
    }
    return false;
  };
  // Sorted as pointers, then moved into place once: a message move is a swap of every field,
  // too slow to repeat n log n times over thousands of jobs.
  std::vector<v1::JobInfo*> order;
  order.reserve(jobs.size());
  for (auto& j : jobs) order.push_back(&j);
  std::stable_sort(order.begin(), order.end(),
                   [&cmp](const v1::JobInfo* a, const v1::JobInfo* b) { return cmp(*a, *b); });
  std::vector<v1::JobInfo> sorted;
  sorted.reserve(jobs.size());
  for (v1::JobInfo* j : order) sorted.push_back(std::move(*j));
  jobs = std::move(sorted);
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

Result<std::vector<v1::JobInfo>> selectSqueueJobs(const SqueueOptions& options,
                                                  std::vector<v1::JobInfo> jobs) {
  std::vector<v1::JobState> states;
  bool all_states = false;
  for (const auto& s : options.states) {
    if (lower(s) == "all") {
      all_states = true;
      continue;
    }
    auto st = parseJobStateName(s);
    if (!st) return makeError("Invalid job state specified: " + s);
    states.push_back(*st);
  }
  std::vector<v1::JobInfo> out;
  for (auto& j : jobs) {
    if (!options.job_ids.empty() &&
        std::none_of(options.job_ids.begin(), options.job_ids.end(),
                     [&j](const std::string& id) { return jobMatchesId(j, id); }))
      continue;
    if (!options.users.empty() && !contains(options.users, j.user()) &&
        !contains(options.users, std::to_string(j.uid())))
      continue;
    if (!options.partitions.empty() && !contains(options.partitions, j.partition())) continue;
    if (!options.names.empty() && !contains(options.names, j.name())) continue;
    if (!options.accounts.empty() && !contains(options.accounts, j.account())) continue;
    if (!all_states) {
      if (states.empty()) {
        // Without -t Slurm shows jobs still in the system (and not finished ones), unless -j.
        if (!isActiveState(j.state()) && options.job_ids.empty()) continue;
      } else if (std::find(states.begin(), states.end(), j.state()) == states.end()) {
        continue;
      }
    }
    if (!options.nodes.empty()) {
      auto hosts = hostlist::expand(j.nodes());
      if (!hosts.ok() || std::none_of(hosts->begin(), hosts->end(), [&](const std::string& h) {
            return contains(options.nodes, h);
          }))
        continue;
    }
    if (options.start && j.state() != v1::JOB_PENDING) continue;
    if (options.expand_arrays && !j.array_task_pending().empty()) {
      for (auto task : expandArrayTasks(j.array_task_pending())) {
        v1::JobInfo t = j;
        t.clear_array_task_pending();
        t.set_array_task_id(task);
        out.push_back(std::move(t));
      }
      continue;
    }
    out.push_back(std::move(j));
  }
  sortJobs(out, options.sort, options.start);
  return out;
}

Result<std::string> renderSqueue(const SqueueOptions& options, std::vector<v1::JobInfo> jobs,
                                 std::int64_t now) {
  auto selected = selectSqueueJobs(options, std::move(jobs));
  if (!selected.ok()) return makeError(selected.error());
  if (options.json) {
    json::Array arr;
    for (const auto& j : *selected) arr.push_back(squeueJobJson(j, now, options.cluster_name));
    json::Object root;
    root.emplace_back("meta", json::slurmMeta());
    root.emplace_back("errors", json::Array{});
    root.emplace_back("jobs", json::Value(std::move(arr)));
    return json::dump(json::Value(std::move(root)));
  }
  Format format;
  if (!options.format_long.empty()) {
    auto f = parseLongFormat(options.format_long);
    if (!f.ok()) return makeError(f.error());
    format = std::move(*f);
  } else {
    const std::string text = !options.format.empty() ? options.format
                             : options.start          ? kStartFormat
                             : options.long_format    ? kLongFormat
                                                      : kDefaultFormat;
    auto f = parseFormat(text);
    if (!f.ok()) return makeError(f.error());
    format = std::move(*f);
  }
  std::string out;
  if (options.long_format && options.format.empty() && options.format_long.empty()) {
    char buf[64];
    const std::time_t t = static_cast<std::time_t>(now);
    std::tm tm{};
    localtime_r(&t, &tm);
    std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y", &tm);
    out += std::string(buf) + "\n";
  }
  if (!options.no_header) {
    out += renderLine(format, [](const FieldSpec& f) { return header(f.code); });
    out += "\n";
  }
  for (const auto& j : *selected) {
    out += renderLine(format, [&](const FieldSpec& f) { return value(j, f.code, now); });
    out += "\n";
  }
  return out;
}

}  // namespace drover::cli
