#include "cli/sshare_view.h"
#include "cli/field_table.h"
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
std::string associationId(const v1::ShareInfo& s, const Options&) {
  return std::to_string(s.association_id());
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

// --helpformat's order, which is also the order a name's beginning is matched in. ID is the
// association's id, Drover's its place in the association tree (Slurm's a database id).
constexpr Field kFields[] = {
    {"Account", 20, true, account},          {"Cluster", 10, false, cluster},
    {"EffectvUsage", 13, false, effectiveUsage}, {"FairShare", 10, false, fairShare},
    {"GrpTRESMins", 30, false, grpTresMins}, {"GrpTRESRaw", 30, false, grpTresRaw},
    {"ID", 6, false, associationId},         {"LevelFS", 10, false, levelFs},
    {"NormShares", 11, false, normShares},   {"NormUsage", 11, false, normUsage},
    {"Partition", 12, false, partition},     {"RawShares", 10, false, rawShares},
    {"RawUsage", 11, false, rawUsage},       {"TRESRunMins", 30, false, tresRunMins},
    {"User", 10, false, user},
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

std::vector<const Field*> fieldsFor(const SshareOptions& o, std::vector<TableColumn>& columns) {
  static const std::vector<SshareColumnChoice> kDefault = {
      {"Account"}, {"User"}, {"RawShares"}, {"NormShares"}, {"RawUsage"}, {"EffectvUsage"}, {"FairShare"}};
  static const std::vector<SshareColumnChoice> kLong = {
      {"Account"},   {"User"},         {"RawShares"}, {"NormShares"}, {"RawUsage"},    {"NormUsage"},
      {"EffectvUsage"}, {"FairShare"}, {"LevelFS"},   {"GrpTRESMins"}, {"TRESRunMins"}};
  const auto& chosen = !o.columns.empty() ? o.columns : o.long_format ? kLong : kDefault;
  std::vector<const Field*> fields;
  for (const auto& choice : chosen) {
    const Field& f = fieldNamed(choice.field);
    fields.push_back(&f);
    columns.push_back(chosenColumn(f.name, f.width, f.left, choice.width));
  }
  return fields;
}

}  // namespace

Result<std::vector<SshareColumnChoice>> parseSshareFormat(std::string_view text) {
  std::vector<SshareColumnChoice> columns;
  for (const std::string& item_text : splitCommas(text)) {
    auto item = splitFieldWidth(item_text);
    if (!item.ok()) return makeError(item.error());
    const Field* field = fieldStartingWith(item->name);
    if (field == nullptr) return makeError("Invalid field requested: \"" + item->name + "\"");
    columns.push_back({field->name, item->width});
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
  std::vector<TableColumn> columns;
  const std::vector<const Field*> fields = fieldsFor(o, columns);
  std::vector<TableRow> rows;
  for (const auto& s : reply.shares()) {
    if (o.users_only && s.user().empty()) continue;
    TableRow& row = rows.emplace_back();
    for (const Field* f : fields) row.push_back(f->value(s, o));
  }
  return renderTable(columns, rows, {o.no_header, o.parsable, o.parsable2});
}

}  // namespace drover::cli
