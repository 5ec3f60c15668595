#include "cli/job_spec_wire.h"

namespace drover::cli {

std::map<std::string, std::string> exportedEnvironment(const jobspec::JobSpec& spec,
                                                       const std::map<std::string, std::string>& env) {
  const jobspec::ExportSpec all{};
  const jobspec::ExportSpec& ex = spec.export_env ? *spec.export_env : all;
  std::map<std::string, std::string> out;
  if (ex.propagate_all) {
    out = env;
  } else {
    for (const auto& [k, v] : env)
      if (k.rfind("SLURM_", 0) == 0) out[k] = v;
  }
  for (const auto& var : ex.vars) {
    if (var.value) {
      out[var.name] = *var.value;
    } else if (auto it = env.find(var.name); it != env.end()) {
      out[var.name] = it->second;
    }
  }
  return out;
}

void setGres(v1::GresRequest* out, const jobspec::GpuCount& count) {
  out->set_name("gpu");
  if (count.type) out->set_type(*count.type);
  out->set_count(static_cast<std::uint32_t>(count.count));
}

v1::JobSpec toWireSpec(const jobspec::BatchRequest& request, const SubmitContext& context) {
  const jobspec::JobSpec& s = request.spec;
  v1::JobSpec w;
  if (s.job_name) w.set_name(*s.job_name);
  else if (request.script_path) {
    const auto slash = request.script_path->rfind('/');
    w.set_name(slash == std::string::npos ? *request.script_path : request.script_path->substr(slash + 1));
  } else if (s.wrap) {
    w.set_name("wrap");
  }
  if (s.partition) w.set_partition(*s.partition);
  if (s.time_limit_minutes) w.set_time_limit_min(*s.time_limit_minutes);
  if (s.time_min_minutes) w.set_time_min_min(*s.time_min_minutes);
  if (s.nodes) {
    w.set_min_nodes(s.nodes->min);
    w.set_max_nodes(s.nodes->max);
  }
  if (s.ntasks) w.set_ntasks(*s.ntasks);
  if (s.cpus_per_task) w.set_cpus_per_task(*s.cpus_per_task);
  if (s.ntasks_per_node) w.set_ntasks_per_node(*s.ntasks_per_node);
  if (s.mem_mb) {
    w.set_mem_per_node_mb(*s.mem_mb);
    w.set_mem_set(true);
  }
  if (s.mem_per_cpu_mb) w.set_mem_per_cpu_mb(*s.mem_per_cpu_mb);
  if (s.mem_per_gpu_mb) w.set_mem_per_gpu_mb(*s.mem_per_gpu_mb);
  setGpuRequests(s, w);
  if (s.cpus_per_gpu) w.set_cpus_per_gpu(*s.cpus_per_gpu);
  w.set_exclusive(s.exclusive.has_value());
  if (s.nodelist) w.set_nodelist(*s.nodelist);
  if (s.exclude) w.set_exclude(*s.exclude);
  if (s.constraint) w.set_constraint(*s.constraint);
  if (s.prefer) w.set_prefer(*s.prefer);
  w.set_gpu_freq(s.gpu_freq);
  if (s.account) w.set_account(*s.account);
  if (s.qos) w.set_qos(*s.qos);
  if (s.nice) w.set_nice(static_cast<std::int32_t>(*s.nice));
  if (s.comment) w.set_comment(*s.comment);
  if (s.run_as_user) w.set_run_as_user(*s.run_as_user);
  if (s.run_as_group) w.set_run_as_group(*s.run_as_group);
  w.set_reboot(s.reboot);
  if (s.licenses) w.set_licenses(*s.licenses);
  if (s.gpu_bind) w.set_gpu_bind(*s.gpu_bind);
  w.set_gpus_implied(s.gpus_implied);
  if (s.ntasks_per_gpu) w.set_ntasks_per_gpu(*s.ntasks_per_gpu);
  if (s.dependency) w.set_dependency(s.dependency->text);
  w.set_hold(s.hold);
  if (s.begin_time) w.set_begin_time(*s.begin_time);
  if (s.deadline) w.set_deadline(*s.deadline);
  if (s.requeue) {
    w.set_requeue(*s.requeue);
    w.set_requeue_set(true);
  }
  if (s.reservation) w.set_reservation(*s.reservation);
  if (s.array) w.set_array(s.array->text);
  if (s.signal) {
    w.set_signal_number(s.signal->signal);
    w.set_signal_seconds(static_cast<std::int32_t>(s.signal->seconds));
    w.set_signal_batch_only(s.signal->batch_only);
  }
  w.set_script(request.script);
  for (const auto& a : request.script_args) w.add_script_args(a);
  // --chdir relative to the submit directory, as Slurm.
  std::string work_dir = context.cwd;
  if (s.chdir) work_dir = (!s.chdir->empty() && (*s.chdir)[0] == '/') ? *s.chdir : context.cwd + "/" + *s.chdir;
  w.set_work_dir(work_dir);
  // Slurm's Command=: the script file made absolute against the submit directory (golden 092),
  // then its arguments, space-separated as the reference joined them ("s1.sh arg1 two words").
  if (request.script_path && !s.wrap) {
    const std::string& p = *request.script_path;
    std::string command = !p.empty() && p[0] == '/' ? p : context.cwd + "/" + p;
    for (const auto& a : request.script_args) command += " " + a;
    w.set_command(command);
  }
  if (s.output) w.set_std_out(*s.output);
  if (s.error) w.set_std_err(*s.error);
  if (s.input) w.set_std_in(*s.input);
  w.set_open_append(s.open_mode && *s.open_mode == jobspec::OpenMode::Append);
  for (const auto& [k, v] : exportedEnvironment(s, context.environment)) (*w.mutable_environment())[k] = v;
  w.set_export_mode(s.export_env ? s.export_env->text : "ALL");
  // As the reference's sbatch: a given --export is named in the job's variables, and it, like
  // --get-user-env, has the node load the user's login environment under them (drover-stepd).
  if (s.export_env) (*w.mutable_environment())["SLURM_EXPORT_ENV"] = s.export_env->text;
  if (s.export_env || s.get_user_env) (*w.mutable_environment())["SLURM_GET_USER_ENV"] = "1";
  w.set_submit_host(context.host);
  w.set_submit_line(context.submit_line);
  if (s.mail_user) w.set_mail_user(*s.mail_user);
  if (s.mail_type) w.set_mail_type(std::to_string(*s.mail_type));
  w.set_test_only(s.test_only);
  w.set_batch(true);
  if (s.distribution) w.set_distribution(s.distribution->text);
  return w;
}

}  // namespace drover::cli
