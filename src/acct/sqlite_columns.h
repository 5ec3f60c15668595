#pragma once
// The accounting store's column lists and SQL helpers, shared by its writes
// (sqlite_store_apply.cpp) and its queries (sqlite_store_query.cpp). Internal to src/acct.
#include <cstdint>
#include <limits>
#include <string>

namespace drover::acct::detail {

// Unfinished jobs sort after every real end time, so "not ended before S" is one index range.
constexpr std::int64_t kOpenEnd = std::numeric_limits<std::int64_t>::max();

inline constexpr const char* kJobColumns =
    "job_id, array_job_id, array_task_id, array_task_str, array_max_running, name, uid, user, "
    "gid, grp, account, partition, qos, cluster, reservation, wckey, submit, eligible, start, "
    "end_time, end_key, suspended, time_limit, state, cancelled_by, reason, exit_code, "
    "exit_signal, dexit_code, dexit_signal, nnodes, node_list, ncpus, req_cpus, req_nodes, "
    "req_mem_mb, req_mem_per_cpu, req_tres, alloc_tres, work_dir, submit_line, comment, "
    "admin_comment, system_comment, constraints, flags, restart_count, priority";
inline constexpr int kJobColumnCount = 48;

inline constexpr const char* kStepColumns =
    "job_id, step_id, name, state, exit_code, exit_signal, start, end_time, suspended, nnodes, "
    "ntasks, ncpus, node_list, req_tres, alloc_tres, layout, freq_min, freq_max, freq_gov, "
    "submit_line, usage, run";
inline constexpr int kStepColumnCount = 22;

inline std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ",?" : "?";
  return s;
}

}  // namespace drover::acct::detail
