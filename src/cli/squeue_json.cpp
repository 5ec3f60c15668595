#include "cli/squeue_json.h"

#include <algorithm>
#include <cstdlib>

#include "cli/job_values.h"
#include "drover/hostlist.h"
#include "jobspec/array_spec.h"
#include "jobstate/eligible_time.h"
#include "jobstate/gres_text.h"
#include "jobstate/job_state.h"
#include "jobstate/wait_status.h"

namespace drover::cli {
namespace {

json::Value nullIfZero(std::int64_t v) { return v == 0 ? json::Value() : json::Value(v); }

// "billing=48,cpu=48,..." -> 48.0; null when the string has no billing.
json::Value billable(const std::string& tres) {
  std::size_t p = tres.find("billing=");
  if (p == std::string::npos) return json::Value();
  return json::Value(std::strtod(tres.c_str() + p + 8, nullptr));
}

// JSON leaves a request not made empty.
std::string gresText(const v1::GresRequest& g) { return g.count() == 0 ? "" : gresRequestText(g); }

// Slurm prints the path patterns as given (absolute against the work dir), "" for its default.
std::string pathPattern(const std::string& pattern, const std::string& work_dir) {
  if (pattern.empty() || pattern.front() == '/') return pattern;
  return work_dir.empty() ? pattern : work_dir + "/" + pattern;
}

json::Value gresDetail(const v1::JobInfo& j) {
  json::Array out;
  std::string type;
  for (const auto& g : j.spec().gres())
    if (g.name() == "gpu" && !g.type().empty()) type = g.type();
  for (const auto& a : j.allocation()) {
    if (a.gpu_indices_size() == 0) continue;
    std::vector<std::uint32_t> ids(a.gpu_indices().begin(), a.gpu_indices().end());
    std::sort(ids.begin(), ids.end());
    out.push_back("gpu" + (type.empty() ? "" : ":" + type) + ":" + std::to_string(ids.size()) +
                  "(IDX:" + jobspec::compressIds(ids) + ")");
  }
  return json::Value(std::move(out));
}

// Slurm lists allocated cores per socket; Drover allocates CPUs by count, so they are shown as
// the first cores of socket 0.
json::Value jobResources(const v1::JobInfo& j) {
  json::Array nodes;
  std::uint64_t cores = 0;
  for (const auto& a : j.allocation()) {
    json::Object core_map;
    for (std::uint32_t c = 0; c < a.cpus(); ++c) core_map.emplace_back(std::to_string(c), "allocated");
    cores += a.cpus();
    json::Object sockets;
    sockets.emplace_back("0", json::Object{{"cores", json::Value(std::move(core_map))}});
    nodes.push_back(json::Object{{"sockets", json::Value(std::move(sockets))},
                                 {"nodename", a.node()},
                                 {"cpus_used", 0},
                                 {"memory_used", 0},
                                 {"memory_allocated", static_cast<std::uint64_t>(a.memory_mb())}});
  }
  const std::uint64_t hosts = j.allocation_size() > 0
                                  ? static_cast<std::uint64_t>(j.allocation_size())
                                  : static_cast<std::uint64_t>(j.num_nodes());
  if (j.allocation_size() == 0) cores = j.num_cpus();
  return json::Object{{"nodes", j.nodes()},
                      {"allocated_cores", cores},
                      {"allocated_hosts", hosts},
                      {"allocated_nodes", json::Value(std::move(nodes))}};
}

// A job that was given nodes (running, or finished after running) shows its resources.
bool hasResources(const v1::JobInfo& j) { return !j.nodes().empty(); }

json::Object build(const v1::JobInfo& j, std::int64_t now, const std::string& cluster) {
  (void)now;
  const v1::JobSpec& s = j.spec();
  const bool task = j.array_job_id() != 0 && j.array_task_pending().empty();
  const bool ran = hasResources(j);
  json::Array flags;
  if (ran && (j.state() == v1::JOB_RUNNING || j.state() == v1::JOB_SUSPENDED ||
              j.state() == v1::JOB_COMPLETING))
    flags.push_back("JOB_WAS_RUNNING");
  json::Object o;
  o.emplace_back("account", j.account());
  o.emplace_back("accrue_time", shownEligibleTime(j));
  o.emplace_back("admin_comment", "");
  o.emplace_back("array_job_id", static_cast<std::uint64_t>(j.array_job_id()));
  o.emplace_back("array_task_id",
                 task ? json::Value(static_cast<std::int64_t>(j.array_task_id())) : json::Value());
  o.emplace_back("array_max_tasks", static_cast<std::uint64_t>(j.array_max_running()));
  o.emplace_back("array_task_string", j.array_task_pending());
  o.emplace_back("association_id", 0);
  o.emplace_back("batch_features", "");
  o.emplace_back("batch_flag", j.batch());
  o.emplace_back("batch_host", j.batch_host());
  o.emplace_back("flags", json::Value(std::move(flags)));
  o.emplace_back("burst_buffer", "");
  o.emplace_back("burst_buffer_state", "");
  o.emplace_back("cluster", cluster);
  o.emplace_back("cluster_features", "");
  o.emplace_back("command", j.command());
  o.emplace_back("comment", s.comment());
  o.emplace_back("container", "");
  o.emplace_back("contiguous", false);
  o.emplace_back("core_spec", json::Value());
  o.emplace_back("thread_spec", json::Value());
  o.emplace_back("cores_per_socket", json::Value());
  o.emplace_back("billable_tres", billable(ran ? j.alloc_tres() : ""));
  o.emplace_back("cpus_per_task", nullIfZero(s.cpus_per_task()));
  o.emplace_back("cpu_frequency_minimum", json::Value());
  o.emplace_back("cpu_frequency_maximum", json::Value());
  o.emplace_back("cpu_frequency_governor", json::Value());
  o.emplace_back("cpus_per_tres", s.cpus_per_gpu() > 0 ? "gres:gpu:" + std::to_string(s.cpus_per_gpu()) : "");
  o.emplace_back("deadline", s.deadline());
  o.emplace_back("delay_boot", 0);
  o.emplace_back("dependency", j.dependency_status());  // empty once met, as Dependency=
  o.emplace_back("derived_exit_code",
                 std::uint64_t{waitStatus(j.derived_exit_code(), j.derived_exit_signal())});
  o.emplace_back("eligible_time", shownEligibleTime(j));
  o.emplace_back("end_time", j.end_time());
  o.emplace_back("excluded_nodes", j.exc_nodes());
  o.emplace_back("exit_code", std::uint64_t{waitStatus(j.exit_code(), j.exit_signal())});
  o.emplace_back("features", j.features());
  o.emplace_back("federation_origin", "");
  o.emplace_back("federation_siblings_active", "");
  o.emplace_back("federation_siblings_viable", "");
  o.emplace_back("gres_detail", gresDetail(j));
  o.emplace_back("group_id", static_cast<std::uint64_t>(j.gid()));
  o.emplace_back("group_name", j.group());
  o.emplace_back("job_id", static_cast<std::uint64_t>(j.job_id()));
  if (ran) o.emplace_back("job_resources", jobResources(j));
  o.emplace_back("job_state", std::string(jobStateName(j.state())));
  o.emplace_back("last_sched_evaluation", std::max(j.start_time(), j.eligible_time()));
  o.emplace_back("licenses", "");
  o.emplace_back("max_cpus", 0);
  o.emplace_back("max_nodes", static_cast<std::uint64_t>(s.max_nodes()));
  o.emplace_back("mcs_label", "");
  o.emplace_back("memory_per_tres", s.mem_per_gpu_mb() > 0 ? "gres:gpu:" + std::to_string(s.mem_per_gpu_mb()) : "");
  o.emplace_back("name", j.name());
  o.emplace_back("nodes", j.nodes());
  o.emplace_back("nice", nullIfZero(j.nice()));
  o.emplace_back("tasks_per_core", json::Value());
  o.emplace_back("tasks_per_node", static_cast<std::uint64_t>(s.ntasks_per_node()));
  o.emplace_back("tasks_per_socket", json::Value());
  o.emplace_back("tasks_per_board", 0);
  o.emplace_back("cpus", static_cast<std::uint64_t>(j.num_cpus()));
  o.emplace_back("node_count", static_cast<std::uint64_t>(j.allocation_size() > 0 ? j.allocation_size()
                                                                                   : j.num_nodes()));
  o.emplace_back("tasks", static_cast<std::uint64_t>(j.num_tasks()));
  o.emplace_back("het_job_id", 0);
  o.emplace_back("het_job_id_set", "");
  o.emplace_back("het_job_offset", 0);
  o.emplace_back("partition", j.partition());
  o.emplace_back("prefer", j.spec().prefer());
  o.emplace_back("memory_per_node",
                 s.mem_set() ? json::Value(static_cast<std::uint64_t>(s.mem_per_node_mb())) : json::Value());
  o.emplace_back("memory_per_cpu", nullIfZero(static_cast<std::int64_t>(s.mem_per_cpu_mb())));
  o.emplace_back("minimum_cpus_per_node", std::max(1u, s.cpus_per_task()) * std::max(1u, s.ntasks_per_node()));
  o.emplace_back("minimum_tmp_disk_per_node", 0);
  o.emplace_back("preempt_time", j.preempt_time());
  o.emplace_back("pre_sus_time", 0);
  o.emplace_back("priority", shownPriority(j));
  o.emplace_back("profile", json::Value());
  o.emplace_back("qos", j.qos());
  o.emplace_back("reboot", false);
  o.emplace_back("required_nodes", j.req_nodes());
  o.emplace_back("requeue", j.requeue());
  o.emplace_back("resize_time", 0);
  o.emplace_back("restart_cnt", static_cast<std::uint64_t>(j.restart_count()));
  o.emplace_back("resv_name", s.reservation());
  o.emplace_back("shared", s.exclusive() ? json::Value("none") : json::Value());
  o.emplace_back("show_flags", json::Array{"SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"});
  o.emplace_back("sockets_per_board", 0);
  o.emplace_back("sockets_per_node", json::Value());
  o.emplace_back("start_time", j.start_time());
  o.emplace_back("state_description", j.reason_description().empty() ? j.state_reason_detail()
                                                                    : j.reason_description());
  o.emplace_back("state_reason", jobReasonCode(j));
  o.emplace_back("standard_error", pathPattern(s.std_err(), j.work_dir()));
  o.emplace_back("standard_input", j.batch() ? (s.std_in().empty() ? std::string("/dev/null")
                                                                   : pathPattern(s.std_in(), j.work_dir()))
                                             : std::string());
  o.emplace_back("standard_output", pathPattern(s.std_out(), j.work_dir()));
  o.emplace_back("submit_time", j.submit_time());
  o.emplace_back("suspend_time", j.suspend_time());
  o.emplace_back("system_comment", "");
  o.emplace_back("time_limit", nullIfZero(j.time_limit_min() < 0 ? 0 : j.time_limit_min()));
  o.emplace_back("time_minimum", s.time_min_min());
  o.emplace_back("threads_per_core", json::Value());
  o.emplace_back("tres_bind", "");
  o.emplace_back("tres_freq", tresFreqText(j.spec()));
  o.emplace_back("tres_per_job", gresText(s.gpus()));
  std::string per_node = gresText(s.gpus_per_node());
  for (const auto& g : s.gres()) per_node = gresText(g);
  o.emplace_back("tres_per_node", per_node);
  o.emplace_back("tres_per_socket", "");
  o.emplace_back("tres_per_task", gresText(s.gpus_per_task()));
  o.emplace_back("tres_req_str", j.req_tres());
  o.emplace_back("tres_alloc_str", j.alloc_tres());
  o.emplace_back("user_id", static_cast<std::uint64_t>(j.uid()));
  o.emplace_back("user_name", j.user());
  o.emplace_back("wckey", "");
  o.emplace_back("current_working_directory", j.work_dir());
  return o;
}

}  // namespace

json::Value squeueJobJson(const v1::JobInfo& job, std::int64_t now, const std::string& cluster) {
  return json::Value(build(job, now, cluster));
}

std::vector<std::string> squeueJobJsonKeys(const v1::JobInfo& job) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : build(job, 0, "")) keys.push_back(k);
  return keys;
}

}  // namespace drover::cli
