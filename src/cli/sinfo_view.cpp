#include "cli/sinfo_view.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "cli/format_spec.h"
#include "cli/node_values.h"
#include "cli/sort_keys.h"
#include "cli/slurm_json.h"
#include "common/ascii_case.h"
#include "drover/hostlist.h"
#include "drover/time_spec.h"

namespace drover::cli {
namespace {

// Slurm pads computed (#) partition and node-list columns to at least this width.
constexpr std::size_t kMinAutoWidth = 9;

// One output line: a partition (absent for nodes in no partition) and the nodes it covers.
// -O fields that have no -o letter, under codes -o cannot produce (a digit there is a width).
constexpr char kAllocMemCode = '1';
constexpr char kGresUsedCode = '2';
constexpr char kCommentCode = '3';
constexpr char kExtraCode = '4';
constexpr char kPortCode = '5';
// -O All (and -o %all): stands for every -o field at once (allFieldsFormat), never printed.
constexpr char kAllCode = '6';

struct Record {
  const v1::PartitionInfo* part = nullptr;
  std::vector<const v1::NodeInfo*> nodes;
};

std::string joinStrings(const google::protobuf::RepeatedPtrField<std::string>& items,
                        std::string_view empty_text) {
  if (items.empty()) return std::string(empty_text);
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string sinfoTime(std::int64_t minutes) {
  if (minutes < 0) return "infinite";
  return formatTimeLimit(minutes * 60);
}

std::string partitionAvail(const v1::PartitionInfo& p) {
  if (p.state() == "INACTIVE") return "inact";
  return toLowerAscii(p.state().empty() ? "up" : p.state());
}

template <typename T>
std::string minPlus(const std::vector<const v1::NodeInfo*>& nodes, T (*get)(const v1::NodeInfo&)) {
  if (nodes.empty()) return "0";
  T lo = get(*nodes.front()), hi = lo;
  for (const auto* n : nodes) {
    lo = std::min(lo, get(*n));
    hi = std::max(hi, get(*n));
  }
  return std::to_string(lo) + (hi > lo ? "+" : "");
}

std::uint32_t cpusOf(const v1::NodeInfo& n) { return n.configured().cpus(); }
std::uint64_t memOf(const v1::NodeInfo& n) { return n.configured().real_memory_mb(); }
std::uint32_t weightOf(const v1::NodeInfo& n) { return n.weight(); }
std::uint32_t socketsOf(const v1::NodeInfo& n) { return n.configured().sockets(); }
std::uint32_t coresOf(const v1::NodeInfo& n) { return n.configured().cores_per_socket(); }
std::uint32_t threadsOf(const v1::NodeInfo& n) { return n.configured().threads_per_core(); }

std::string header(char code) {
  switch (code) {
    case 'a': return "AVAIL";
    case 'A': return "NODES(A/I)";
    case 'b': return "ACTIVE_FEATURES";
    case 'B': return "MAX_CPUS_PER_NODE";
    case 'c': return "CPUS";
    case 'C': return "CPUS(A/I/O/T)";
    case 'd': return "TMP_DISK";
    case 'D': return "NODES";
    case 'e': return "FREE_MEM";
    case 'E': return "REASON";
    case 'f': return "AVAIL_FEATURES";
    case 'F': return "NODES(A/I/O/T)";
    case 'g': return "GROUPS";
    case 'G': return "GRES";
    case 'h': return "OVERSUBSCRIBE";
    case 'H': return "TIMESTAMP";
    case 'I': return "PRIO_JOB_FACTOR";
    case 'l': return "TIMELIMIT";
    case 'L': return "DEFAULTTIME";
    case 'm': return "MEMORY";
    case 'M': return "PREEMPT_MODE";
    case 'n': return "HOSTNAMES";
    case 'N': return "NODELIST";
    case 'o': return "NODE_ADDR";
    case 'O': return "CPU_LOAD";
    case 'p': return "PRIO_TIER";
    case 'P': return "PARTITION";
    case 'r': return "ROOT";
    case 'R': return "PARTITION";
    case 's': return "JOB_SIZE";
    case 'S': return "ALLOCNODES";
    case 't': return "STATE";
    case 'T': return "STATE";
    case 'u': return "USER";
    case 'U': return "USER";
    case 'v': return "VERSION";
    case 'V': return "CLUSTER";
    case 'w': return "WEIGHT";
    case 'X': return "SOCKETS";
    case 'Y': return "CORES";
    case 'Z': return "THREADS";
    case 'z': return "S:C:T";
    case kAllocMemCode: return "ALLOCMEM";
    case kGresUsedCode: return "GRES_USED";
    case kCommentCode: return "COMMENT";
    case kExtraCode: return "EXTRA";
    case kPortCode: return "PORT";
    default: return "";
  }
}

bool isKnownCode(char code) { return !header(code).empty(); }

// Codes whose per-node value splits records in the partition view. CPU/memory/disk/S:C:T only
// split with -e; otherwise they print as the minimum with a "+" (see `man sinfo`, -e).
bool groupsBy(char code, bool exact) {
  switch (code) {
    case 't': case 'T': case 'E': case 'H': case 'u': case 'U': case 'f': case 'b':
    case 'G': case 'w': case 'v': case kAllocMemCode: case kGresUsedCode:
      return true;
    case 'c': case 'm': case 'd': case 'z': case 'X': case 'Y': case 'Z':
      return exact;
    default:
      return false;
  }
}

std::string rangeText(double lo, double hi, bool as_load) {
  auto one = [as_load](double v) {
    return as_load ? formatCpuLoad(v) : std::to_string(static_cast<std::uint64_t>(v));
  };
  return lo == hi ? one(lo) : one(lo) + "-" + one(hi);
}

std::string compressNames(const std::vector<const v1::NodeInfo*>& nodes,
                          const std::string& (v1::NodeInfo::*get)() const) {
  std::vector<std::string> names;
  names.reserve(nodes.size());
  std::set<std::string> seen;
  for (const auto* n : nodes) {
    const std::string& v = (n->*get)();
    // Several nodes on one host (or address) name it once, as the reference's sinfo did.
    if (seen.insert(v.empty() ? n->name() : v).second) names.push_back(v.empty() ? n->name() : v);
  }
  return hostlist::compressSorted(std::move(names));
}

std::string value(char code, const Record& r) {
  const auto& nodes = r.nodes;
  const v1::PartitionInfo* p = r.part;
  const v1::NodeInfo* first = nodes.empty() ? nullptr : nodes.front();
  switch (code) {
    case 'P': return p ? p->name() + (p->is_default() ? "*" : "") : "n/a";
    case 'R': return p ? p->name() : "n/a";
    case 'a': return p ? partitionAvail(*p) : "n/a";
    case 'l': return p ? sinfoTime(p->max_time_min()) : "n/a";
    case 'L': return p ? (p->default_time_min() < 0 ? "n/a" : sinfoTime(p->default_time_min())) : "n/a";
    case 's':
      if (!p) return "n/a";
      if (p->max_nodes() < 0) return "1-infinite";
      return p->max_nodes() == 1 ? "1" : "1-" + std::to_string(p->max_nodes());
    case 'r': return "no";
    case 'h': return p && p->exclusive() ? "EXCLUSIVE" : "NO";
    case 'g': return p ? joinStrings(p->allow_groups(), "all") : "all";
    case 'S': return "all";
    case 'I': return p ? std::to_string(p->priority_job_factor()) : "n/a";
    case 'p': return p ? std::to_string(p->priority_tier()) : "n/a";
    case 'M': return p && !p->preempt_mode().empty() ? p->preempt_mode() : "OFF";
    case 'B': return "UNLIMITED";
    case 'V': return "N/A";
    case 'D': return std::to_string(nodes.size());
    case 't': return first ? stateCompact(*first) : "n/a";
    case 'T': return first ? stateLong(*first) : "n/a";
    case 'N': return compressNames(nodes, &v1::NodeInfo::name);
    case 'n': return compressNames(nodes, &v1::NodeInfo::hostname);
    case 'o': return compressNames(nodes, &v1::NodeInfo::address);
    case 'c': return minPlus(nodes, cpusOf);
    case 'm': return minPlus(nodes, memOf);
    case 'd': return "0";
    case 'w': return minPlus(nodes, weightOf);
    case 'X': return minPlus(nodes, socketsOf);
    case 'Y': return minPlus(nodes, coresOf);
    case 'Z': return minPlus(nodes, threadsOf);
    case 'z':
      return minPlus(nodes, socketsOf) + ":" + minPlus(nodes, coresOf) + ":" + minPlus(nodes, threadsOf);
    case 'f': case 'b': return first ? joinStrings(first->features(), "(null)") : "(null)";
    case 'G': return first && !first->gres().empty() ? first->gres() : "(null)";
    case 'v': return first && !first->version().empty() ? first->version() : "N/A";
    case 'E': return first && !first->reason().empty() ? first->reason() : "none";
    case 'H': return first ? formatIsoTime(first->reason_time(), "Unknown") : "Unknown";
    case 'u': case 'U':
      return first && !first->reason_user().empty() ? first->reason_user() : "Unknown";
    case 'C': {
      std::uint64_t alloc = 0, idle = 0, other = 0, total = 0;
      for (const auto* n : nodes) {
        const std::uint32_t cpus = n->configured().cpus();
        const std::uint32_t used = std::min(n->alloc_cpus(), cpus);
        total += cpus;
        alloc += used;
        (isUnavailable(*n) ? other : idle) += cpus - used;
      }
      return std::to_string(alloc) + "/" + std::to_string(idle) + "/" + std::to_string(other) + "/" +
             std::to_string(total);
    }
    case 'A': case 'F': {
      std::uint64_t alloc = 0, idle = 0, other = 0;
      for (const auto* n : nodes) {
        if (isUnavailable(*n)) ++other;
        else if (n->state() == v1::NODE_ALLOCATED || n->state() == v1::NODE_MIXED) ++alloc;
        else if (n->state() == v1::NODE_IDLE) ++idle;
        else ++other;
      }
      std::string out = std::to_string(alloc) + "/" + std::to_string(idle);
      if (code == 'F') out += "/" + std::to_string(other) + "/" + std::to_string(nodes.size());
      return out;
    }
    case kAllocMemCode: return first ? std::to_string(first->alloc_memory_mb()) : "0";
    case kGresUsedCode: return first && !first->gres_used().empty() ? first->gres_used() : "(null)";
    // Drover keeps no node comment or extra text: Slurm's print of an unset one.
    case kCommentCode: case kExtraCode: return "(null)";
    case kPortCode: return first ? std::to_string(first->port()) : "0";
    case 'O': case 'e': {
      bool any = false;
      double lo = 0, hi = 0;
      for (const auto* n : nodes) {
        if (!hasReported(*n)) continue;
        const double v = code == 'O' ? n->cpu_load() : static_cast<double>(n->free_memory_mb());
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
      }
      return any ? rangeText(lo, hi, code == 'O') : "N/A";
    }
    default: return "";
  }
}

// -S: the records, already in sinfo's default order, sorted stably by each key's printed value
// (numbers as numbers); "P" by name, "#P" in the configured order; a letter sinfo does not
// print sorts nothing, as Slurm's.
void sortRecords(std::vector<Record>& records, const std::string& text,
                 const std::vector<v1::PartitionInfo>& partitions) {
  constexpr char kConfiguredOrder = '#';   // parseSortKeys reads "#P" as the letter '#'
  const std::vector<SortKey> keys = parseSortKeys(text);
  auto configuredIndex = [&partitions](const Record& r) {
    for (std::size_t i = 0; i < partitions.size(); ++i) {
      if (&partitions[i] == r.part) return i;
    }
    return partitions.size();
  };
  sortByKeys(records, keys, [&](const Record& a, const Record& b, char code) {
    if (code == kConfiguredOrder) return threeWay(configuredIndex(a), configuredIndex(b));
    if (code == 'P') code = 'R';   // the name, without the default partition's '*'
    if (!isKnownCode(code)) return 0;
    return compareValues(value(code, a), value(code, b));
  });
}

bool nodeSelected(const SinfoOptions& opts, const v1::NodeInfo& n,
                  const std::set<std::string>& node_filter) {
  if (!node_filter.empty() && !node_filter.count(n.name())) return false;
  if (opts.responding_only && n.not_responding()) return false;
  if (opts.dead_only && !n.not_responding()) return false;
  return matchesStateFilter(opts.states, n);
}

bool partitionSelected(const SinfoOptions& opts, const v1::PartitionInfo& p) {
  return opts.partitions.empty() ||
         std::find(opts.partitions.begin(), opts.partitions.end(), p.name()) != opts.partitions.end();
}

// Codes printing an attribute of the partition rather than of its nodes: rows of different
// partitions merge when these print alike (and no column names the partition), as Slurm's.
bool isPartitionAttribute(char code) {
  switch (code) {
    case 'P': case 'R': case 'a': case 'l': case 'L': case 's': case 'r': case 'h': case 'g':
    case 'S': case 'I': case 'p': case 'M': case 'B':
      return true;
    default:
      return false;
  }
}

bool namesPartition(const Format& format) {
  return std::any_of(format.begin(), format.end(), [](const FormatItem& item) {
    return item.is_field && (item.field.code == 'P' || item.field.code == 'R');
  });
}

// Lines in the making: a node joins the line whose grouping columns (groupsBy) and partition
// columns print the same, or starts a new one, in the order first seen. A node already on the
// line (it reached it through another partition) counts once, as in Slurm's merged rows.
struct GroupedRecords {
  GroupedRecords(const Format& format, bool exact) : format(format), exact(exact) {}

  void add(Record single) {
    std::string key;
    for (const auto& item : format) {
      const char code = item.field.code;
      if (item.is_field && (groupsBy(code, exact) || isPartitionAttribute(code))) {
        key += value(code, single) + '\x1f';
      }
    }
    const v1::NodeInfo* node = single.nodes.front();
    auto [at, fresh] = lines.try_emplace(std::move(key), records.size());
    if (fresh) {
      records.push_back(std::move(single));
      on_line.push_back({node});
    } else if (on_line[at->second].insert(node).second) {
      records[at->second].nodes.push_back(node);
    }
  }

  // A line of its own for a partition without nodes.
  void addEmpty(const v1::PartitionInfo* part) {
    records.push_back(Record{part, {}});
    on_line.emplace_back();
  }

  const Format& format;
  const bool exact;
  std::unordered_map<std::string, std::size_t> lines;  // key -> index in records
  std::vector<Record> records;
  std::vector<std::unordered_set<const v1::NodeInfo*>> on_line;  // each record's nodes
};

// The partition-oriented records: the nodes of each partition (in configuration order) grouped
// by the values of the printed grouping fields, across partitions unless a column names the
// partition (Slurm's `sinfo -o "%N %t"` prints node01 once although it is in gpu and debug);
// then Slurm's default order "#P,-t": by the partition that opened the line, then by
// decreasing state of its first node, whether or not the state is printed.
std::vector<Record> partitionRecords(const SinfoOptions& opts, const Format& format,
                                     const std::vector<v1::NodeInfo>& nodes,
                                     const std::vector<v1::PartitionInfo>& partitions) {
  std::unordered_map<std::string, const v1::NodeInfo*> by_name;
  for (const auto& n : nodes) by_name.emplace(n.name(), &n);
  const std::set<std::string> node_filter(opts.nodes.begin(), opts.nodes.end());
  // Only a row that names its partition can show one without nodes ("empty 0 n/a"); so does a
  // partition none of whose nodes -n, -t, -r or -d selects (the reference's `sinfo -n nosuch`
  // and `sinfo -t alloc` printed "debug up 30:00 0 n/a").
  const bool empty_rows = namesPartition(format);

  GroupedRecords grouped(format, opts.exact);
  std::unordered_map<const v1::PartitionInfo*, std::size_t> configured;
  for (const auto& part : partitions) {
    configured.emplace(&part, configured.size());
    if (!partitionSelected(opts, part)) continue;
    auto members = hostlist::expand(part.nodes());
    bool any = false;
    if (members.ok()) {
      for (const auto& name : *members) {
        auto it = by_name.find(name);
        if (it == by_name.end() || !nodeSelected(opts, *it->second, node_filter)) continue;
        grouped.add(Record{&part, {it->second}});
        any = true;
      }
    }
    if (empty_rows && !any) grouped.addEmpty(&part);
  }
  std::vector<Record> out = std::move(grouped.records);
  std::stable_sort(out.begin(), out.end(), [&configured](const Record& a, const Record& b) {
    const std::size_t pa = configured.at(a.part), pb = configured.at(b.part);
    if (pa != pb) return pa < pb;
    const int ka = a.nodes.empty() ? -1 : stateSortKey(*a.nodes.front());
    const int kb = b.nodes.empty() ? -1 : stateSortKey(*b.nodes.front());
    return ka > kb;
  });
  return out;
}

// The node-oriented records (-N): one per node and partition, by node name, then partition in
// configuration order.
std::vector<Record> nodeRecords(const SinfoOptions& opts, const std::vector<v1::NodeInfo>& nodes,
                                const std::vector<v1::PartitionInfo>& partitions) {
  const std::set<std::string> node_filter(opts.nodes.begin(), opts.nodes.end());
  std::vector<std::string> names;
  for (const auto& n : nodes) names.push_back(n.name());
  hostlist::sortHosts(names);
  std::unordered_map<std::string, std::size_t> rank;
  for (std::size_t i = 0; i < names.size(); ++i) rank.emplace(names[i], i);

  std::vector<Record> out;
  for (const auto& part : partitions) {
    if (!partitionSelected(opts, part)) continue;
    auto members = hostlist::expand(part.nodes());
    if (!members.ok()) continue;
    const std::set<std::string> in_part(members->begin(), members->end());
    for (const auto& n : nodes) {
      if (in_part.count(n.name()) && nodeSelected(opts, n, node_filter)) out.push_back(Record{&part, {&n}});
    }
  }
  std::stable_sort(out.begin(), out.end(), [&rank](const Record& a, const Record& b) {
    return rank[a.nodes.front()->name()] < rank[b.nodes.front()->name()];
  });
  return out;
}

// -R: down, drained and draining nodes (each once, whatever its partitions), grouped by the
// values of the grouping fields (reason, user, time). Ordered as the reference's were (sinfo's
// default "#P,-t" over records that keep the last configured partition of their node): by that
// partition in cluster.conf's order, then flagged states above the rest (stateSortKey), then
// by node name; with node01-02 in gpu and debug and node03 in gpu alone, drained one after the
// other, it listed node03, node01, node02 (golden sinfo-merge/25: drain* node04 above node03).
std::vector<Record> reasonRecords(const SinfoOptions& opts, const Format& format,
                                  const std::vector<v1::NodeInfo>& nodes,
                                  const std::vector<v1::PartitionInfo>& partitions) {
  const std::set<std::string> node_filter(opts.nodes.begin(), opts.nodes.end());
  std::vector<const v1::NodeInfo*> picked;
  for (const auto& n : nodes) {
    if ((n.drain() || n.state() == v1::NODE_DOWN) && nodeSelected(opts, n, node_filter)) picked.push_back(&n);
  }
  std::vector<std::string> names;
  for (const auto* n : picked) names.push_back(n->name());
  hostlist::sortHosts(names);
  std::unordered_map<std::string, std::size_t> rank;
  for (std::size_t i = 0; i < names.size(); ++i) rank.emplace(names[i], i);
  std::unordered_map<std::string, std::size_t> configured;
  for (std::size_t i = 0; i < partitions.size(); ++i) configured.emplace(partitions[i].name(), i);
  const auto lastPartition = [&configured](const v1::NodeInfo& n) {
    std::size_t last = 0;
    for (const auto& p : n.partitions()) {
      if (auto it = configured.find(p); it != configured.end()) last = std::max(last, it->second);
    }
    return last;
  };
  std::stable_sort(picked.begin(), picked.end(), [&](const auto* a, const auto* b) {
    const auto pa = lastPartition(*a), pb = lastPartition(*b);
    if (pa != pb) return pa < pb;
    const int ka = stateSortKey(*a), kb = stateSortKey(*b);
    if (ka != kb) return ka > kb;
    return rank[a->name()] < rank[b->name()];
  });

  GroupedRecords grouped(format, opts.exact);
  for (const auto* n : picked) grouped.add(Record{nullptr, {n}});
  return std::move(grouped.records);
}

// -O's field names and the -o codes printing the same columns.
constexpr NamedField kLongFields[] = {
    {"available", 'a'},    {"cluster", 'V'},        {"cores", 'Y'},
    {"cpus", 'c'},         {"cpusload", 'O'},       {"cpusstate", 'C'},
    {"defaulttime", 'L'},  {"disk", 'd'},           {"features", 'f'},
    {"features_act", 'b'}, {"freemem", 'e'},        {"gres", 'G'},
    {"groups", 'g'},       {"maxcpuspernode", 'B'}, {"memory", 'm'},
    {"nodeaddr", 'o'},     {"nodeai", 'A'},         {"nodeaiot", 'F'},
    {"nodehost", 'n'},     {"nodelist", 'N'},       {"nodes", 'D'},
    {"oversubscribe", 'h'}, {"partition", 'P'},     {"partitionname", 'R'},
    {"preemptmode", 'M'},  {"priorityjobfactor", 'I'}, {"prioritytier", 'p'},
    {"reason", 'E'},       {"root", 'r'},           {"size", 's'},
    {"socketcorethread", 'z'}, {"sockets", 'X'},    {"statecompact", 't'},
    {"statelong", 'T'},    {"threads", 'Z'},        {"time", 'l'},
    {"timestamp", 'H'},    {"user", 'u'},           {"userlong", 'U'},
    {"version", 'v'},      {"weight", 'w'},         {"allocnodes", 'S'},
    {"allocmem", kAllocMemCode}, {"gresused", kGresUsedCode},
    {"comment", kCommentCode}, {"extra", kExtraCode}, {"port", kPortCode},
    {"all", kAllCode},
};

// Every -o field, as Slurm 22.05's "-O All" and "-o %all" print them: the lower-case letters
// in order, each as wide as its value and followed by "|", then the upper-case ones followed by
// " |" (the last by a space alone); the reference printed exactly this line of 42 columns.
Format allFieldsFormat() {
  static constexpr std::string_view kLower = "abcdefghlmnoprstuvwz";
  static constexpr std::string_view kUpper = "ABCDEFGHILMNOPRSTUVXYZ";
  Format out;
  auto add = [&out](char code, std::string suffix) {
    FormatItem field;
    field.is_field = true;
    field.field.code = code;
    out.push_back(std::move(field));
    FormatItem literal;
    literal.literal = std::move(suffix);
    out.push_back(std::move(literal));
  };
  for (char code : kLower) add(code, "|");
  for (std::size_t i = 0; i < kUpper.size(); ++i) add(kUpper[i], i + 1 < kUpper.size() ? " |" : " ");
  return out;
}

// An unknown -O name is left out with the reference's warning (its text says "job"), exit 0.
Result<Format> longFormat(const std::string& text, std::vector<std::string>* warnings) {
  auto named = namedFieldFormat(text, kLongFields, [warnings](const std::string& name) {
    warnings->push_back("sinfo: error: Invalid job format specification: " + name);
    return std::string();
  });
  if (!named) return named;
  // "All" (its width, if any, ignored, as the reference's) becomes every field in its place.
  Format out;
  for (auto& item : *named) {
    if (item.is_field && item.field.code == kAllCode) {
      for (auto& all : allFieldsFormat()) out.push_back(std::move(all));
    } else {
      out.push_back(std::move(item));
    }
  }
  return out;
}

// A string Slurm holds as unset prints as "(null)" (glibc's printf of a null %s), except
// left-justified in fewer than 6 columns, where glibc prints nothing: the field is blank
// (the reference's `sinfo -O Comment:5` and `-o %5f`; `%.3f` right-justified printed "(nu").
std::string nullAware(std::string text, const FieldSpec& spec) {
  if (text == "(null)" && !spec.right && spec.width > 0 && spec.width < 6) return "";
  return text;
}

// A field as -o wrote it ("%.3Q"), for one printed as text.
std::string writtenField(const FieldSpec& f) {
  std::string out = "%";
  if (f.right) out += '.';
  if (f.auto_width) out += '#';
  if (f.width > 0) out += std::to_string(f.width);
  return out + f.code;
}

}  // namespace

std::string builtinSinfoFormat(const SinfoOptions& opts) {
  if (opts.list_reasons) return opts.long_format ? "%20E %12U %19H %6t %N" : "%20E %9u %19H %N";
  // Slurm documents two spaces before %N but printed one (golden sinfo-merge/09).
  if (opts.summarize) return "%#P %.5a %.10l %.16F %N";
  if (opts.node_oriented) {
    // Slurm documents "%#P" here but prints the column right-justified (golden 081).
    return opts.long_format ? "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E"
                            : "%#N %.6D %.#P %6t";
  }
  return opts.long_format ? "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
                          : "%#P %.5a %.10l %.6D %.6t %N";
}

Result<std::string> renderSinfo(const SinfoOptions& opts, const std::vector<v1::NodeInfo>& nodes,
                                const std::vector<v1::PartitionInfo>& partitions,
                                std::int64_t now, std::vector<std::string>* warnings) {
  std::vector<std::string> unused;
  if (warnings == nullptr) warnings = &unused;
  const std::string format_text = opts.format.empty() ? builtinSinfoFormat(opts) : opts.format;
  // A field with no letter (`%-10P`, `%%|`) is printed as written, named as the reference's.
  std::vector<std::string> no_letter;
  auto parsed = !opts.format_long.empty()         ? longFormat(opts.format_long, warnings)
                : equalsIgnoreCase(format_text, "%all") ? Result<Format>(allFieldsFormat())
                                                  : parseFormat(format_text, &no_letter);
  if (!parsed.ok()) return makeError(parsed.error());
  for (const auto& c : no_letter) warnings->push_back("Invalid node format specification: " + c);
  Format format = std::move(*parsed);
  // A letter sinfo does not know: the reference said so (no "sinfo:" prefix), printed the
  // field as written, in the header and on every line, and exited 0.
  for (auto& item : format) {
    if (!item.is_field || isKnownCode(item.field.code)) continue;
    warnings->push_back(std::string("Invalid node format specification: ") + item.field.code);
    item.is_field = false;
    item.literal = writtenField(item.field);
  }

  std::vector<Record> records = opts.list_reasons    ? reasonRecords(opts, format, nodes, partitions)
                                : opts.node_oriented ? nodeRecords(opts, nodes, partitions)
                                                     : partitionRecords(opts, format, nodes, partitions);
  if (!opts.sort.empty()) sortRecords(records, opts.sort, partitions);

  // Compute `#` widths from the data (and at least kMinAutoWidth, as Slurm).
  for (auto& item : format) {
    if (!item.is_field || !item.field.auto_width) continue;
    std::size_t width = item.field.code == 'P' || item.field.code == 'N' ? kMinAutoWidth
                                                                          : header(item.field.code).size();
    for (const auto& r : records) width = std::max(width, value(item.field.code, r).size());
    item.field.width = static_cast<int>(width);
  }

  std::string out;
  if (printsDateLine(opts)) out += dateLine(now) + "\n";
  if (!opts.no_header) {
    out += renderLine(format, [](const FieldSpec& f) { return header(f.code); }) + "\n";
  }
  for (const auto& r : records) {
    out += renderLine(format, [&r](const FieldSpec& f) { return nullAware(value(f.code, r), f); }) + "\n";
  }
  return out;
}

std::string renderSinfoJson(const std::vector<v1::NodeInfo>& nodes, bool yaml) {
  json::Array list;
  for (const auto& n : nodes) {
    json::Array partitions;
    for (const auto& p : n.partitions()) partitions.emplace_back(p);
    json::Array flags;
    for (const auto& f : stateFlags(n)) flags.emplace_back(f);
    std::string features = joinStrings(n.features(), "");
    const auto& c = n.configured();
    const std::uint32_t idle_cpus = c.cpus() > n.alloc_cpus() ? c.cpus() - n.alloc_cpus() : 0;
    list.emplace_back(json::Object{
        {"architecture", n.arch()},
        {"burstbuffer_network_address", ""},
        {"boards", 1},
        {"boot_time", n.boot_time()},
        {"comment", ""},
        {"cores", c.cores_per_socket()},
        {"cpu_binding", 0},
        {"cpu_load", static_cast<std::int64_t>(n.cpu_load() * 100 + 0.5)},
        {"extra", ""},
        {"free_memory", n.free_memory_mb()},
        {"cpus", c.cpus()},
        {"last_busy", n.last_busy_time()},
        {"features", features},
        {"active_features", features},
        {"gres", n.gres()},
        {"gres_drained", "N/A"},
        {"gres_used", gresUsedPlain(n)},
        {"mcs_label", ""},
        {"name", n.name()},
        {"next_state_after_reboot", "invalid"},
        {"address", n.address()},
        {"hostname", n.hostname()},
        {"state", baseStateLower(n)},
        {"state_flags", std::move(flags)},
        {"next_state_after_reboot_flags", json::Array{}},
        {"operating_system", n.os()},
        {"owner", nullptr},
        {"partitions", std::move(partitions)},
        {"port", n.port()},
        {"real_memory", c.real_memory_mb()},
        {"reason", n.reason()},
        {"reason_changed_at", n.reason_time()},
        {"reason_set_by_user", n.reason_user().empty() ? json::Value() : json::Value(n.reason_user())},
        {"slurmd_start_time", n.agent_start_time()},
        {"sockets", c.sockets()},
        {"threads", c.threads_per_core()},
        {"temporary_disk", 0},
        {"weight", n.weight()},
        {"tres", nodeCfgTres(n)},
        {"slurmd_version", n.version()},
        {"alloc_memory", n.alloc_memory_mb()},
        {"alloc_cpus", n.alloc_cpus()},
        {"idle_cpus", idle_cpus},
        {"tres_used", nodeAllocTres(n)},
        {"tres_weighted", static_cast<double>(n.alloc_cpus())},
    });
  }
  const json::Value doc(json::Object{
      {"meta", json::slurmMeta()},
      {"errors", json::Array{}},
      {"nodes", std::move(list)},
  });
  return yaml ? json::dumpYaml(doc) : json::dump(doc);
}

}  // namespace drover::cli
