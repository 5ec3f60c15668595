#include "cli/sreport_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "cli/cli_common.h"
#include "cli/field_table.h"
#include "common/ascii_case.h"
#include "drover/time_spec.h"
#include "drover/slurm_time_format.h"

namespace drover::cli::sreport {

namespace {

const std::string kDashes(80, '-');

const char* unitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSeconds: return "Seconds";
    case TimeUnit::kHours: return "Hours";
    case TimeUnit::kMinutes: break;
  }
  return "Minutes";
}

std::string percentText(double part, double total) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%%", total > 0 ? part * 100.0 / total : 0.0);
  return buf;
}

// "CPU Minutes", "TRES Hours/Percentage of Total", "Percentage of Total".
std::string unitsText(const TimeFormat& t, const char* prefix) {
  if (!t.value) return "Percentage of Total";
  return std::string(prefix) + unitName(t.unit) + (t.percent ? "/Percentage of Total" : "");
}

std::string header(const std::string& title, const Window& w, bool with_secs,
                   const std::vector<std::string>& lines) {
  std::string out = kDashes + "\n" + title + " " + formatSlurmTime(w.start) + " - " +
                    formatSlurmTime(w.end - 1);
  if (with_secs) out += " (" + std::to_string(w.seconds()) + " secs)";
  out += "\n";
  for (const auto& l : lines) out += l + "\n";
  return out + kDashes + "\n";
}

// A report's field: its format name, header, width and side.
struct Field {
  const char* name;
  const char* header;
  int width;
  bool left = false;
};

// The field a format item names: an exact name first, then the first it abbreviates.
const Field* findField(const std::vector<Field>& fields, const std::string& item) {
  const std::string n = toLowerAscii(item);
  if (n.empty()) return nullptr;
  for (const auto& f : fields) {
    if (toLowerAscii(f.name) == n) return &f;
  }
  for (const auto& f : fields) {
    if (abbrev(n, f.name)) return &f;
  }
  return nullptr;
}

struct Layout {
  std::vector<const Field*> fields;
  std::vector<TableColumn> columns;
};

// The columns a report prints: format= if given (unknown names reported on `err`), else the
// defaults. The `usage_fields` are 17 wide in the value(percent) forms (MinPer, ...).
Layout layout(const std::vector<Field>& fields, const std::vector<std::string>& defaults,
              const std::vector<FieldWidthChoice>& format, const std::set<std::string>& usage_fields,
              const TimeFormat& time, std::string& err, bool& bad) {
  Layout l;
  std::vector<FieldWidthChoice> items = format;
  if (items.empty()) {
    for (const auto& d : defaults) items.push_back({d, 0});
  }
  for (const auto& item : items) {
    const Field* f = findField(fields, item.name);
    if (!f) {
      err += " Unknown field '" + toLowerAscii(item.name) + "'\n";
      bad = true;
      continue;
    }
    int width = f->width;
    const bool usage = usage_fields.count(f->name) > 0;
    if (usage && time.value && time.percent) width = 17;
    l.fields.push_back(f);
    // Slurm keeps its usage columns' width whatever format= asks (Used%12 prints 8 wide).
    l.columns.push_back(chosenColumn(f->header, width, f->left, usage ? 0 : item.width));
  }
  return l;
}

bool clusterSelected(const ReportRequest& r, const std::string& cluster) {
  if (r.clusters.empty()) return true;
  for (const auto& c : r.clusters) {
    if (toLowerAscii(c) == toLowerAscii(cluster)) return true;
  }
  return false;
}

