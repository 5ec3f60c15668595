#include "cli/srun_step.h"
#include "common/slurm_errors.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/job_spec_wire.h"
#include "common/ascii_case.h"
#include "jobspec/array_spec.h"
#include "jobspec/build_spec.h"

namespace drover::cli {
namespace {

std::string baseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string workDir(const jobspec::JobSpec& s, const std::string& cwd) {
  if (!s.chdir) return cwd;
  if (!s.chdir->empty() && (*s.chdir)[0] == '/') return *s.chdir;
  return cwd + "/" + *s.chdir;
}

std::vector<std::string> nonEmptyLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::optional<std::uint64_t> allocationJobId(const jobspec::JobSpec& spec) {
  if (spec.jobid) return *spec.jobid;
  return std::nullopt;
}

std::string stepName(const jobspec::StepRequest& request, bool inside_allocation) {
  const auto& s = request.spec;
  if (s.job_name) {
    auto it = s.sources.find("job-name");
    const bool from_env = it != s.sources.end() && it->second == jobspec::OptionSource::Environment;
    if (!(inside_allocation && from_env)) return *s.job_name;
  }
  return request.command.empty() ? std::string() : baseName(request.command.front());
}

v1::StepSpec toStepSpec(const jobspec::StepRequest& request, const StepContext& context,
                        std::uint64_t job_id, bool inside_allocation) {
  const jobspec::JobSpec& s = request.spec;
  v1::StepSpec w;
  w.set_job_id(job_id);
  w.set_in_allocation(inside_allocation);
  w.set_name(stepName(request, inside_allocation));
  if (s.nodes) {
    w.set_min_nodes(s.nodes->min);
    w.set_max_nodes(s.nodes->max);
  }
  if (s.ntasks) w.set_ntasks(*s.ntasks);
  if (s.ntasks_per_node) w.set_ntasks_per_node(*s.ntasks_per_node);
  if (s.cpus_per_task) w.set_cpus_per_task(*s.cpus_per_task);
  if (s.distribution) w.set_distribution(s.distribution->text);
  w.set_gpu_freq(s.gpu_freq);
  if (s.nodelist) w.set_nodelist(*s.nodelist);
  if (s.exclude) w.set_exclude(*s.exclude);
  w.set_exclusive(s.exclusive.has_value());
  w.set_overlap(s.overlap);
  setGpuRequests(s, w);
  if (s.mem_mb) w.set_mem_per_node_mb(*s.mem_mb);
  if (s.time_limit_minutes) w.set_time_limit_min(*s.time_limit_minutes);
  for (const auto& a : request.command) w.add_argv(a);
  if (context.multi_prog) *w.mutable_multi_prog() = *context.multi_prog;
  for (const auto& [k, v] : exportedEnvironment(s, context.environment)) (*w.mutable_environment())[k] = v;
  // srun's own variables in its tasks (goldens 049-051): its umask, its verbosity, -l.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  char umask_text[8];
  std::snprintf(umask_text, sizeof umask_text, "%04o", static_cast<unsigned>(mask & 07777));
  (*w.mutable_environment())["SLURM_UMASK"] = umask_text;
  (*w.mutable_environment())["SRUN_DEBUG"] = "3";
  if (s.label) (*w.mutable_environment())["SLURM_LABELIO"] = "1";
  // The reference's srun told its tasks --ntasks-per-gpu as a per-TRES count too (undocumented).
  if (s.ntasks_per_gpu)
    (*w.mutable_environment())["SLURM_NTASKS_PER_TRES"] = std::to_string(*s.ntasks_per_gpu);
  w.set_work_dir(workDir(s, context.cwd));
  if (s.output) w.set_std_out(*s.output);
  if (s.error) w.set_std_err(*s.error);
  if (auto plan = stdinPlan(s); plan.file_pattern) w.set_std_in(*plan.file_pattern);
  w.set_kill_on_bad_exit(s.kill_on_bad_exit);
  w.set_pty(s.pty);  // its window size is srun's terminal's, read when the step starts
  w.set_submit_line(context.submit_line);
  w.set_srun_host(context.host);
  w.set_srun_pid(context.pid);
  if (s.cpu_bind) w.set_cpu_bind(*s.cpu_bind);
  if (auto bind = jobspec::stepGpuBind(s)) w.set_gpu_bind(*bind);
  if (s.mpi) w.set_mpi(*s.mpi);
  w.set_open_append(s.open_mode && *s.open_mode == jobspec::OpenMode::Append);
  return w;
}

v1::JobSpec toAllocationSpec(const jobspec::StepRequest& request, const StepContext& context,
                             const std::string& default_name) {
  jobspec::BatchRequest batch;
  batch.spec = request.spec;
  // srun's per-task I/O patterns belong to the step, not to the allocation.
  batch.spec.output.reset();
  batch.spec.error.reset();
  batch.spec.input.reset();
  SubmitContext submit;
  submit.environment = context.environment;
  submit.cwd = context.cwd;
  submit.host = context.host;
  submit.submit_line = context.submit_line;
  v1::JobSpec w = toWireSpec(batch, submit);
  w.set_batch(false);
  w.clear_script();
  if (!request.spec.job_name) {
    w.set_name(request.command.empty() ? default_name : baseName(request.command.front()));
  }
  return w;
}

void setPtyRequest(v1::StepSpec& spec, std::uint16_t rows, std::uint16_t cols,
                   std::uint16_t io_port) {
  auto& env = *spec.mutable_environment();
  env["SLURM_PTY_PORT"] = std::to_string(io_port);
  if (rows == 0 || cols == 0) return;
  spec.set_pty_rows(rows);
  spec.set_pty_cols(cols);
  env["SLURM_PTY_WIN_ROW"] = std::to_string(rows);
  env["SLURM_PTY_WIN_COL"] = std::to_string(cols);
}

StdinPlan stdinPlan(const jobspec::JobSpec& spec) {
  StdinPlan plan;
  if (!spec.input) return plan;
  const std::string& in = *spec.input;
  if (in == "all") {
    plan.mode = stepio::StdinMode::kAllTasks;
  } else if (in == "none") {
    plan.mode = stepio::StdinMode::kNone;
  } else if (allAsciiDigits(in)) {
    plan.mode = stepio::StdinMode::kOneTask;
    plan.task = static_cast<std::uint32_t>(std::stoul(in.substr(0, 9)));
  } else {
    plan.mode = stepio::StdinMode::kNone;
    plan.file_pattern = in;
  }
  return plan;
}

std::string compressRanks(std::vector<std::uint32_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return jobspec::compressIds(ranks);
}

std::vector<std::string> taskEndLines(const std::vector<stepio::TaskEnd>& ends) {
  struct Group {
    std::string node, outcome;
    std::vector<std::uint32_t> ranks;
  };
  std::vector<Group> groups;
  for (const stepio::TaskEnd& end : ends) {
    std::string outcome = stepio::taskOutcome(end);
    if (outcome.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.node == end.node_name && g.outcome == outcome;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{end.node_name, outcome, {}});
    it->ranks.push_back(end.rank);
  }
  std::vector<std::string> lines;
  for (const Group& g : groups) {
    lines.push_back("srun: error: " + g.node + (g.ranks.size() == 1 ? ": task " : ": tasks ") +
                    compressRanks(g.ranks) + ": " + g.outcome);
  }
  return lines;
}

const std::string kAllocPrefix = "Job submit/allocate failed: ";

std::string formatAllocFailure(std::string_view prog, const std::string& controller_message) {
  static const std::string kBatchPrefix = "Batch job submission failed: ";
  static const std::string kSrunPrefix = "Unable to allocate resources: ";
  const std::string& prefix = prog == "salloc" ? kAllocPrefix : kSrunPrefix;
  auto lines = nonEmptyLines(controller_message);
  if (lines.empty()) lines.push_back("Unexpected failure");
  std::string& last = lines.back();
  for (const std::string* known : {&kBatchPrefix, &kSrunPrefix, &kAllocPrefix}) {
    if (last.rfind(*known, 0) == 0) last = last.substr(known->size());
  }
  last = prefix + last;
  std::string out;
  for (const auto& l : lines) out += std::string(prog) + ": error: " + l + "\n";
  return out;
}

std::string formatStepFailure(std::uint64_t job_id, const std::string& controller_message) {
  // A job that is not there (any more): the reference's srun said so while confirming the
  // allocation, before any step, and pointed at SLURM_JOB_ID.
  const std::string id = std::to_string(job_id);
  const std::string check =
      "srun: Check SLURM_JOB_ID environment variable. Expired or invalid job " + id + "\n";
  if (controller_message == kInvalidJobId) {
    return "srun: error: Unable to confirm allocation for job " + id + ": " + controller_message +
           "\n" + check;
  }
  if (controller_message == kAlreadyDone) {
    return "srun: error: Slurm job " + id + " has expired\n" + check;
  }
  auto lines = nonEmptyLines(controller_message);
  if (lines.empty()) lines.push_back("Unexpected failure");
  std::string out;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) out += "srun: error: " + lines[i] + "\n";
  return out + "srun: error: Unable to create step for job " + std::to_string(job_id) + ": " +
         lines.back() + "\n";
}

AllocationEnd allocationEndOf(int status) {
  if (status > 128) return {0, status - 128};
  return {status, 0};
}

}  // namespace drover::cli
