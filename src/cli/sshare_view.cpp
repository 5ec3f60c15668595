#include "cli/sshare_view.h"
#include "common/ascii_case.h"
#include "common/comma_list.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace drover::cli {

namespace {

struct Field {
  const char* name;   // also the header
  int width;
  bool left;
  std::string (*value)(const v1::ShareInfo&, const SshareOptions&);
};

std::string fixed6(double v) {
  if (std::isinf(v)) return "inf";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

// Slurm's TRES list with only cpu (and billing, its default weight) used: Drover accounts CPUs.
std::string cpuTres(std::uint64_t cpu) {
  const std::string n = std::to_string(cpu);
  return "cpu=" + n + ",mem=0,energy=0,node=0,billing=" + n + ",fs/disk=0,vmem=0,pages=0";
}

using Options = SshareOptions;
std::string account(const v1::ShareInfo& s, const Options&) {
  return std::string(s.depth(), ' ') + s.account();
}
std::string cluster(const v1::ShareInfo&, const Options& o) { return o.cluster_name; }
std::string effectiveUsage(const v1::ShareInfo& s, const Options&) { return fixed6(s.effective_usage()); }
std::string fairShare(const v1::ShareInfo& s, const Options&) {
  return s.user().empty() ? "" : fixed6(s.fair_share());
}
std::string grpTresMins(const v1::ShareInfo&, const Options&) { return ""; }   // no limits
std::string grpTresRaw(const v1::ShareInfo& s, const Options&) {
  return cpuTres(static_cast<std::uint64_t>(std::max(0.0, s.raw_usage()) / 60));
}
std::string levelFs(const v1::ShareInfo& s, const Options&) { return s.is_root() ? "" : fixed6(s.level_fs()); }
std::string normShares(const v1::ShareInfo& s, const Options&) {
  return fixed6(s.is_root() ? 0 : s.norm_shares());
}
std::string normUsage(const v1::ShareInfo& s, const Options&) { return fixed6(s.norm_usage()); }
std::string partition(const v1::ShareInfo&, const Options&) { return ""; }  // no partition associations
std::string rawShares(const v1::ShareInfo& s, const Options&) {
  return s.is_root() ? "" : std::to_string(s.raw_shares());
}
std::string rawUsage(const v1::ShareInfo& s, const Options&) {
  return std::to_string(static_cast<unsigned long long>(std::max(0.0, s.raw_usage())));
}
std::string tresRunMins(const v1::ShareInfo& s, const Options&) { return cpuTres(s.tres_run_cpu_mins()); }
std::string user(const v1::ShareInfo& s, const Options&) { return s.user(); }

// --helpformat's order, which is also the order a name's beginning is matched in. Slurm's ID
// (the association's database id) has no Drover counterpart.
constexpr Field kFields[] = {
    {"Account", 20, true, account},          {"Cluster", 10, false, cluster},
    {"EffectvUsage", 13, false, effectiveUsage}, {"FairShare", 10, false, fairShare},
    {"GrpTRESMins", 30, false, grpTresMins}, {"GrpTRESRaw", 30, false, grpTresRaw},
    {"LevelFS", 10, false, levelFs},         {"NormShares", 11, false, normShares},
    {"NormUsage", 11, false, normUsage},     {"Partition", 12, false, partition},
    {"RawShares", 10, false, rawShares},     {"RawUsage", 11, false, rawUsage},
    {"TRESRunMins", 30, false, tresRunMins}, {"User", 10, false, user},
};

const Field* fieldStartingWith(std::string_view text) {
  if (text.empty()) return nullptr;
  for (const Field& f : kFields) {
    if (startsWithIgnoreCase(f.name, text)) return &f;
  }
  return nullptr;
}

const Field& fieldNamed(const std::string& name) {
  for (const Field& f : kFields) {
    if (name == f.name) return f;
  }
  std::abort();   // names come from parseSshareFormat or the lists below
}

// A column as printed: the field and the width and side chosen for it.
struct Column {
  const Field* field;
  int width;
  bool left;
};

std::vector<Column> columnsFor(const SshareOptions& o) {
  static const std::vector<SshareColumnChoice> kDefault = {
      {"Account"}, {"User"}, {"RawShares"}, {"NormShares"}, {"RawUsage"}, {"EffectvUsage"}, {"FairShare"}};
  static const std::vector<SshareColumnChoice> kLong = {
      {"Account"},   {"User"},         {"RawShares"}, {"NormShares"}, {"RawUsage"},    {"NormUsage"},
      {"EffectvUsage"}, {"FairShare"}, {"LevelFS"},   {"GrpTRESMins"}, {"TRESRunMins"}};
  const auto& chosen = !o.columns.empty() ? o.columns : o.long_format ? kLong : kDefault;
  std::vector<Column> columns;
  for (const auto& choice : chosen) {
    const Field& f = fieldNamed(choice.field);
    if (choice.width == 0) columns.push_back({&f, f.width, f.left});
    else columns.push_back({&f, std::abs(choice.width), choice.width < 0});
  }
  return columns;
}

// Pads to the width and, as Slurm's fixed columns do, cuts a longer value to width-1
// characters followed by '+' (a header is cut plainly).
std::string cell(const std::string& v, const Column& c, bool header) {
  const auto width = static_cast<std::size_t>(c.width);
  if (v.size() > width) return header ? v.substr(0, width) : v.substr(0, width - 1) + "+";
  std::string pad(width - v.size(), ' ');
  return c.left ? v + pad : pad + v;
}

}  // namespace

Result<std::vector<SshareColumnChoice>> parseSshareFormat(std::string_view text) {
  std::vector<SshareColumnChoice> columns;
  for (const std::string& item_text : splitCommas(text)) {
    const std::string_view item = item_text;
    const std::size_t percent = item.find('%');
    const Field* field = fieldStartingWith(item.substr(0, percent));
    if (field == nullptr) {
      return makeError("Invalid field requested: \"" + std::string(item.substr(0, percent)) + "\"");
    }
    int width = 0;
    if (percent != std::string_view::npos) {
      // As Slurm reads it (atoi): a leading signed number; anything else is the default.
      const std::string digits(item.substr(percent + 1));
      const long parsed = std::strtol(digits.c_str(), nullptr, 10);
      if (parsed > 10000 || parsed < -10000) {
        return makeError("Invalid width in \"" + std::string(item) + "\": at most 10000 characters");
      }
      width = static_cast<int>(parsed);
    }
    columns.push_back({field->name, width});
  }
  if (columns.empty()) return makeError("--format (-o): no field given; see --helpformat");
  return columns;
}

bool sshareShowsCluster(const SshareOptions& options) {
  return std::any_of(options.columns.begin(), options.columns.end(),
                     [](const SshareColumnChoice& c) { return c.field == "Cluster"; });
}

std::string sshareHelpFormat() {
  std::string out;
  const std::size_t count = std::size(kFields);
  for (std::size_t i = 0; i < count; ++i) {
    if (i % 4 != 0) out += ' ';
    std::string name = kFields[i].name;
    name.resize(std::max<std::size_t>(name.size(), 17), ' ');
    out += name;
    if (i % 4 == 3 || i + 1 == count) out += '\n';
  }
  return out;
}

std::string renderSshare(const SshareOptions& o, const v1::GetSharesReply& reply) {
  const std::vector<Column> cols = columnsFor(o);
  const bool parsable = o.parsable || o.parsable2;
  auto line = [&](bool header, auto valueOf) {
    std::string out;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      std::string v = valueOf(cols[i]);
      if (parsable) {
        out += v;
        if (o.parsable || i + 1 < cols.size()) out += "|";
      } else {
        out += cell(v, cols[i], header) + " ";
      }
    }
    return out + "\n";
  };
  std::string out;
  if (!o.no_header) {
    out += line(true, [](const Column& c) { return std::string(c.field->name); });
    if (!parsable) {
      out += line(true, [](const Column& c) { return std::string(static_cast<std::size_t>(c.width), '-'); });
    }
  }
  for (const auto& s : reply.shares()) {
    if (o.users_only && s.user().empty()) continue;
    out += line(false, [&](const Column& c) { return c.field->value(s, o); });
  }
  return out;
}

}  // namespace drover::cli