bool listed(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

double windowTotal(const ReportData& d, const std::string& tres) {
  auto it = d.capacity.find(tres);
  return it == d.capacity.end() ? 0 : it->second * static_cast<double>(d.window.seconds());
}

double usageOf(const TresSeconds& t, const std::string& tres) {
  auto it = t.find(tres);
  return it == t.end() ? 0 : it->second;
}

// --- AccountUtilizationByUser, UserUtilizationByAccount, TopUsage ---------------------------

struct AssocRow {
  std::string account_shown, login, accounts;
  TresSeconds usage;
};

const std::vector<Field>& assocFields() {
  static const std::vector<Field> kFields = {
      {"Accounts", "Account", 15}, {"Cluster", "Cluster", 9},     {"Count", "TRES Count", 10},
      {"Energy", "Energy", 8},     {"Login", "Login", 9},         {"Proper", "Proper Name", 15},
      {"TresCount", "TRES Count", 10}, {"TresName", "TRES Name", 14}, {"Used", "Used", 8},
  };
  return kFields;
}

std::vector<AssocRow> accountTreeRows(const ReportRequest& r, const ReportData& d) {
  const auto& by_assoc = d.usage.by_assoc;
  std::vector<AssocRow> rows;
  if (!r.users.empty()) {   // Slurm then lists only the users' associations
    for (const auto& [key, usage] : by_assoc) {
      if (listed(r.users, key.second) && listed(r.accounts, key.first))
        rows.push_back({key.first, key.second, key.first, usage});
    }
    return rows;
  }
  const auto by_account = usageByAccount(by_assoc, d.parents);
  std::map<std::string, std::vector<std::string>> children, users;
  for (const auto& [account, usage] : by_account) {
    if (account == "root") continue;
    auto up = ancestors(d.parents, account);
    children[up.empty() ? "root" : up.front()].push_back(account);
  }
  for (const auto& [key, usage] : by_assoc) users[key.first].push_back(key.second);
  const auto rank = [&](const std::string& a) {
    auto it = std::find(d.account_order.begin(), d.account_order.end(), a);
    return static_cast<std::size_t>(it - d.account_order.begin());
  };
  for (auto& [parent, list] : children) {
    std::stable_sort(list.begin(), list.end(), [&](const std::string& x, const std::string& y) {
      return rank(x) < rank(y);
    });
  }
  std::set<std::string> visited;
  std::function<void(const std::string&, int)> walk = [&](const std::string& account, int depth) {
    if (!visited.insert(account).second) return;
    auto it = by_account.find(account);
    if (it == by_account.end()) return;
    rows.push_back({r.tree ? std::string(static_cast<std::size_t>(depth), ' ') + account : account, "",
                    account, it->second});
    for (const auto& u : users[account]) {
      rows.push_back({r.tree ? std::string(static_cast<std::size_t>(depth + 1), ' ') + account : account,
                      u, account, by_assoc.at({account, u})});
    }
    for (const auto& c : children[account]) walk(c, depth + 1);
  };
  if (r.accounts.empty()) walk("root", 0);
  for (const auto& a : r.accounts) walk(a, 0);
  return rows;
}

std::vector<AssocRow> userRows(const ReportRequest& r, const ReportData& d, const std::string& sort_tres,
                               bool group) {
  const auto& by_assoc = d.usage.by_assoc;
  std::map<std::string, AssocRow> grouped;
  std::vector<AssocRow> rows;
  for (const auto& [key, usage] : by_assoc) {
    if (!listed(r.users, key.second) || !listed(r.accounts, key.first)) continue;
    if (!group) {
      rows.push_back({key.first, key.second, key.first, usage});
      continue;
    }
    AssocRow& g = grouped[key.second];
    g.login = key.second;
    g.account_shown += (g.account_shown.empty() ? "" : ",") + key.first;
    for (const auto& [n, v] : usage) g.usage[n] += v;
  }
  for (auto& [login, row] : grouped) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(), [&](const AssocRow& a, const AssocRow& b) {
    return usageOf(a.usage, sort_tres) > usageOf(b.usage, sort_tres);
  });
  return rows;
}

Rendered renderAssocReport(const ReportRequest& r, const Options& o, const ReportData& d) {
  Rendered out;
  const bool aubu = r.kind == ReportKind::kAccountUtilizationByUser;
  const bool top = r.kind == ReportKind::kTopUsage;
  std::string title = aubu ? "Cluster/Account/User Utilization"
                     : top ? "Top " + std::to_string(r.top_count) + " Users"
                           : "Cluster/User/Account Utilization";
  if (!o.style.no_header)
    out.out += header(title, d.window, true, {"Usage reported in " + unitsText(o.time, o.tres_given ? "TRES " : "CPU ")});

  std::vector<Field> fields = assocFields();
  if (aubu && r.tree) fields[0] = {"Accounts", "Account", 20, true};
  std::vector<std::string> defaults =
      aubu ? std::vector<std::string>{"Cluster", "Accounts", "Login", "Proper"}
           : std::vector<std::string>{"Cluster", "Login", "Proper", "Accounts"};
  if (o.tres_given) {
    defaults.insert(defaults.end(), {"TresName", "Used"});
  } else {
    defaults.insert(defaults.end(), {"Used", "Energy"});
  }
  bool bad = false;
  const Layout l = layout(fields, defaults, r.format, {"Used", "Energy"}, o.time, out.err, bad);

  std::vector<AssocRow> rows;
  if (clusterSelected(r, d.cluster)) {
    rows = aubu ? accountTreeRows(r, d) : userRows(r, d, o.tres.front(), top && r.group);
    if (top && rows.size() > static_cast<std::size_t>(std::max(0, r.top_count)))
      rows.resize(static_cast<std::size_t>(std::max(0, r.top_count)));
  }
  std::vector<TableRow> table;
  for (const auto& row : rows) {
    for (const auto& tres : o.tres) {
      TableRow t;
      for (const Field* f : l.fields) {
        const std::string n = f->name;
        if (n == "Accounts") t.push_back(row.account_shown);
        else if (n == "Cluster") t.push_back(d.cluster);
        else if (n == "Count" || n == "TresCount") t.push_back("0");
        else if (n == "Energy") t.push_back(formatUsage(0, windowTotal(d, "energy"), o.time));
        else if (n == "Login") t.push_back(row.login);
        else if (n == "Proper") t.push_back(row.login.empty() || !d.proper_name ? "" : d.proper_name(row.login));
        else if (n == "TresName") t.push_back(tres);
        else t.push_back(formatUsage(usageOf(row.usage, tres), windowTotal(d, tres), o.time));
      }
      table.push_back(std::move(t));
    }
  }
  out.out += renderTable(l.columns, table, o.style);
  out.exit_code = bad ? 1 : 0;
  return out;
}

