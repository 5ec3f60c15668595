// qos: the QOS table Slurm keeps in its accounting database (sacctmgr add qos), here a list in
// cluster.conf. `normal` always exists and comes first, as Slurm's default QOS (id 1).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "config/association_tree.h"
#include "config/sections.h"

namespace drover::config::detail {

bool readQosName(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out) {
  if (!readName(ctx, node, path, out)) return false;
  out = toLowerAscii(out);
  return true;
}

bool readQosList(Context& ctx, const YAML::Node& node, const std::string& path,
                 std::vector<std::string>& out) {
  if (!readNameList(ctx, node, path, out)) return false;
  for (std::string& name : out) name = toLowerAscii(name);
  return true;
}

namespace {

// MaxTRESPU, GrpTRES or MaxTRES as Slurm writes them: "cpu=64,gres/gpu=16,node=4", of the TRES
// Drover's QOS limits count (gres/gpu may be written gpu).
bool readTresLimits(Context& ctx, const YAML::Node& node, const std::string& path,
                    std::map<std::string, std::uint64_t>& out) {
  std::string text;
  if (!readString(ctx, node, path, text)) return false;
  for (const std::string& item : splitCommas(text)) {
    const std::size_t eq = item.find('=');
    std::string name = toLowerAscii(item.substr(0, eq));
    if (name == "gpu") name = "gres/gpu";
    std::uint64_t count = 0;
    const char* first = item.data() + (eq == std::string::npos ? item.size() : eq + 1);
    const char* last = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(first, last, count);
    if (eq == std::string::npos || first == last || ec != std::errc() || ptr != last ||
        std::find(kQosLimitTres.begin(), kQosLimitTres.end(), name) == kQosLimitTres.end()) {
      return ctx.fail(node, fmt::format("{}: '{}' is not a TRES limit; give NAME=COUNT items "
                                        "separated by commas, NAME cpu, node or gres/gpu",
                                        path, item));
    }
    out[name] = count;
  }
  return true;
}

std::vector<std::string> qosNames(const std::vector<QosConfig>& table) {
  std::vector<std::string> names;
  for (const QosConfig& q : table) names.push_back(q.name);
  return names;
}

}  // namespace

bool parseQos(Context& ctx, const YAML::Node& node, std::vector<QosConfig>& out) {
  out = defaultQosTable();
  if (!node.IsSequence()) {
    return ctx.fail(node, fmt::format("qos: expected a list of QOSes (each with name, priority, "
                                      "description, preempt, preempt_mode, grace_time and "
                                      "limits), got {}",
                                      describe(node)));
  }
  std::unordered_map<std::string, std::size_t> listed_at;  // name -> its place in the file
  // Per QOS of `out`: where its preempt list is, and its place in the file (for messages).
  std::vector<YAML::Mark> preempt_marks(1, node.Mark());
  std::vector<std::size_t> file_index(1, 0);
  for (std::size_t i = 0; i < node.size(); ++i) {
    MapReader m;
    if (!m.open(ctx, node[i], fmt::format("qos[{}]", i),
                {"name", "priority", "description", "preempt", "preempt_mode", "grace_time",
                 "max_jobs_per_user", "max_submit_jobs_per_user", "max_tres_per_user",
                 "max_wall", "deny_on_limit", "grp_jobs", "grp_submit_jobs", "grp_tres",
                 "max_tres_per_job", "max_jobs_per_account", "max_submit_jobs_per_account",
                 "max_tres_per_account"})) {
      return false;
    }
    QosConfig q;
    const YAML::Node* name_node = m.require(ctx, "name");
    if (!name_node || !readQosName(ctx, *name_node, m.path("name"), q.name)) return false;
    if (auto* v = m.find("priority");
        v && !readInteger(ctx, *v, m.path("priority"), 0, 0xFFFFFFFFLL, q.priority)) {
      return false;
    }
    if (auto* v = m.find("description");
        v && !readString(ctx, *v, m.path("description"), q.description)) {
      return false;
    }
    if (auto* v = m.find("preempt")) {
      if (!readQosList(ctx, *v, m.path("preempt"), q.preempt)) return false;
      preempt_marks.push_back(v->Mark());
    } else {
      preempt_marks.push_back(m.node().Mark());
    }
    if (auto* v = m.find("preempt_mode")) {
      PreemptMode mode{};
      if (!readPreemptMode(ctx, *v, m.path("preempt_mode"), mode)) return false;
      q.preempt_mode = mode;
    }
    if (auto* v = m.find("grace_time");
        v && !readInteger(ctx, *v, m.path("grace_time"), 0, kMaxGraceTimeS, q.grace_time_s)) {
      return false;
    }
    if (auto [it, fresh] = listed_at.emplace(q.name, i); !fresh) {
      return ctx.fail(*name_node, fmt::format("{}: QOS '{}' is already defined as qos[{}]",
                                              m.path("name"), q.name, it->second));
    }
    for (auto [key, limit] : {std::pair{"max_jobs_per_user", &q.max_jobs_per_user},
                              std::pair{"max_submit_jobs_per_user", &q.max_submit_jobs_per_user},
                              std::pair{"grp_jobs", &q.grp_jobs},
                              std::pair{"grp_submit_jobs", &q.grp_submit_jobs},
                              std::pair{"max_jobs_per_account", &q.max_jobs_per_account},
                              std::pair{"max_submit_jobs_per_account",
                                        &q.max_submit_jobs_per_account}}) {
      std::uint32_t value = 0;
      if (auto* v = m.find(key)) {
        if (!readInteger(ctx, *v, m.path(key), 0, 0xFFFFFFFELL, value)) return false;
        *limit = value;
      }
    }
    for (auto [key, limits] : {std::pair{"max_tres_per_user", &q.max_tres_per_user},
                               std::pair{"grp_tres", &q.grp_tres},
                               std::pair{"max_tres_per_job", &q.max_tres_per_job},
                               std::pair{"max_tres_per_account", &q.max_tres_per_account}}) {
      if (auto* v = m.find(key); v && !readTresLimits(ctx, *v, m.path(key), *limits)) return false;
    }
    if (auto* v = m.find("max_wall")) {
      std::int64_t minutes = 0;
      if (!readTimeMinutes(ctx, *v, m.path("max_wall"), minutes)) return false;
      if (minutes != kUnlimited) q.max_wall_min = minutes;
    }
    if (auto* v = m.find("deny_on_limit");
        v && !readBool(ctx, *v, m.path("deny_on_limit"), q.deny_on_limit)) {
      return false;
    }
    // normal may be listed to give it settings; it keeps its place and id.
    if (q.name == "normal") {
      out.front() = std::move(q);
      preempt_marks.front() = preempt_marks.back();
      preempt_marks.pop_back();
      file_index.front() = i;
      continue;
    }
    file_index.push_back(i);
    out.push_back(std::move(q));
  }
  auto defined = [&](const std::string& name) {
    return name == "normal" || listed_at.count(name) > 0;
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].id = static_cast<std::uint32_t>(i + 1);
    for (const std::string& target : out[i].preempt) {
      if (!defined(target)) {
        return ctx.fail(preempt_marks[i],
                        fmt::format("qos[{}].preempt: unknown QOS '{}'; defined: {}",
                                    file_index[i], target, joinNames(qosNames(out))));
      }
      if (target == out[i].name) {
        return ctx.fail(preempt_marks[i],
                        fmt::format("qos[{}].preempt: QOS '{}' cannot preempt itself",
                                    file_index[i], out[i].name));
      }
    }
  }
  return true;
}

