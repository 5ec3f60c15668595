#include "ctld/acct_wire.h"

namespace drover::ctld {
namespace {

v1::AcctExit exitToWire(const acct::ExitStatus& e) {
  v1::AcctExit w;
  w.set_code(e.code);
  w.set_signal(e.signal);
  return w;
}
acct::ExitStatus exitFromWire(const v1::AcctExit& w) { return {w.code(), w.signal()}; }

v1::AcctUsage usageToWire(const acct::Usage& u) {
  v1::AcctUsage w;
  w.set_user_cpu_usec(u.user_cpu_usec);
  w.set_system_cpu_usec(u.system_cpu_usec);
  if (u.max_rss_kb) w.set_max_rss_kb(*u.max_rss_kb);
  w.set_max_rss_node(u.max_rss_node);
  if (u.max_rss_task) w.set_max_rss_task(*u.max_rss_task);
  if (u.ave_rss_kb) w.set_ave_rss_kb(*u.ave_rss_kb);
  if (u.max_vmsize_kb) w.set_max_vmsize_kb(*u.max_vmsize_kb);
  w.set_max_vmsize_node(u.max_vmsize_node);
  if (u.max_vmsize_task) w.set_max_vmsize_task(*u.max_vmsize_task);
  if (u.ave_vmsize_kb) w.set_ave_vmsize_kb(*u.ave_vmsize_kb);
  if (u.max_pages) w.set_max_pages(*u.max_pages);
  w.set_max_pages_node(u.max_pages_node);
  if (u.max_pages_task) w.set_max_pages_task(*u.max_pages_task);
  if (u.ave_pages) w.set_ave_pages(*u.ave_pages);
  if (u.min_cpu_sec) w.set_min_cpu_sec(*u.min_cpu_sec);
  w.set_min_cpu_node(u.min_cpu_node);
  if (u.min_cpu_task) w.set_min_cpu_task(*u.min_cpu_task);
  if (u.ave_cpu_sec) w.set_ave_cpu_sec(*u.ave_cpu_sec);
  if (u.ave_cpu_freq_khz) w.set_ave_cpu_freq_khz(*u.ave_cpu_freq_khz);
  if (u.consumed_energy) w.set_consumed_energy(*u.consumed_energy);
  if (u.max_disk_read_mb) w.set_max_disk_read_mb(*u.max_disk_read_mb);
  w.set_max_disk_read_node(u.max_disk_read_node);
  if (u.max_disk_read_task) w.set_max_disk_read_task(*u.max_disk_read_task);
  if (u.ave_disk_read_mb) w.set_ave_disk_read_mb(*u.ave_disk_read_mb);
  if (u.max_disk_write_mb) w.set_max_disk_write_mb(*u.max_disk_write_mb);
  w.set_max_disk_write_node(u.max_disk_write_node);
  if (u.max_disk_write_task) w.set_max_disk_write_task(*u.max_disk_write_task);
  if (u.ave_disk_write_mb) w.set_ave_disk_write_mb(*u.ave_disk_write_mb);
  w.set_tres_usage_in_ave(u.tres_usage_in_ave);
  w.set_tres_usage_in_max(u.tres_usage_in_max);
  w.set_tres_usage_in_max_node(u.tres_usage_in_max_node);
  w.set_tres_usage_in_max_task(u.tres_usage_in_max_task);
  w.set_tres_usage_in_min(u.tres_usage_in_min);
  w.set_tres_usage_in_min_node(u.tres_usage_in_min_node);
  w.set_tres_usage_in_min_task(u.tres_usage_in_min_task);
  w.set_tres_usage_in_tot(u.tres_usage_in_tot);
  w.set_tres_usage_out_ave(u.tres_usage_out_ave);
  w.set_tres_usage_out_max(u.tres_usage_out_max);
  w.set_tres_usage_out_max_node(u.tres_usage_out_max_node);
  w.set_tres_usage_out_max_task(u.tres_usage_out_max_task);
  w.set_tres_usage_out_tot(u.tres_usage_out_tot);
  return w;
}

acct::Usage usageFromWire(const v1::AcctUsage& w) {
  acct::Usage u;
  u.user_cpu_usec = w.user_cpu_usec();
  u.system_cpu_usec = w.system_cpu_usec();
  if (w.has_max_rss_kb()) u.max_rss_kb = w.max_rss_kb();
  u.max_rss_node = w.max_rss_node();
  if (w.has_max_rss_task()) u.max_rss_task = w.max_rss_task();
  if (w.has_ave_rss_kb()) u.ave_rss_kb = w.ave_rss_kb();
  if (w.has_max_vmsize_kb()) u.max_vmsize_kb = w.max_vmsize_kb();
  u.max_vmsize_node = w.max_vmsize_node();
  if (w.has_max_vmsize_task()) u.max_vmsize_task = w.max_vmsize_task();
  if (w.has_ave_vmsize_kb()) u.ave_vmsize_kb = w.ave_vmsize_kb();
  if (w.has_max_pages()) u.max_pages = w.max_pages();
  u.max_pages_node = w.max_pages_node();
  if (w.has_max_pages_task()) u.max_pages_task = w.max_pages_task();
  if (w.has_ave_pages()) u.ave_pages = w.ave_pages();
  if (w.has_min_cpu_sec()) u.min_cpu_sec = w.min_cpu_sec();
  u.min_cpu_node = w.min_cpu_node();
  if (w.has_min_cpu_task()) u.min_cpu_task = w.min_cpu_task();
  if (w.has_ave_cpu_sec()) u.ave_cpu_sec = w.ave_cpu_sec();
  if (w.has_ave_cpu_freq_khz()) u.ave_cpu_freq_khz = w.ave_cpu_freq_khz();
  if (w.has_consumed_energy()) u.consumed_energy = w.consumed_energy();
  if (w.has_max_disk_read_mb()) u.max_disk_read_mb = w.max_disk_read_mb();
  u.max_disk_read_node = w.max_disk_read_node();
  if (w.has_max_disk_read_task()) u.max_disk_read_task = w.max_disk_read_task();
  if (w.has_ave_disk_read_mb()) u.ave_disk_read_mb = w.ave_disk_read_mb();
  if (w.has_max_disk_write_mb()) u.max_disk_write_mb = w.max_disk_write_mb();
  u.max_disk_write_node = w.max_disk_write_node();
  if (w.has_max_disk_write_task()) u.max_disk_write_task = w.max_disk_write_task();
  if (w.has_ave_disk_write_mb()) u.ave_disk_write_mb = w.ave_disk_write_mb();
  u.tres_usage_in_ave = w.tres_usage_in_ave();
  u.tres_usage_in_max = w.tres_usage_in_max();
  u.tres_usage_in_max_node = w.tres_usage_in_max_node();
  u.tres_usage_in_max_task = w.tres_usage_in_max_task();
  u.tres_usage_in_min = w.tres_usage_in_min();
  u.tres_usage_in_min_node = w.tres_usage_in_min_node();
  u.tres_usage_in_min_task = w.tres_usage_in_min_task();
  u.tres_usage_in_tot = w.tres_usage_in_tot();
  u.tres_usage_out_ave = w.tres_usage_out_ave();
  u.tres_usage_out_max = w.tres_usage_out_max();
  u.tres_usage_out_max_node = w.tres_usage_out_max_node();
  u.tres_usage_out_max_task = w.tres_usage_out_max_task();
  u.tres_usage_out_tot = w.tres_usage_out_tot();
  return u;
}

}  // namespace

v1::AcctJobRecord toWire(const acct::JobRecord& j) {
  v1::AcctJobRecord w;
  w.set_job_id(j.job_id);
  w.set_array_job_id(j.array_job_id);
  w.set_array_task_str(j.array_task_str);
  w.set_array_max_running(j.array_max_running);
  w.set_name(j.name);
  w.set_uid(j.uid);
  w.set_user(j.user);
  w.set_gid(j.gid);
  w.set_group(j.group);
  w.set_account(j.account);
  w.set_partition(j.partition);
  w.set_qos(j.qos);
  w.set_cluster(j.cluster);
  w.set_reservation(j.reservation);
  w.set_wckey(j.wckey);
  w.set_submit(j.submit);
  w.set_eligible(j.eligible);
  w.set_start(j.start);
  w.set_end(j.end);
  w.set_suspended_sec(j.suspended_sec);
  w.set_time_limit_min(j.time_limit_min);
  w.set_reason(j.reason);
  w.set_nnodes(j.nnodes);
  w.set_node_list(j.node_list);
  w.set_ncpus(j.ncpus);
  w.set_req_cpus(j.req_cpus);
  w.set_req_nodes(j.req_nodes);
  w.set_req_mem_mb(j.req_mem_mb);
  w.set_req_mem_per_cpu(j.req_mem_per_cpu);
  w.set_req_tres(j.req_tres);
  w.set_alloc_tres(j.alloc_tres);
  w.set_work_dir(j.work_dir);
  w.set_submit_line(j.submit_line);
  w.set_comment(j.comment);
  w.set_admin_comment(j.admin_comment);
  w.set_system_comment(j.system_comment);
  w.set_constraints(j.constraints);
  w.set_restart_count(j.restart_count);
  w.set_priority(j.priority);
  w.set_assoc_id(j.assoc_id);
  if (j.array_task_id) w.set_array_task_id(*j.array_task_id);
  if (j.cancelled_by) w.set_cancelled_by(*j.cancelled_by);
  w.set_state(static_cast<std::uint32_t>(j.state));
  *w.mutable_exit() = exitToWire(j.exit);
  *w.mutable_derived_exit() = exitToWire(j.derived_exit);
  for (const auto& f : j.flags) w.add_flags(f);
  return w;
}

acct::JobRecord fromWire(const v1::AcctJobRecord& w) {
  acct::JobRecord j;
  j.job_id = w.job_id();
  j.array_job_id = w.array_job_id();
  j.array_task_str = w.array_task_str();
  j.array_max_running = w.array_max_running();
  j.name = w.name();
  j.uid = w.uid();
  j.user = w.user();
  j.gid = w.gid();
  j.group = w.group();
  j.account = w.account();
  j.partition = w.partition();
  j.qos = w.qos();
  j.cluster = w.cluster();
  j.reservation = w.reservation();
  j.wckey = w.wckey();
  j.submit = w.submit();
  j.eligible = w.eligible();
  j.start = w.start();
  j.end = w.end();
  j.suspended_sec = w.suspended_sec();
  j.time_limit_min = w.time_limit_min();
  j.reason = w.reason();
  j.nnodes = w.nnodes();
  j.node_list = w.node_list();
  j.ncpus = w.ncpus();
  j.req_cpus = w.req_cpus();
  j.req_nodes = w.req_nodes();
  j.req_mem_mb = w.req_mem_mb();
  j.req_mem_per_cpu = w.req_mem_per_cpu();
  j.req_tres = w.req_tres();
  j.alloc_tres = w.alloc_tres();
  j.work_dir = w.work_dir();
  j.submit_line = w.submit_line();
  j.comment = w.comment();
  j.admin_comment = w.admin_comment();
  j.system_comment = w.system_comment();
  j.constraints = w.constraints();
  j.restart_count = w.restart_count();
  j.priority = w.priority();
  j.assoc_id = w.assoc_id();
  if (w.has_array_task_id()) j.array_task_id = w.array_task_id();
  if (w.has_cancelled_by()) j.cancelled_by = w.cancelled_by();
  j.state = static_cast<acct::JobState>(w.state());
  j.exit = exitFromWire(w.exit());
  j.derived_exit = exitFromWire(w.derived_exit());
  j.flags.assign(w.flags().begin(), w.flags().end());
  return j;
}

v1::AcctStepRecord toWire(const acct::StepRecord& s) {
  v1::AcctStepRecord w;
  w.set_job_id(s.job_id);
  w.set_step_id(s.step_id);
  w.set_name(s.name);
  w.set_start(s.start);
  w.set_end(s.end);
  w.set_suspended_sec(s.suspended_sec);
  w.set_nnodes(s.nnodes);
  w.set_ntasks(s.ntasks);
  w.set_ncpus(s.ncpus);
  w.set_node_list(s.node_list);
  w.set_req_tres(s.req_tres);
  w.set_alloc_tres(s.alloc_tres);
  w.set_layout(s.layout);
  w.set_submit_line(s.submit_line);
  w.set_state(static_cast<std::uint32_t>(s.state));
  *w.mutable_exit() = exitToWire(s.exit);
  if (s.req_cpu_freq_min) w.set_req_cpu_freq_min(*s.req_cpu_freq_min);
  if (s.req_cpu_freq_max) w.set_req_cpu_freq_max(*s.req_cpu_freq_max);
  if (s.req_cpu_freq_gov) w.set_req_cpu_freq_gov(*s.req_cpu_freq_gov);
  *w.mutable_usage() = usageToWire(s.usage);
  return w;
}

acct::StepRecord fromWire(const v1::AcctStepRecord& w) {
  acct::StepRecord s;
  s.job_id = w.job_id();
  s.step_id = w.step_id();
  s.name = w.name();
  s.start = w.start();
  s.end = w.end();
  s.suspended_sec = w.suspended_sec();
  s.nnodes = w.nnodes();
  s.ntasks = w.ntasks();
  s.ncpus = w.ncpus();
  s.node_list = w.node_list();
  s.req_tres = w.req_tres();
  s.alloc_tres = w.alloc_tres();
  s.layout = w.layout();
  s.submit_line = w.submit_line();
  s.state = static_cast<acct::JobState>(w.state());
  s.exit = exitFromWire(w.exit());
  if (w.has_req_cpu_freq_min()) s.req_cpu_freq_min = w.req_cpu_freq_min();
  if (w.has_req_cpu_freq_max()) s.req_cpu_freq_max = w.req_cpu_freq_max();
  if (w.has_req_cpu_freq_gov()) s.req_cpu_freq_gov = w.req_cpu_freq_gov();
  s.usage = usageFromWire(w.usage());
  return s;
}

v1::AcctJobWithSteps toWire(const acct::JobWithSteps& j) {
  v1::AcctJobWithSteps w;
  *w.mutable_job() = toWire(j.job);
  for (const auto& s : j.steps) *w.add_steps() = toWire(s);
  w.set_show_job(j.show_job);
  if (j.batch_script) w.set_batch_script(*j.batch_script);
  if (j.environment) w.set_environment(*j.environment);
  return w;
}

acct::JobWithSteps fromWire(const v1::AcctJobWithSteps& w) {
  acct::JobWithSteps j;
  j.job = fromWire(w.job());
  for (const auto& s : w.steps()) j.steps.push_back(fromWire(s));
  j.show_job = w.show_job();
  if (w.has_batch_script()) j.batch_script = w.batch_script();
  if (w.has_environment()) j.environment = w.environment();
  return j;
}

v1::QueryAccountingRequest toWire(const acct::AcctFilter& f) {
  v1::QueryAccountingRequest w;
  for (const auto& sel : f.jobs) {
    auto* s = w.add_jobs();
    s->set_job_id(sel.job_id);
    if (sel.array_task) s->set_array_task(*sel.array_task);
    if (sel.step_id) s->set_step_id(*sel.step_id);
  }
  for (auto uid : f.uids) w.add_uids(uid);
  for (const auto& u : f.users) w.add_users(u);
  for (auto g : f.gids) w.add_gids(g);
  for (const auto& a : f.accounts) w.add_accounts(a);
  for (const auto& p : f.partitions) w.add_partitions(p);
  for (const auto& n : f.names) w.add_names(n);
  for (auto s : f.states) w.add_states(static_cast<std::uint32_t>(s));
  for (const auto& n : f.nodes) w.add_nodes(n);
  if (f.window_start) w.set_window_start(*f.window_start);
  if (f.window_end) w.set_window_end(*f.window_end);
  w.set_include_steps(f.include_steps);
  w.set_duplicates(f.duplicates);
  return w;
}

acct::AcctFilter fromWire(const v1::QueryAccountingRequest& w) {
  acct::AcctFilter f;
  for (const auto& s : w.jobs()) {
    acct::JobSelector sel;
    sel.job_id = s.job_id();
    if (s.has_array_task()) sel.array_task = s.array_task();
    if (s.has_step_id()) sel.step_id = s.step_id();
    f.jobs.push_back(sel);
  }
  f.uids.assign(w.uids().begin(), w.uids().end());
  f.users.assign(w.users().begin(), w.users().end());
  f.gids.assign(w.gids().begin(), w.gids().end());
  f.accounts.assign(w.accounts().begin(), w.accounts().end());
  f.partitions.assign(w.partitions().begin(), w.partitions().end());
  f.names.assign(w.names().begin(), w.names().end());
  for (auto s : w.states()) f.states.push_back(static_cast<acct::JobState>(s));
  f.nodes.assign(w.nodes().begin(), w.nodes().end());
  if (w.has_window_start()) f.window_start = w.window_start();
  if (w.has_window_end()) f.window_end = w.window_end();
  f.include_steps = w.include_steps();
  f.duplicates = w.duplicates();
  return f;
}

}  // namespace drover::ctld
