// controller, timeouts, scheduler and steps: flat sections of scalars.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "config/sections.h"
#include "common/ascii_case.h"
#include "common/comma_list.h"

namespace drover::config::detail {
namespace {

constexpr std::int64_t kMaxU32 = 0xFFFFFFFFLL;
constexpr std::int64_t kMaxTimeoutS = 65535;

}  // namespace

bool parseSteps(Context& ctx, const YAML::Node& node, StepsConfig& out) {
  MapReader m;
  if (!m.open(ctx, node, "steps", {"pytorch_env", "mpi_default"})) return false;
  if (auto* v = m.find("pytorch_env");
      v && !readBool(ctx, *v, m.path("pytorch_env"), out.pytorch_env)) {
    return false;
  }
  if (auto* v = m.find("mpi_default")) {
    static constexpr std::string_view kTypes[] = {"none", "pmi2"};
    std::size_t which = 0;
    if (!readChoice(ctx, *v, m.path("mpi_default"), {kTypes[0], kTypes[1]}, which)) return false;
    out.mpi_default = std::string(kTypes[which]);
  }
  return true;
}

bool parseController(Context& ctx, const YAML::Node& node, ControllerConfig& out) {
  MapReader m;
  if (!m.open(ctx, node, "controller",
              {"host", "port", "cli_port", "state_dir", "accounting_store_flags"})) {
    return false;
  }
  if (auto* v = m.find("host"); v && !readString(ctx, *v, m.path("host"), out.host)) return false;
  if (auto* v = m.find("port"); v && !readInteger(ctx, *v, m.path("port"), 1, 65535, out.port)) {
    return false;
  }
  if (auto* v = m.find("cli_port");
      v && !readInteger(ctx, *v, m.path("cli_port"), 1, 65535, out.cli_port)) {
    return false;
  }
  if (auto* v = m.find("state_dir")) {
    if (!readString(ctx, *v, m.path("state_dir"), out.state_dir)) return false;
  }
  out.state_dir = ctx.resolvePath(out.state_dir);
  if (auto* v = m.find("accounting_store_flags")) {
    std::string text;
    if (!readString(ctx, *v, m.path("accounting_store_flags"), text)) return false;
    for (const std::string& flag : splitCommas(text)) {
      if (equalsIgnoreCase(flag, "job_script")) {
        out.store_job_script = true;
      } else if (equalsIgnoreCase(flag, "job_env")) {
        out.store_job_env = true;
      } else {
        return ctx.fail(v->Mark(), fmt::format("{}: unknown flag '{}' (accepted: job_script, job_env)",
                                               m.path("accounting_store_flags"), flag));
      }
    }
  }
  return true;
}

bool parseTimeouts(Context& ctx, const YAML::Node& node, Timeouts& out) {
  MapReader m;
  if (!m.open(ctx, node, "timeouts", {"heartbeat_interval", "node_down", "kill_wait", "message"})) {
    return false;
  }
  struct Field {
    const char* key;
    std::uint32_t* value;
  };
  for (const Field& f : {Field{"heartbeat_interval", &out.heartbeat_interval_s},
                         Field{"node_down", &out.node_down_s}, Field{"kill_wait", &out.kill_wait_s},
                         Field{"message", &out.message_s}}) {
    if (auto* v = m.find(f.key); v && !readInteger(ctx, *v, m.path(f.key), 1, kMaxTimeoutS, *f.value)) {
      return false;
    }
  }
  // A node must miss several heartbeats before it is declared down, or it flaps.
  if (out.node_down_s <= out.heartbeat_interval_s) {
    const YAML::Node* at = m.find("node_down") ? m.find("node_down") : m.find("heartbeat_interval");
    return ctx.fail(at ? at->Mark() : node.Mark(),
                    fmt::format("timeouts: node_down ({} s) must be greater than "
                                "heartbeat_interval ({} s)",
                                out.node_down_s, out.heartbeat_interval_s));
  }
  return true;
}

namespace {

// PriorityWeightTRES as Slurm writes it, "cpu=1000,mem=2000,gres/gpu=3000" (names are case
// insensitive, stored lower case); only the TRES Drover counts are accepted.
bool parseTresWeights(Context& ctx, const YAML::Node& node, const std::string& path,
                      std::vector<std::pair<std::string, std::int64_t>>& out) {
  std::string text;
  if (!readString(ctx, node, path, text)) return false;
  static const std::vector<std::string> known = {"cpu", "mem", "node", "gres/gpu"};
  out.clear();
  for (const std::string& item : splitCommas(text)) {
    const std::size_t eq = item.find('=');
    const std::string name = toLowerAscii(item.substr(0, eq));
    if (eq == std::string::npos ||
        std::find(known.begin(), known.end(), name) == known.end()) {
      return ctx.fail(node, fmt::format("{}: '{}' is not TRES=weight for a TRES Drover counts; "
                                        "accepted: cpu, mem, node, gres/gpu (e.g. "
                                        "cpu=1000,mem=2000,gres/gpu=3000)",
                                        path, item));
    }
    const std::string value = item.substr(eq + 1);
    char* end = nullptr;
    const long long weight = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || end == nullptr || *end != '\0' || weight < -kMaxU32 || weight > kMaxU32) {
      return ctx.fail(node, fmt::format("{}: weight '{}' of {} is not an integer", path, value,
                                        name));
    }
    out.emplace_back(name, weight);
  }
  return true;
}

bool parsePriority(Context& ctx, const YAML::Node& node, PriorityWeights& out) {
  MapReader m;
  if (!m.open(ctx, node, "scheduler.priority",
              {"weight_age", "weight_fairshare", "weight_job_size", "weight_partition", "weight_qos",
               "weight_assoc", "weight_tres", "favor_small", "max_age", "decay_half_life",
               "calc_period"})) {
    return false;
  }
  struct Weight {
    const char* key;
    std::uint32_t* value;
  };
  for (const Weight& w : {Weight{"weight_age", &out.age}, Weight{"weight_fairshare", &out.fairshare},
                          Weight{"weight_job_size", &out.job_size},
                          Weight{"weight_partition", &out.partition},
                          Weight{"weight_qos", &out.qos}, Weight{"weight_assoc", &out.assoc}}) {
    if (auto* v = m.find(w.key); v && !readInteger(ctx, *v, m.path(w.key), 0, kMaxU32, *w.value)) {
      return false;
    }
  }
  if (auto* v = m.find("weight_tres"); v && !parseTresWeights(ctx, *v, m.path("weight_tres"), out.tres)) {
    return false;
  }
  if (auto* v = m.find("favor_small"); v && !readBool(ctx, *v, m.path("favor_small"), out.favor_small)) {
    return false;
  }
  if (auto* v = m.find("max_age"); v && !readDurationSeconds(ctx, *v, m.path("max_age"), out.max_age_s)) {
    return false;
  }
  if (auto* v = m.find("decay_half_life");
      v && !readDurationSeconds(ctx, *v, m.path("decay_half_life"), out.decay_half_life_s)) {
    return false;
  }
  if (auto* v = m.find("calc_period")) {
    if (!readDurationSeconds(ctx, *v, m.path("calc_period"), out.calc_period_s)) return false;
    if (out.calc_period_s <= 0) {
      return ctx.fail(*v, fmt::format("{}: must be at least one second (minutes, or MM:SS)",
                                      m.path("calc_period")));
    }
  }
  return true;
}

}  // namespace