// --- cluster Utilization ---------------------------------------------------------------------

Rendered renderUtilization(const ReportRequest& r, const Options& o, const ReportData& d) {
  Rendered out;
  if (!o.style.no_header)
    out.out += header("Cluster Utilization", d.window, false,
                      {"Usage reported in " + unitsText(o.time, o.tres_given ? "TRES " : "CPU ")});
  static const std::vector<Field> kFields = {
      {"Allocated", "Allocated", 8}, {"Cluster", "Cluster", 9},      {"Down", "Down", 8},
      {"Idle", "Idle", 8},           {"OverCommitted", "Over Committed", 8},
      {"PlannedDown", "PLND Down", 8}, {"Planned", "Planned", 8},     {"Reported", "Reported", 8},
      {"TresCount", "TRES Count", 10}, {"TresName", "TRES Name", 14},
  };
  std::vector<std::string> defaults{"Cluster"};
  if (o.tres_given) defaults.push_back("TresName");
  defaults.insert(defaults.end(), {"Allocated", "Down", "PlannedDown", "Idle", "Planned", "Reported"});
  bool bad = false;
  const Layout l = layout(kFields, defaults, r.format,
                          {"Allocated", "Down", "Idle", "OverCommitted", "PlannedDown", "Planned", "Reported"},
                          o.time, out.err, bad);
  std::vector<TableRow> table;
  if (clusterSelected(r, d.cluster)) {
    for (const auto& tres : o.tres) {
      auto it = d.capacity.find(tres);
      const double count = it == d.capacity.end() ? 0 : it->second;
      const Utilization u =
          clusterUtilization(usageOf(d.usage.allocated, tres), usageOf(d.usage.waiting, tres), d.window, count,
                             usageOf(d.usage.down, tres));
      TableRow t;
      for (const Field* f : l.fields) {
        const std::string n = f->name;
        if (n == "Cluster") t.push_back(d.cluster);
        else if (n == "TresName") t.push_back(tres);
        else if (n == "TresCount") t.push_back(std::to_string(static_cast<long long>(count)));
        else if (n == "Allocated") t.push_back(formatUsage(u.allocated, u.reported, o.time));
        else if (n == "Down") t.push_back(formatUsage(u.down, u.reported, o.time));
        else if (n == "PlannedDown") t.push_back(formatUsage(u.planned_down, u.reported, o.time));
        else if (n == "Idle") t.push_back(formatUsage(u.idle, u.reported, o.time));
        else if (n == "Planned") t.push_back(formatUsage(u.planned, u.reported, o.time));
        else if (n == "OverCommitted") t.push_back(formatUsage(u.overcommitted, u.reported, o.time));
        else t.push_back(formatUsage(u.reported, count * static_cast<double>(d.window.seconds()), o.time));
      }
      table.push_back(std::move(t));
    }
  }
  out.out += renderTable(l.columns, table, o.style);
  out.exit_code = bad ? 1 : 0;
  return out;
}

// --- job SizesByAccount ----------------------------------------------------------------------

