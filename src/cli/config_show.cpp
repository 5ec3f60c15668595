#include "cli/config_show.h"

#include <utility>
#include <vector>

#include "drover/time_spec.h"
#include "drover/slurm_time_format.h"
#include "jobspec/array_spec.h"

namespace drover::cli {
namespace {

std::string orNull(const std::string& value) { return value.empty() ? "(null)" : value; }
std::string seconds(std::int64_t s) { return std::to_string(s) + " sec"; }
std::string yesNo(bool b) { return b ? "Yes" : "No"; }

std::string tresWeights(const config::PriorityWeights& p) {
  std::string out;
  for (const auto& [name, weight] : p.tres) {
    out += (out.empty() ? "" : ",") + name + "=" + std::to_string(weight);
  }
  return orNull(out);
}

// BcastParameters as slurm.conf writes it: only what differs from Slurm's defaults.
std::string bcastParameters(const config::BcastConfig& b) {
  std::string out;
  auto add = [&](const std::string& item) { out += (out.empty() ? "" : ",") + item; };
  if (!b.dest_dir.empty()) add("DestDir=" + b.dest_dir);
  if (b.compression != "none") add("Compression=" + b.compression);
  if (b.send_libs) add("send_libs");
  return orNull(out);
}

bool hasGpus(const config::ClusterConfig& c) {
  for (const auto& n : c.nodes) {
    if (n.gpus.count > 0) return true;
  }
  return false;
}

// AuthInfo as a Slurm admin would have written it: MUNGE's socket, and cred_expire (which makes
// a requeued job wait) when it is not its default of 120 s.
std::string authInfo(const config::ClusterConfig& c) {
  std::string out = c.munge_socket.empty() ? "" : "socket=" + c.munge_socket;
  if (c.jobs.requeue_wait_s != config::JobsConfig{}.requeue_wait_s) {
    out += out.empty() ? "cred_expire=" : ",cred_expire=";
    out += std::to_string(c.jobs.requeue_wait_s);
  }
  return out.empty() ? "(null)" : out;
}

}  // namespace

std::string renderConfig(const config::ClusterConfig& c, const std::string& config_path,
                         std::int64_t now, const std::optional<v1::PingReply>& ping) {
  const config::SchedulerConfig& s = c.scheduler;
  const config::PriorityWeights& p = s.priority;
  // Slurm's order (not quite alphabetical: its Priority* block is its own).
  std::string store_flags;
  if (c.controller.store_job_env) store_flags = "job_env";
  if (c.controller.store_job_script) store_flags += store_flags.empty() ? "job_script" : ",job_script";
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"AccountingStoreFlags", store_flags.empty() ? "(null)" : store_flags},
      {"AuthInfo", authInfo(c)},
      {"AuthType", "auth/munge"},
      {"BcastExclude", config::bcastExcludeText(c.bcast)},
      {"BcastParameters", bcastParameters(c.bcast)},
      {"BOOT_TIME", ping ? formatSlurmTime(ping->start_time()) : "(null)"},
      {"ClusterName", c.cluster_name},
      s.default_mem_per_cpu_mb > 0
          ? std::pair<std::string, std::string>{"DefMemPerCPU", std::to_string(s.default_mem_per_cpu_mb)}
          : std::pair<std::string, std::string>{"DefMemPerNode", "UNLIMITED"},
      {"GresTypes", hasGpus(c) ? "gpu" : "(null)"},
      {"JobRequeue", c.jobs.requeue ? "1" : "0"},
      {"KillWait", seconds(c.timeouts.kill_wait_s)},
      {"MaxArraySize", std::to_string(jobspec::kDefaultMaxArraySize)},
      {"MessageTimeout", seconds(c.timeouts.message_s)},
      {"MpiDefault", c.steps.mpi_default},
      {"PreemptMode", std::string(config::preemptModeName(
                          s.preempt_type != config::PreemptType::kNone ? s.preempt_mode
                                                                       : config::PreemptMode::kOff))},
      {"PreemptType", std::string(config::preemptTypeName(s.preempt_type))},
      {"PreemptExemptTime", formatDuration(s.preempt_exempt_time_s)},
      {"PriorityDecayHalfLife", formatDuration(p.decay_half_life_s)},
      {"PriorityCalcPeriod", formatDuration(p.calc_period_s)},
      {"PriorityFavorSmall", yesNo(p.favor_small)},
      {"PriorityMaxAge", formatDuration(p.max_age_s)},
      {"PriorityType", "priority/multifactor"},
      {"PriorityWeightAge", std::to_string(p.age)},
      {"PriorityWeightAssoc", std::to_string(p.assoc)},
      {"PriorityWeightFairShare", std::to_string(p.fairshare)},
      {"PriorityWeightJobSize", std::to_string(p.job_size)},
      {"PriorityWeightPartition", std::to_string(p.partition)},
      {"PriorityWeightQOS", std::to_string(p.qos)},
      {"PriorityWeightTRES", tresWeights(p)},
      {"ResvOverRun", s.resv_over_run_s < 0 ? "UNLIMITED" : std::to_string(s.resv_over_run_s / 60) + " min"},
      {"SchedulerParameters", s.enable_user_top ? "enable_user_top" : "(null)"},
      {"SchedulerType", s.policy == config::BackfillPolicy::kFcfs ? "sched/builtin" : "sched/backfill"},
      {"SelectType", "select/cons_tres"},
      // The running controller's log level (scontrol setdebug); Slurm's default when it is down.
      {"SlurmctldDebug", ping && !ping->debug_level().empty() ? ping->debug_level() : "info"},
      {"SlurmctldHost[0]", c.controller.host},
      {"SlurmctldPort", std::to_string(c.controller.port)},
      {"SlurmdTimeout", seconds(c.timeouts.node_down_s)},
      {"SLURM_CONF", config_path},
      {"StateSaveLocation", c.controller.state_dir},
  };
  std::string out = "Configuration data as of " + formatSlurmTime(now) + "\n";
  for (const auto& [name, value] : settings) {
    std::string line = name;
    line.resize(std::max<std::size_t>(line.size(), 23), ' ');   // Slurm's name column
    out += line + " = " + value + "\n";
  }
  out += "\nSlurmctld(primary) at " + c.controller.host + (ping ? " is UP\n" : " is DOWN\n");
  return out;
}

}  // namespace drover::cli