bool parseScheduler(Context& ctx, const YAML::Node& node, SchedulerConfig& out) {
  MapReader m;
  if (!m.open(ctx, node, "scheduler", {"policy", "coalesce_ms", "estimate_depth",
                                          "default_mem_per_cpu", "priority",
                                          "resv_over_run", "enable_user_top", "preempt_type",
                                          "preempt_mode", "preempt_exempt_time"})) {
    return false;
  }
  if (auto* v = m.find("policy")) {
    std::size_t i = 0;
    if (!readChoice(ctx, *v, m.path("policy"), {"fcfs", "easy", "conservative"}, i)) return false;
    out.policy = static_cast<BackfillPolicy>(i);
  }
  if (auto* v = m.find("coalesce_ms"); v && !readInteger(ctx, *v, m.path("coalesce_ms"), 0, 60000, out.coalesce_ms)) {
    return false;
  }
  if (auto* v = m.find("estimate_depth");
      v && !readInteger(ctx, *v, m.path("estimate_depth"), 0, 1000000, out.estimate_depth)) {
    return false;
  }
  if (auto* v = m.find("default_mem_per_cpu");
      v && !readMemoryMb(ctx, *v, m.path("default_mem_per_cpu"), out.default_mem_per_cpu_mb)) {
    return false;
  }
  if (auto* v = m.find("priority"); v && !parsePriority(ctx, *v, out.priority)) return false;
  if (auto* v = m.find("enable_user_top");
      v && !readBool(ctx, *v, m.path("enable_user_top"), out.enable_user_top)) {
    return false;
  }
  if (auto* v = m.find("preempt_type")) {
    std::size_t i = 0;
    if (!readChoice(ctx, *v, m.path("preempt_type"), {"none", "partition_prio", "qos"}, i)) {
      return false;
    }
    out.preempt_type = static_cast<PreemptType>(i);
  }
  if (auto* v = m.find("preempt_mode");
      v && !readPreemptMode(ctx, *v, m.path("preempt_mode"), out.preempt_mode)) {
    return false;
  }
  // Slurm's time formats (a bare number is minutes, "0:30" 30 seconds).
  if (auto* v = m.find("preempt_exempt_time");
      v && !readDurationSeconds(ctx, *v, m.path("preempt_exempt_time"), out.preempt_exempt_time_s)) {
    return false;
  }
  if (auto* v = m.find("resv_over_run")) {
    // A duration, or UNLIMITED: jobs outlive their reservation's end.
    if (v->IsScalar() && (v->Scalar() == "UNLIMITED" || v->Scalar() == "unlimited")) {
      out.resv_over_run_s = -1;
    } else if (!readDurationSeconds(ctx, *v, m.path("resv_over_run"), out.resv_over_run_s)) {
      return false;
    }
  }
  return true;
}

}  // namespace drover::config::detail
