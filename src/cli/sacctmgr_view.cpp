#include "cli/sacctmgr_view.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>

#include "common/ascii_case.h"
#include "common/comma_list.h"

namespace drover::cli {

namespace {

// The account and user associations as sacctmgr prints them; limits Drover does not have stay
// empty, as Slurm's unset ones.
struct Row {
  std::string account;
  std::string user;            // "" for the account's own association
  std::string parent;          // ParentName: only on an account's own association
  std::uint32_t shares = 1;
  std::int64_t priority = -1;  // -1: not set at this level (printed empty)
};

struct Field {
  const char* name;
  const char* header;
  int width;
};

// Every field the reports know, in the order a name's beginning is matched; headers and widths
// as Slurm 22.05's sacctmgr prints them.
constexpr Field kFields[] = {
    {"Account", "Account", 10},         {"Admin", "Admin", 9},
    {"Cluster", "Cluster", 10},         {"DefaultAccount", "Def Acct", 10},
    {"DefaultQOS", "Def QOS", 9},       {"Descr", "Descr", 20},
    {"GrpCPUMins", "GrpCPUMins", 11},   {"GrpCPUs", "GrpCPUs", 8},
    {"GrpJobs", "GrpJobs", 7},          {"GrpMem", "GrpMem", 7},
    {"GrpNodes", "GrpNodes", 8},        {"GrpSubmit", "GrpSubmit", 9},
    {"GrpTRES", "GrpTRES", 13},         {"GrpTRESMins", "GrpTRESMins", 13},
    {"GrpTRESRunMins", "GrpTRESRunMin", 13}, {"GrpWall", "GrpWall", 11},
    {"MaxCPUMins", "MaxCPUMins", 11},   {"MaxCPUs", "MaxCPUs", 8},
    {"MaxJobs", "MaxJobs", 7},          {"MaxNodes", "MaxNodes", 8},
    {"MaxSubmit", "MaxSubmit", 9},      {"MaxTRES", "MaxTRES", 13},
    {"MaxTRESMins", "MaxTRESMins", 13}, {"MaxTRESPerNode", "MaxTRESPerNode", 14},
    {"MaxWall", "MaxWall", 11},         {"Org", "Org", 20},
    {"ParentName", "ParentName", 10},   {"Partition", "Partition", 10},
    {"Priority", "Priority", 10},       {"QOS", "QOS", 20},
    {"Share", "Share", 9},              {"User", "User", 10},
};

const Field* findField(std::string_view name) {
  for (const auto& f : kFields) {
    if (equalsIgnoreCase(f.name, name)) return &f;
  }
  const Field* found = nullptr;
  for (const auto& f : kFields) {
    if (!startsWithIgnoreCase(f.name, name)) continue;
    if (found) return nullptr;  // ambiguous
    found = &f;
  }
  return found;
}

std::vector<SacctmgrColumn> columnsOf(std::initializer_list<const char*> names) {
  std::vector<SacctmgrColumn> out;
  for (const char* n : names) out.push_back({n, findField(n)->width, false});
  return out;
}

std::vector<SacctmgrColumn> defaultColumns(const SacctmgrQuery& q) {
  switch (q.entity) {
    case SacctmgrEntity::User:
      if (!q.with_assoc) return columnsOf({"User", "DefaultAccount", "Admin"});
      return columnsOf({"User", "DefaultAccount", "Admin", "Cluster", "Account", "Partition",
                        "Share", "Priority", "MaxJobs", "MaxNodes", "MaxCPUs", "MaxSubmit",
                        "MaxWall", "MaxCPUMins", "QOS", "DefaultQOS"});
    case SacctmgrEntity::Account:
      if (!q.with_assoc) return columnsOf({"Account", "Descr", "Org"});
      return columnsOf({"Account", "Descr", "Org", "Cluster", "ParentName", "User", "Share",
                        "Priority", "GrpJobs", "GrpNodes", "GrpCPUs", "GrpMem", "GrpSubmit",
                        "GrpWall", "GrpCPUMins", "MaxJobs", "MaxNodes", "MaxCPUs", "MaxSubmit",
                        "MaxWall", "MaxCPUMins", "QOS", "DefaultQOS"});
    case SacctmgrEntity::Association:
      break;
  }
  return columnsOf({"Cluster", "Account", "User", "Partition", "Share", "Priority", "GrpJobs",
                    "GrpTRES", "GrpSubmit", "GrpWall", "GrpTRESMins", "MaxJobs", "MaxTRES",
                    "MaxTRESPerNode", "MaxSubmit", "MaxWall", "MaxTRESMins", "QOS", "DefaultQOS",
                    "GrpTRESRunMins"});
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The tree below the implicit root (root's own user first, as Slurm's default association),
// depth first: an account, its users by name, then its child accounts by name.
class Tree {
 public:
  explicit Tree(const config::ClusterConfig& c) : config_(c) {}

  std::vector<Row> associations() const {
    std::vector<Row> rows;
    rows.push_back(Row{"root", "", "", 1, -1});
    rows.push_back(Row{"root", "root", "", 1, -1});
    appendChildren("", rows);
    return rows;
  }

  // The first account of the tree that lists the user: the controller's default account
  // (src/jobs/submit.cpp), so what sacctmgr prints is what a job without -A is charged to.
  std::string defaultAccount(const std::string& user) const {
    if (user == "root") return "root";
    for (const auto& a : config_.accounts) {
      if (contains(a.users, user)) return a.name;
    }
    return "";
  }

  std::string admin(const std::string& user) const {
    if (user == "root") return "Administrator";
    return contains(config_.operators, user) ? "Operator" : "None";
  }

  const config::AccountConfig* account(std::string_view name) const {
    for (const auto& a : config_.accounts) {
      if (a.name == name) return &a;
    }
    return nullptr;
  }

  // Slurm's defaults for an account added without Description/Organization: the account's
  // name, and its parent's name (its own below root).
  std::string descr(const std::string& name) const {
    return name == "root" ? "default root account" : name;
  }
  std::string org(const std::string& name) const {
    if (name == "root") return "root";
    const auto* a = account(name);
    return a && !a->parent.empty() && a->parent != "root" ? a->parent : name;
  }

 private:
  void appendChildren(const std::string& parent, std::vector<Row>& rows) const {
    std::vector<const config::AccountConfig*> kids;
    for (const auto& a : config_.accounts) {
      const bool top = a.parent.empty() || a.parent == "root";
      if (parent.empty() ? top : a.parent == parent) kids.push_back(&a);
    }
    std::sort(kids.begin(), kids.end(), [](auto* x, auto* y) { return x->name < y->name; });
    for (const auto* a : kids) {
      rows.push_back(Row{a->name, "", a->parent.empty() ? "root" : a->parent, a->shares, a->priority});
      std::vector<std::string> users = a->users;
      std::sort(users.begin(), users.end());
      users.erase(std::unique(users.begin(), users.end()), users.end());
      for (const auto& u : users) rows.push_back(Row{a->name, u, "", 1, -1});
      appendChildren(a->name, rows);
    }
  }

  const config::ClusterConfig& config_;
};

std::string value(const Tree& tree, const config::ClusterConfig& c, const Row& row,
                  std::string_view field) {
  if (field == "Account") return row.account;
  if (field == "User") return row.user;
  if (field == "Cluster") return c.cluster_name;
  if (field == "DefaultAccount") return row.user.empty() ? "" : tree.defaultAccount(row.user);
  if (field == "Admin") return row.user.empty() ? "" : tree.admin(row.user);
  if (field == "Descr") return row.account.empty() ? "" : tree.descr(row.account);
  if (field == "Org") return row.account.empty() ? "" : tree.org(row.account);
  if (field == "ParentName") return row.parent;
  if (field == "Share") return row.account.empty() ? "" : std::to_string(row.shares);
  if (field == "Priority") return row.priority < 0 ? "" : std::to_string(row.priority);
  // Every association has Slurm's default QOS; nothing else of a QOS exists in Drover.
  if (field == "QOS") return row.account.empty() ? "" : "normal";
  return "";  // limits: Drover's associations have none
}

bool wanted(const std::vector<std::string>& filter, const std::string& v) {
  return filter.empty() || contains(filter, v);
}

std::vector<Row> selectRows(const config::ClusterConfig& c, const Tree& tree,
                            const SacctmgrQuery& q) {
  std::vector<Row> out;
  if (!q.clusters.empty() && !contains(q.clusters, c.cluster_name)) return out;
  const std::vector<Row> assocs = tree.associations();
  switch (q.entity) {
    case SacctmgrEntity::Association:
      for (const auto& r : assocs) {
        if (!q.users.empty() && !contains(q.users, r.user)) continue;
        if (wanted(q.accounts, r.account)) out.push_back(r);
      }
      break;
    case SacctmgrEntity::User: {
      std::set<std::string> users;
      for (const auto& r : assocs) {
        if (!r.user.empty() && wanted(q.users, r.user)) users.insert(r.user);
      }
      for (const auto& u : users) {
        if (!q.with_assoc) {
          if (q.accounts.empty()) out.push_back(Row{"", u, "", 1, -1});
          continue;
        }
        for (const auto& r : assocs) {
          if (r.user == u && wanted(q.accounts, r.account)) out.push_back(r);
        }
      }
      break;
    }
    case SacctmgrEntity::Account: {
      std::set<std::string> accounts;
      for (const auto& r : assocs) {
        if (wanted(q.accounts, r.account)) accounts.insert(r.account);
      }
      for (const auto& a : accounts) {
        for (const auto& r : assocs) {
          if (r.account != a) continue;
          if (!q.with_assoc) {
            if (q.users.empty() && r.user.empty()) out.push_back(r);
          } else if (wanted(q.users, r.user) || (r.user.empty() && q.users.empty())) {
            out.push_back(r);
          }
        }
      }
      break;
    }
  }
  return out;
}

// A value longer than its column is cut to width-1 with '+'; a header is only cut.
std::string cell(std::string text, const SacctmgrColumn& col, bool header) {
  const auto w = static_cast<std::size_t>(col.width);
  if (text.size() > w) text = header ? text.substr(0, w) : text.substr(0, w == 0 ? 0 : w - 1) + "+";
  const std::string pad(w - text.size(), ' ');
  return col.left ? text + pad : pad + text;
}

std::string line(const std::vector<std::string>& values, const std::vector<SacctmgrColumn>& cols,
                 const SacctmgrOutput& o, bool header) {
  std::string out;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (o.parsable || o.parsable2) {
      if (o.parsable2 && i > 0) out += '|';
      out += values[i];
      if (o.parsable) out += '|';
    } else {
      out += cell(values[i], cols[i], header) + ' ';
    }
  }
  return out + "\n";
}

}  // namespace

Result<std::vector<SacctmgrColumn>> parseSacctmgrFormat(std::string_view spec) {
  std::vector<SacctmgrColumn> out;
  for (const auto& item : splitCommas(spec)) {
    std::string_view name = item;
    std::string_view width;
    if (auto pct = name.find('%'); pct != std::string_view::npos) {
      width = name.substr(pct + 1);
      name = name.substr(0, pct);
    }
    const Field* f = name.empty() ? nullptr : findField(name);
    if (!f) return makeError("Unknown field '" + std::string(name) + "'");
    SacctmgrColumn col{f->name, f->width, false};
    if (!width.empty()) {
      if (width.front() == '-') {
        col.left = true;
        width.remove_prefix(1);
      }
      int w = 0;
      auto [end, ec] = std::from_chars(width.data(), width.data() + width.size(), w);
      if (ec != std::errc() || end != width.data() + width.size()) {
        return makeError("Invalid field width in '" + item + "'");
      }
      if (w > 0) col.width = w;
    }
    out.push_back(col);
  }
  return out;
}

std::string renderSacctmgr(const config::ClusterConfig& config, const SacctmgrQuery& query,
                           const SacctmgrOutput& output) {
  const Tree tree(config);
  const auto cols = query.columns.empty() ? defaultColumns(query) : query.columns;
  std::string out;
  if (!output.no_header) {
    std::vector<std::string> headers, dashes;
    for (const auto& c : cols) {
      headers.push_back(findField(c.field)->header);
      dashes.push_back(std::string(static_cast<std::size_t>(c.width), '-'));
    }
    out += line(headers, cols, output, true);
    if (!output.parsable && !output.parsable2) out += line(dashes, cols, output, true);
  }
  for (const auto& row : selectRows(config, tree, query)) {
    std::vector<std::string> values;
    for (const auto& c : cols) values.push_back(value(tree, config, row, c.field));
    out += line(values, cols, output, false);
  }
  return out;
}

}  // namespace drover::cli
