#include "cli/sacctmgr_view.h"

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "config/association_tree.h"
#include "drover/time_spec.h"

namespace drover::cli {

namespace {

// A column sacctmgr can print: its header (also its name), width, and the other names
// format= takes for it (lower case, comma-separated).
struct FieldDef {
  std::string_view header;
  int width;
  std::string_view aliases = "";
};

constexpr FieldDef kCluster{"Cluster", 10}, kAccount{"Account", 10, "acct"}, kUser{"User", 10},
    kPartition{"Partition", 10}, kShare{"Share", 9, "shares,fairshare"}, kPriority{"Priority", 10},
    kGrpJobs{"GrpJobs", 7}, kGrpTres{"GrpTRES", 13}, kGrpSubmit{"GrpSubmit", 9, "grpsubmitjobs"},
    kGrpWall{"GrpWall", 11}, kGrpTresMins{"GrpTRESMins", 13}, kMaxJobs{"MaxJobs", 7},
    kMaxTres{"MaxTRES", 13, "maxtresperjob"}, kMaxTresPerNode{"MaxTRESPerNode", 14},
    kMaxSubmit{"MaxSubmit", 9, "maxsubmitjobs"}, kMaxWall{"MaxWall", 11, "maxwalldurationperjob"},
    kMaxTresMins{"MaxTRESMins", 13}, kQos{"QOS", 20}, kDefQos{"Def QOS", 9, "defaultqos,defqos"},
    kGrpTresRunMins{"GrpTRESRunMins", 13}, kParentName{"ParentName", 10, "parent"},
    kId{"ID", 6, "associd"}, kDescr{"Descr", 20, "description"}, kOrg{"Org", 20, "organization"},
    kDefAcct{"Def Acct", 10, "defaultaccount,defacct"}, kAdmin{"Admin", 9, "adminlevel"},
    kGrpNodes{"GrpNodes", 8}, kGrpCpus{"GrpCPUs", 8}, kGrpMem{"GrpMem", 7},
    kGrpCpuMins{"GrpCPUMins", 11}, kMaxNodes{"MaxNodes", 8}, kMaxCpus{"MaxCPUs", 8},
    kMaxCpuMins{"MaxCPUMins", 11}, kControlHost{"ControlHost", 15}, kControlPort{"ControlPort", 12},
    kRpc{"RPC", 5}, kQosName{"Name", 10}, kGraceTime{"GraceTime", 10}, kPreempt{"Preempt", 10},
    kPreemptExemptTime{"PreemptExemptTime", 19}, kPreemptMode{"PreemptMode", 11},
    kFlags{"Flags", 40}, kUsageThres{"UsageThres", 10}, kUsageFactor{"UsageFactor", 11},
    kMaxTresPu{"MaxTRESPU", 13, "maxtresperuser"}, kMaxJobsPu{"MaxJobsPU", 9, "maxjobsperuser"},
    kMaxSubmitPu{"MaxSubmitPU", 11, "maxsubmitjobsperuser"},
    kMaxTresPa{"MaxTRESPA", 13, "maxtresperaccount"}, kMaxJobsPa{"MaxJobsPA", 9, "maxjobsperaccount"},
    kMaxSubmitPa{"MaxSubmitPA", 11, "maxsubmitjobsperaccount"}, kMinTres{"MinTRES", 13},
    kTresType{"Type", 8}, kTresName{"Name", 15}, kTresId{"ID", 6};

// Each entity's fields: all format= may name, in Slurm's order; the first `plain` are its
// default columns, the first `with_assoc` those of withassoc (-s).
struct EntityFields {
  std::span<const FieldDef> fields;
  std::size_t plain;
  std::size_t with_assoc;
};

constexpr FieldDef kAssocFields[] = {
    kCluster, kAccount, kUser, kPartition, kShare, kPriority, kGrpJobs, kGrpTres, kGrpSubmit,
    kGrpWall, kGrpTresMins, kMaxJobs, kMaxTres, kMaxTresPerNode, kMaxSubmit, kMaxWall,
    kMaxTresMins, kQos, kDefQos, kGrpTresRunMins, kParentName, kId};
constexpr FieldDef kAccountFields[] = {
    kAccount, kDescr, kOrg, kCluster, kParentName, kUser, kShare, kPriority, kGrpJobs, kGrpNodes,
    kGrpCpus, kGrpMem, kGrpSubmit, kGrpWall, kGrpCpuMins, kMaxJobs, kMaxNodes, kMaxCpus,
    kMaxSubmit, kMaxWall, kMaxCpuMins, kQos, kDefQos, kPartition, kGrpTres, kMaxTres, kId};
constexpr FieldDef kUserFields[] = {
    kUser, kDefAcct, kAdmin, kCluster, kAccount, kPartition, kShare, kPriority, kMaxJobs,
    kMaxNodes, kMaxCpus, kMaxSubmit, kMaxWall, kMaxCpuMins, kQos, kDefQos, kGrpTres, kMaxTres,
    kParentName, kId};
constexpr FieldDef kClusterFields[] = {
    kCluster, kControlHost, kControlPort, kRpc, kShare, kGrpJobs, kGrpTres, kGrpSubmit,
    kMaxJobs, kMaxTres, kMaxSubmit, kMaxWall, kQos, kDefQos};
constexpr FieldDef kQosFields[] = {
    kQosName, kPriority, kGraceTime, kPreempt, kPreemptExemptTime, kPreemptMode, kFlags,
    kUsageThres, kUsageFactor, kGrpTres, kGrpTresMins, kGrpTresRunMins, kGrpJobs, kGrpSubmit,
    kGrpWall, kMaxTres, kMaxTresPerNode, kMaxTresMins, kMaxWall, kMaxTresPu, kMaxJobsPu,
    kMaxSubmitPu, kMaxTresPa, kMaxJobsPa, kMaxSubmitPa, kMinTres, kId, kDescr};
constexpr FieldDef kTresFields[] = {kTresType, kTresName, kTresId};

EntityFields fieldsOf(SacctmgrEntity e) {
  switch (e) {
    case SacctmgrEntity::kAssociation: return {kAssocFields, 20, 20};
    case SacctmgrEntity::kAccount: return {kAccountFields, 3, 23};
    case SacctmgrEntity::kUser: return {kUserFields, 3, 16};
    case SacctmgrEntity::kCluster: return {kClusterFields, 14, 14};
    case SacctmgrEntity::kQos: return {kQosFields, 26, 26};
    case SacctmgrEntity::kTres: return {kTresFields, 3, 3};
    case SacctmgrEntity::kEvent: return {};   // from the controller: sacctmgr_events.h
  }
  return {};
}

bool namesField(const FieldDef& f, std::string_view name, bool whole) {
  auto matches = [&](std::string_view candidate) {
    return whole ? equalsIgnoreCase(candidate, name) : startsWithIgnoreCase(candidate, name);
  };
  if (matches(f.header)) return true;
  for (const std::string& alias : splitCommas(f.aliases)) {
    if (matches(alias)) return true;
  }
  return false;
}

// A whole name (header or alias, any case) first; else the one field it begins (a beginning
// shared by two fields names neither: Slurm's `format=def` is an unknown field).
const FieldDef* findField(std::span<const FieldDef> fields, std::string_view name) {
  if (name.empty()) return nullptr;
  for (const FieldDef& f : fields) {
    if (namesField(f, name, true)) return &f;
  }
  const FieldDef* found = nullptr;
  for (const FieldDef& f : fields) {
    if (!namesField(f, name, false)) continue;
    if (found != nullptr) return nullptr;
    found = &f;
  }
  return found;
}

struct Row {
  std::map<std::string, std::string, std::less<>> values;   // by header
  int depth = 0;                                            // in the association tree
};

std::string adminLevel(const config::ClusterConfig& config, const std::string& user) {
  if (user == "root") return "Administrator";
  const auto& ops = config.operators;
  return std::find(ops.begin(), ops.end(), user) != ops.end() ? "Operator" : "None";
}

// An association's QOS column: its list, every QOS when it has none, by name as Slurm's.
std::string qosList(const config::ClusterConfig& config, std::vector<std::string> names) {
  if (names.empty()) {
    for (const config::QosConfig& q : config.qos) names.push_back(q.name);
  }
  std::sort(names.begin(), names.end());
  return joinCommas(names);
}

// A QOS's TRES limits (GrpTRES, MaxTRES, MaxTRESPU) as the reference's sacctmgr listed them:
// by name, `cpu=8,gres/gpu=4,node=2` (std::map's order).
std::string tresLimits(const std::map<std::string, std::uint64_t>& limits) {
  std::string out;
  for (const auto& [name, count] : limits) {
    if (!out.empty()) out += ",";
    out += name + "=" + std::to_string(count);
  }
  return out;
}

// One row per association, in the tree's order, with what every entity shows of it.
std::vector<Row> associationRows(const config::ClusterConfig& config) {
  const auto tree = config::associationTree(config);
  std::map<std::string, const config::AccountConfig*> accounts;
  for (const auto& a : config.accounts) accounts.emplace(a.name, &a);
  std::vector<Row> rows;
  for (const config::AssociationNode& n : tree) {
    Row row;
    row.depth = n.depth;
    auto& v = row.values;
    v["Cluster"] = config.cluster_name;
    v["Account"] = n.account;
    v["User"] = n.user;
    v["Share"] = std::to_string(n.shares);
    v["Priority"] = n.priority >= 0 ? std::to_string(n.priority) : "";
    v["QOS"] = qosList(config, n.qos);
    v["Def QOS"] = n.default_qos;
    v["ID"] = std::to_string(n.id);
    // Slurm's defaults for an account added without them: Descr its name, Org its parent's
    // name (its own directly under root).
    const auto it = accounts.find(n.account);
    const config::AccountConfig* a = it == accounts.end() ? nullptr : it->second;
    const std::string parent = a && !a->parent.empty() ? a->parent : "root";
    if (n.user.empty() && n.parent >= 0) v["ParentName"] = parent;
    if (a == nullptr) {
      v["Descr"] = "default root account";
      v["Org"] = "root";
    } else {
      v["Descr"] = a->description.empty() ? a->name : a->description;
      v["Org"] = !a->organization.empty() ? a->organization : parent == "root" ? a->name : parent;
    }
    if (!n.user.empty()) {
      const std::string def = config::defaultAccountOf(config, n.user);
      v["Def Acct"] = def.empty() && n.user == "root" ? "root" : def;
      v["Admin"] = adminLevel(config, n.user);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Row valuesRow(std::initializer_list<std::pair<const std::string, std::string>> values) {
  Row row;
  for (const auto& [k, v] : values) row.values.emplace(k, v);
  return row;
}

std::vector<Row> rowsOf(SacctmgrEntity entity, const config::ClusterConfig& config) {
  switch (entity) {
    case SacctmgrEntity::kAssociation: return associationRows(config);
    case SacctmgrEntity::kAccount: {
      // By account name; each account's own association before its users'.
      std::vector<Row> rows = associationRows(config);
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return std::tie(a.values.at("Account"), a.values.at("User")) <
               std::tie(b.values.at("Account"), b.values.at("User"));
      });
      return rows;
    }
    case SacctmgrEntity::kUser: {
      std::vector<Row> rows;
      for (Row& r : associationRows(config)) {
        if (!r.values.at("User").empty()) rows.push_back(std::move(r));
      }
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return a.values.at("User") < b.values.at("User");
      });
      return rows;
    }
    case SacctmgrEntity::kCluster:
      return {valuesRow({{"Cluster", config.cluster_name},
                         {"ControlHost", config.controller.host},
                         {"ControlPort", std::to_string(config.controller.port)},
                         {"Share", "1"},
                         {"QOS", "normal"}})};
    case SacctmgrEntity::kQos: {
      // cluster.conf's table, normal first; a mode not set is the cluster's (PreemptMode);
      // times as [D-]HH:MM:SS.
      std::vector<Row> rows;
      for (const config::QosConfig& q : config.qos) {
        rows.push_back(valuesRow(
            {{"Name", q.name},
             {"Descr", q.description.empty() ? q.name : q.description},
             {"Priority", std::to_string(q.priority)},
             {"GraceTime", formatDuration(q.grace_time_s)},
             {"Preempt", joinCommas(q.preempt)},
             {"PreemptMode",
              q.preempt_mode ? toLowerAscii(config::preemptModeName(*q.preempt_mode)) : "cluster"},
             {"UsageFactor", "1.000000"},
             {"Flags", q.deny_on_limit ? "DenyOnLimit" : ""},
             {"MaxWall", q.max_wall_min ? formatDuration(*q.max_wall_min * 60) : ""},
             {"MaxJobsPU", q.max_jobs_per_user ? std::to_string(*q.max_jobs_per_user) : ""},
             {"MaxSubmitPU",
              q.max_submit_jobs_per_user ? std::to_string(*q.max_submit_jobs_per_user) : ""},
             {"MaxTRESPU", tresLimits(q.max_tres_per_user)},
             {"GrpTRES", tresLimits(q.grp_tres)},
             {"GrpJobs", q.grp_jobs ? std::to_string(*q.grp_jobs) : ""},
             {"GrpSubmit", q.grp_submit_jobs ? std::to_string(*q.grp_submit_jobs) : ""},
             {"MaxTRES", tresLimits(q.max_tres_per_job)},
             {"MaxTRESPA", tresLimits(q.max_tres_per_account)},
             {"MaxJobsPA", q.max_jobs_per_account ? std::to_string(*q.max_jobs_per_account) : ""},
             {"MaxSubmitPA", q.max_submit_jobs_per_account
                                 ? std::to_string(*q.max_submit_jobs_per_account)
                                 : ""},
             {"ID", std::to_string(q.id)}}));
      }
      return rows;
    }
    case SacctmgrEntity::kTres: {
      // What Drover's accounting records (ReqTRES/AllocTRES), with Slurm's ids.
      std::vector<Row> rows;
      for (auto [type, name, id] : {std::tuple{"cpu", "", "1"}, {"mem", "", "2"},
                                    {"node", "", "4"}, {"billing", "", "5"},
                                    {"gres", "gpu", "1001"}}) {
        rows.push_back(valuesRow({{"Type", type}, {"Name", name}, {"ID", id}}));
      }
      return rows;
    }
    case SacctmgrEntity::kEvent: return {};   // from the controller: sacctmgr_events.h
  }
  return {};
}

bool passes(const Row& row, const std::map<std::string, std::vector<std::string>>& filters) {
  for (const auto& [field, wanted] : filters) {
    const auto it = row.values.find(field);
    const std::string& have = it == row.values.end() ? std::string() : it->second;
    if (std::find(wanted.begin(), wanted.end(), have) == wanted.end()) return false;
  }
  return true;
}

// The field that names one entity's record: accounts and users list once each without
// withassoc.
std::string_view recordKey(SacctmgrEntity e) {
  if (e == SacctmgrEntity::kAccount) return "Account";
  if (e == SacctmgrEntity::kUser) return "User";
  return "";
}

}  // namespace