Rendered renderSizes(const ReportRequest& r, const Options& o, const ReportData& d) {
  Rendered out;
  if (o.tres.size() > 1) {
    out.err = " Job report only supports a single --tres type.\n Generate a separate report for each TRES type.\n";
    out.exit_code = 1;
    return out;
  }
  const std::string& tres = o.tres.front();
  if (!o.style.no_header) {
    std::vector<std::string> lines;
    if (tres != "cpu") lines.push_back("TRES type is " + tres);
    lines.push_back(r.print_job_count ? "Units are in number of jobs ran"
                                      : "Time reported in " + unitsText(o.time, ""));
    out.out += header("Job Sizes", d.window, true, lines);
  }
  // The controller summed the jobs of Users= only, and sized them by `tres` (r.size_tres).
  const SizeColumns cols = sizeColumns(r.grouping, r.individual, d.usage.sizes);
  const auto by_account = sizesByAccount(d.usage.sizes, cols, r.print_job_count);

  static const std::vector<Field> kFields = {{"Account", "Account", 9}, {"Cluster", "Cluster", 9}};
  bool bad = false;
  Layout l = layout(kFields, {"Cluster", "Account"}, r.format, {}, o.time, out.err, bad);
  const std::string unit = tres == "cpu" ? " CPUs" : " TRES";
  for (const auto& label : sizeLabels(cols)) l.columns.push_back({label + unit, 13, false});
  l.columns.push_back({"% of cluster", 12, false});

  // Rows: one for root (all), one per named account (its subtree), or each account (flatview).
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  auto sumUnder = [&](const std::string& top) {
    std::vector<double> sum(cols.lower.size(), 0.0);
    bool any = false;
    for (const auto& [account, values] : by_account) {
      auto up = ancestors(d.parents, account);
      if (account != top && std::find(up.begin(), up.end(), top) == up.end()) continue;
      any = true;
      for (std::size_t i = 0; i < values.size() && i < sum.size(); ++i) sum[i] += values[i];
    }
    if (any) rows.emplace_back(top, sum);
  };
  if (clusterSelected(r, d.cluster)) {
    if (r.flat_view) {
      for (const auto& [account, values] : by_account) {
        if (listed(r.accounts, account)) rows.emplace_back(account, values);
      }
    } else if (r.acct_as_parent) {
      // The accounts one level under the named ones (root by default).
      const std::vector<std::string> tops = r.accounts.empty() ? std::vector<std::string>{"root"} : r.accounts;
      std::set<std::string> below;
      for (const auto& [account, values] : by_account) {
        auto up = ancestors(d.parents, account);
        std::vector<std::string> chain{account};
        chain.insert(chain.end(), up.begin(), up.end());
        for (std::size_t i = 1; i < chain.size(); ++i) {
          if (std::find(tops.begin(), tops.end(), chain[i]) != tops.end()) below.insert(chain[i - 1]);
        }
      }
      for (const auto& a : below) sumUnder(a);
    } else if (!r.accounts.empty()) {
      for (const auto& a : r.accounts) sumUnder(a);
    } else {
      sumUnder("root");
    }
  }
  double total = 0;
  for (const auto& [account, values] : by_account) {
    for (double v : values) total += v;
  }
  std::vector<TableRow> table;
  for (const auto& [account, values] : rows) {
    TableRow t;
    for (const Field* f : l.fields) t.push_back(std::string(f->name) == "Account" ? account : d.cluster);
    double row_total = 0;
    for (double v : values) {
      row_total += v;
      t.push_back(r.print_job_count ? std::to_string(static_cast<long long>(v)) : formatUsage(v, total, o.time));
    }
    t.push_back(percentText(row_total, total));
    table.push_back(std::move(t));
  }
  out.out += renderTable(l.columns, table, o.style);
  out.exit_code = bad ? 1 : 0;
  return out;
}

}  // namespace

std::string formatUsage(double tres_seconds, double total, const TimeFormat& time) {
  double div = 60;
  if (time.unit == TimeUnit::kSeconds) div = 1;
  if (time.unit == TimeUnit::kHours) div = 3600;
  const std::string value = std::to_string(std::llround(tres_seconds / div));
  if (!time.percent) return value;
  const std::string pct = percentText(tres_seconds, total);
  return time.value ? value + "(" + pct + ")" : pct;
}

Rendered renderReport(const ReportRequest& request, const Options& options, const ReportData& data) {
  Rendered r;
  switch (request.kind) {
    case ReportKind::kUtilization: r = renderUtilization(request, options, data); break;
    case ReportKind::kSizesByAccount: r = renderSizes(request, options, data); break;
    default: r = renderAssocReport(request, options, data); break;
  }
  return r;
}

}  // namespace drover::cli::sreport
