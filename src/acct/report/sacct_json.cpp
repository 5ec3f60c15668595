// `sacct --json`: the shape of Slurm 22.05's openapi dbv0.0.38 job records (golden 118), filled
// from what Drover records; fields Drover has no notion of keep Slurm's empty values.
#include <cstring>

#include <nlohmann/json.hpp>

#include "acct/job_flags.h"
#include "acct/report/sacct_values.h"
#include "drover/hostlist.h"

namespace drover::acct::report {
namespace {

using Json = nlohmann::ordered_json;

// Slurm's TRES ids; gres start at 1001 on a fresh database.
int tresId(const std::string& type, const std::string& name) {
  static const std::pair<const char*, int> kIds[] = {
      {"cpu", 1}, {"mem", 2}, {"energy", 3}, {"node", 4},
      {"billing", 5}, {"fs", 6}, {"vmem", 7}, {"pages", 8}};
  for (auto [t, id] : kIds) {
    if (type == t) return id;
  }
  if (type == "gres" && name == "gpu") return 1001;
  return 1000;
}

// "mem=16000M" counts MiB, "cpu=00:00:02" seconds; plain numbers as they are.
Json tresCount(const std::string& type, const std::string& value) {
  if (value.find(':') != std::string::npos) {
    std::int64_t total = 0;
    std::size_t pos = 0;
    while (pos < value.size()) {
      auto colon = value.find(':', pos);
      if (colon == std::string::npos) colon = value.size();
      total = total * 60 + std::atoll(value.substr(pos, colon - pos).c_str());
      pos = colon + 1;
    }
    return total;
  }
  char* end = nullptr;
  double n = std::strtod(value.c_str(), &end);
  double scale = 1;
  switch (end && *end ? *end : ' ') {
    case 'K': scale = 1.0 / 1024; break;
    case 'M': scale = 1; break;
    case 'G': scale = 1024; break;
    case 'T': scale = 1024.0 * 1024; break;
    default: scale = type == "mem" ? 1.0 / (1024 * 1024) : 1; break;
  }
  return static_cast<std::int64_t>(n * scale);
}

struct Tres {
  int id;
  Json item;
};

std::vector<Tres> parseTres(const std::string& text) {
  std::vector<Tres> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    std::string type = key, name;
    if (auto slash = key.find('/'); slash != std::string::npos) {
      type = key.substr(0, slash);
      name = key.substr(slash + 1);
    }
    int id = tresId(type, name);
    Json j;
    j["type"] = type;
    j["name"] = name.empty() ? Json(nullptr) : Json(name);
    j["id"] = id;
    j["count"] = tresCount(type, value);
    out.push_back(Tres{id, std::move(j)});
  }
  std::stable_sort(out.begin(), out.end(), [](const Tres& a, const Tres& b) { return a.id < b.id; });
  return out;
}

Json tresArray(std::vector<Tres> list) {
  Json a = Json::array();
  for (auto& t : list) a.push_back(std::move(t.item));
  return a;
}

Json exitJson(const ExitStatus& e) {
  Json j;
  if (e.signal != 0) {
    // As the reference's for a job killed by SIGKILL: no return code, the signal's name as
    // strsignal(3) gives it ({"signal_id": 9, "name": "Killed"}).
    j["status"] = "SIGNALED";
    j["return_code"] = nullptr;
    j["signal"] = {{"signal_id", e.signal}, {"name", ::strsignal(e.signal)}};
  } else {
    j["status"] = e.code == 0 ? "SUCCESS" : "FAILED";
    j["return_code"] = e.code;
  }
  return j;
}

Json cpuTime(std::int64_t usec) {
  return Json{{"seconds", usec / 1'000'000}, {"microseconds", usec % 1'000'000}};
}

Json orNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json stepJson(const JobRecord& job, const StepRecord& st, std::int64_t now) {
  Json j;
  Json nodes;
  Json list = Json::array();
  if (auto hosts = hostlist::expand(st.node_list); hosts) {
    for (auto& h : *hosts) list.push_back(h);
  }
  nodes["list"] = std::move(list);
  nodes["count"] = st.nnodes;
  nodes["range"] = st.node_list;
  j["nodes"] = std::move(nodes);
  const Usage& u = st.usage;
  j["tres"] = {
      {"requested",
       {{"max", tresArray(parseTres(u.tres_usage_in_max))},
        {"min", tresArray(parseTres(u.tres_usage_in_min))},
        {"average", tresArray(parseTres(u.tres_usage_in_ave))},
        {"total", tresArray(parseTres(u.tres_usage_in_tot))}}},
      {"consumed",
       {{"max", tresArray(parseTres(u.tres_usage_out_max))},
        {"min", Json::array()},
        {"average", tresArray(parseTres(u.tres_usage_out_ave))},
        {"total", tresArray(parseTres(u.tres_usage_out_tot))}}},
      {"allocated", tresArray(parseTres(st.alloc_tres))}};
  std::int64_t stop = st.end > 0 ? st.end : now;
  j["time"] = {{"elapsed", st.start > 0 ? std::max<std::int64_t>(0, stop - st.start) : 0},
               {"end", st.end},
               {"start", st.start},
               {"suspended", st.suspended_sec},
               {"system", cpuTime(u.system_cpu_usec)},
               {"total", cpuTime(u.user_cpu_usec + u.system_cpu_usec)},
               {"user", cpuTime(u.user_cpu_usec)}};
  j["exit_code"] = exitJson(st.exit);
  j["tasks"] = {{"count", st.ntasks}};
  j["pid"] = nullptr;
  j["CPU"] = {{"requested_frequency",
               {{"min", st.req_cpu_freq_min.value_or(0)}, {"max", st.req_cpu_freq_max.value_or(0)}}},
              {"governor", Json::array()}};
  j["kill_request_user"] = nullptr;
  j["state"] = std::string(jobStateName(st.state));
  j["statistics"] = {{"CPU", {{"actual_frequency", u.ave_cpu_freq_khz.value_or(0)}}},
                     {"energy", {{"consumed", u.consumed_energy.value_or(0)}}}};
  j["step"] = {{"job_id", job.job_id},
               {"het", {{"component", nullptr}}},
               {"id", stepIdName(st.step_id)},
               {"name", st.name}};
  j["task"] = {{"distribution", st.layout.empty() ? std::string("Unknown") : st.layout}};
  return j;
}

Json jobJson(const JobWithSteps& jw, std::int64_t now) {
  const JobRecord& job = jw.job;
  Json j;
  j["account"] = job.account;
  j["comment"] = {{"administrator", orNull(job.admin_comment)},
                  {"job", orNull(job.comment)},
                  {"system", orNull(job.system_comment)}};
  j["allocation_nodes"] = job.nnodes;
  j["array"] = {{"job_id", job.array_job_id},
                {"limits", {{"max", {{"running", {{"tasks", job.array_max_running}}}}}}},
                {"task", orNull(job.array_task_str)},
                {"task_id", job.array_task_id ? Json(*job.array_task_id) : Json(nullptr)}};
  j["association"] = {{"account", job.account},
                      {"cluster", job.cluster},
                      {"partition", nullptr},
                      {"user", job.user}};
  j["cluster"] = job.cluster;
  j["constraints"] = job.constraints;
  j["container"] = nullptr;
  j["derived_exit_code"] = exitJson(job.derived_exit);
  std::int64_t stop = job.end > 0 ? job.end : now;
  j["time"] = {{"elapsed", job.start > 0 ? std::max<std::int64_t>(0, stop - job.start) : 0},
               {"eligible", job.eligible},
               {"end", job.end},
               {"start", job.start},
               {"submission", job.submit},
               {"suspended", job.suspended_sec},
               {"system", cpuTime(0)},
               {"limit", job.time_limit_min >= 0 ? job.time_limit_min : 0},
               {"total", cpuTime(0)},
               {"user", cpuTime(0)}};
  j["exit_code"] = exitJson(job.exit);
  j["flags"] = acct::jsonJobFlags(job.flags);
  j["group"] = job.group;
  j["het"] = {{"job_id", 0}, {"job_offset", nullptr}};
  j["job_id"] = job.job_id;
  j["name"] = job.name;
  j["mcs"] = {{"label", ""}};
  j["nodes"] = job.node_list.empty() ? std::string("None assigned") : job.node_list;
  j["partition"] = job.partition;
  j["priority"] = job.priority;
  j["qos"] = job.qos;
  j["required"] = {{"CPUs", job.req_cpus}, {"memory", job.req_mem_mb}};
  j["kill_request_user"] =
      job.cancelled_by ? Json(std::to_string(*job.cancelled_by)) : Json(nullptr);
  j["reservation"] = {{"id", 0}, {"name", 0}};
  j["state"] = {{"current", std::string(jobStateName(job.state))},
                {"reason", job.reason.empty() ? std::string("None") : job.reason}};
  Json steps = Json::array();
  for (const auto& st : jw.steps) steps.push_back(stepJson(job, st, now));
  j["steps"] = std::move(steps);
  auto allocated = parseTres(job.alloc_tres);
  if (!allocated.empty()) {
    // Slurm lists energy (never counted here) among a job's allocated TRES.
    Json energy = {{"type", "energy"}, {"name", nullptr}, {"id", 3}, {"count", nullptr}};
    allocated.push_back(Tres{3, std::move(energy)});
    std::stable_sort(allocated.begin(), allocated.end(),
                     [](const Tres& a, const Tres& b) { return a.id < b.id; });
  }
  j["tres"] = {{"allocated", tresArray(std::move(allocated))},
               {"requested", tresArray(parseTres(job.req_tres))}};
  j["user"] = job.user;
  j["wckey"] = {{"wckey", job.wckey}, {"flags", Json::array()}};
  j["working_directory"] = job.work_dir;
  return j;
}

// Slurm's printer: two-space indent, empty arrays as "[\n<indent>]", '/' escaped as "\/".
void dump(const Json& j, std::string& out, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const std::string inner(static_cast<std::size_t>(indent + 2), ' ');
  if (j.is_object()) {
    out += "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += inner + Json(it.key()).dump() + ": ";
      dump(it.value(), out, indent + 2);
    }
    out += "\n" + pad + "}";
  } else if (j.is_array()) {
    out += "[\n";
    bool first = true;
    for (const auto& v : j) {
      if (!first) out += ",\n";
      first = false;
      out += inner;
      dump(v, out, indent + 2);
    }
    out += (first ? "" : "\n") + pad + "]";
  } else if (j.is_string()) {
    std::string s = j.dump();
    std::string escaped;
    for (char c : s) {
      if (c == '/') escaped += '\\';
      escaped += c;
    }
    out += escaped;
  } else {
    out += j.dump();
  }
}

}  // namespace

std::string renderSacctJson(const std::vector<JobWithSteps>& jobs, std::int64_t now) {
  Json root;
  root["meta"] = {{"plugin", {{"type", "openapi/dbv0.0.38"}, {"name", "Slurm OpenAPI DB v0.0.38"}}},
                  {"Slurm",
                   {{"version", {{"major", 22}, {"micro", 8}, {"minor", 5}}},
                    {"release", "22.05.8"}}}};
  root["errors"] = Json::array();
  Json list = Json::array();
  for (const auto& jw : jobs) list.push_back(jobJson(jw, now));
  root["jobs"] = std::move(list);
  std::string out;
  dump(root, out, 0);
  return out;
}

}  // namespace drover::acct::report