Result<std::string> renderSacctmgrList(const SacctmgrList& list, const config::ClusterConfig& config,
                                       const TableStyle& style) {
  const EntityFields entity = fieldsOf(list.entity);
  std::vector<const FieldDef*> fields;
  std::vector<int> widths;
  if (list.format.empty()) {
    const std::size_t count = list.with_assoc ? entity.with_assoc : entity.plain;
    for (std::size_t i = 0; i < count; ++i) fields.push_back(&entity.fields[i]);
    widths.assign(count, 0);
  } else {
    for (const FieldWidthChoice& choice : list.format) {
      const FieldDef* f = findField(entity.fields, choice.name);
      if (f == nullptr) return makeError("Unknown field '" + choice.name + "'");
      fields.push_back(f);
      widths.push_back(choice.width);
    }
  }
  std::vector<TableColumn> columns;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const bool tree_account = list.tree && fields[i]->header == "Account";
    // In a tree the account column is wider and left-justified, to show the indentation.
    columns.push_back(chosenColumn(std::string(fields[i]->header), tree_account ? 20 : fields[i]->width,
                                   tree_account, widths[i]));
  }

  const std::string_view key = list.with_assoc ? "" : recordKey(list.entity);
  std::set<std::string> listed;
  std::vector<TableRow> rows;
  for (const Row& r : rowsOf(list.entity, config)) {
    if (!passes(r, list.filters)) continue;
    if (!key.empty() && !listed.insert(r.values.find(key)->second).second) continue;
    TableRow& out = rows.emplace_back();
    for (const FieldDef* f : fields) {
      const auto it = r.values.find(f->header);
      std::string v = it == r.values.end() ? "" : it->second;
      if (list.tree && f->header == "Account") v = std::string(static_cast<std::size_t>(r.depth), ' ') + v;
      out.push_back(std::move(v));
    }
  }
  return renderTable(columns, rows, style);
}

}  // namespace drover::cli