bool checkAccountQos(Context& ctx, const YAML::Node& accounts, const std::vector<QosConfig>& table,
                     std::vector<AccountConfig>& out) {
  auto known = [&](const std::string& name) {
    return std::any_of(table.begin(), table.end(), [&](const QosConfig& q) { return q.name == name; });
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    AccountConfig& a = out[i];
    const YAML::Node entry = accounts[i];
    for (const std::string& name : a.qos) {
      if (!known(name)) {
        return ctx.fail(entry["qos"], fmt::format("accounts[{}].qos: unknown QOS '{}'; defined: {}",
                                                  i, name, joinNames(qosNames(table))));
      }
    }
    if (a.default_qos.empty()) continue;
    if (!known(a.default_qos)) {
      return ctx.fail(entry["default_qos"],
                      fmt::format("accounts[{}].default_qos: unknown QOS '{}'; defined: {}", i,
                                  a.default_qos, joinNames(qosNames(table))));
    }
  }
  // A default must be one the account may use (its own list, else its nearest ancestor's).
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].default_qos.empty()) continue;
    const std::vector<std::string> allowed = allowedQosOf(out, out[i].name);
    if (!allowed.empty() &&
        std::find(allowed.begin(), allowed.end(), out[i].default_qos) == allowed.end()) {
      return ctx.fail(accounts[i]["default_qos"],
                      fmt::format("accounts[{}].default_qos: '{}' is not among the QOSes the "
                                  "account may use ({})",
                                  i, out[i].default_qos, joinNames(allowed)));
    }
  }
  return true;
}

}  // namespace drover::config::detail
