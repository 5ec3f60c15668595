// The public API of drover/config.h: load, parse, look up. yaml-cpp exceptions stop here.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <optional>
#include <sstream>
#include <system_error>

#include <yaml-cpp/eventhandler.h>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "config/config_file.h"
#include "config/sections.h"
#include "drover/config.h"

namespace drover::config {
namespace {

// Finds where a second YAML document starts, without building nodes. YAML::LoadAll is not used:
// yaml-cpp 0.7 loops forever on some invalid input there (jbeder/yaml-cpp#1040), so this pass
// looks at no more than two documents.
class SecondDocumentFinder : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> find(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    for (int i = 0; i < 2 && parser.HandleNextDocument(*this); ++i) {
    }
    return second_;
  }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 2) second_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  int documents_ = 0;
  std::optional<YAML::Mark> second_;
};


bool parseDocument(detail::Context& ctx, const YAML::Node& root, const ParseOptions& options,
                   ClusterConfig& out) {
  using namespace detail;
  MapReader m;
  if (!m.open(ctx, root, "",
              {"cluster_name", "controller", "munge_socket", "operators", "timeouts", "nodes",
               "partitions", "scheduler", "accounts", "qos", "steps", "jobs", "bcast"})) {
    return false;
  }
  const YAML::Node* name = m.require(ctx, "cluster_name");
  const YAML::Node* nodes = m.require(ctx, "nodes");
  const YAML::Node* partitions = m.require(ctx, "partitions");
  if (!name || !nodes || !partitions) return false;
  if (!readName(ctx, *name, "cluster_name", out.cluster_name)) return false;

  if (auto* v = m.find("controller")) {
    if (!parseController(ctx, *v, out.controller)) return false;
  } else {
    out.controller.state_dir = ctx.resolvePath(out.controller.state_dir);
  }
  if (auto* v = m.find("munge_socket")) {
    if (!readString(ctx, *v, "munge_socket", out.munge_socket)) return false;
    out.munge_socket = ctx.resolvePath(out.munge_socket);
  }
  if (auto* v = m.find("operators"); v && !readNameList(ctx, *v, "operators", out.operators)) {
    return false;
  }
  if (auto* v = m.find("timeouts"); v && !parseTimeouts(ctx, *v, out.timeouts)) return false;
  if (!parseNodeGroups(ctx, *nodes, options.max_nodes, out.controller, out.nodes)) return false;
  if (!parsePartitions(ctx, *partitions, out.nodes, out.partitions)) return false;
  if (auto* v = m.find("scheduler"); v && !parseScheduler(ctx, *v, out.scheduler)) return false;
  if (auto* v = m.find("qos"); v && !parseQos(ctx, *v, out.qos)) return false;
  if (auto* v = m.find("accounts")) {
    if (!parseAccounts(ctx, *v, out.accounts) || !checkAccountQos(ctx, *v, out.qos, out.accounts)) {
      return false;
    }
  }
  if (auto* v = m.find("steps"); v && !parseSteps(ctx, *v, out.steps)) return false;
  if (auto* v = m.find("bcast"); v && !parseBcast(ctx, *v, out.bcast)) return false;
  if (auto* v = m.find("jobs")) {
    MapReader jobs;
    if (!jobs.open(ctx, *v, "jobs", {"requeue", "requeue_wait"})) return false;
    if (auto* p = jobs.find("requeue");
        p && !readBool(ctx, *p, jobs.path("requeue"), out.jobs.requeue)) {
      return false;
    }
    constexpr std::int64_t kMaxRequeueWaitS = 65535;  // as Slurm's cred_expire, a 16-bit value
    if (auto* p = jobs.find("requeue_wait");
        p && !readInteger(ctx, *p, jobs.path("requeue_wait"), 0, kMaxRequeueWaitS,
                          out.jobs.requeue_wait_s)) {
      return false;
    }
  }
  return true;
}

}  // namespace

const NodeConfig* ClusterConfig::findNode(std::string_view name) const {
  for (const NodeConfig& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

const PartitionConfig* ClusterConfig::findPartition(std::string_view name) const {
  for (const PartitionConfig& p : partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const PartitionConfig* ClusterConfig::defaultPartition() const {
  for (const PartitionConfig& p : partitions) {
    if (p.is_default) return &p;
  }
  return nullptr;
}

const QosConfig* ClusterConfig::findQos(std::string_view name) const {
  for (const QosConfig& q : qos) {
    if (equalsIgnoreCase(q.name, name)) return &q;
  }
  return nullptr;
}

bool ClusterConfig::isOperator(std::uint32_t uid, std::string_view user) const {
  return uid == 0 || std::find(operators.begin(), operators.end(), user) != operators.end();
}

std::string_view partitionStateName(PartitionState state) {
  switch (state) {
    case PartitionState::kUp: return "UP";
    case PartitionState::kDown: return "DOWN";
    case PartitionState::kDrain: return "DRAIN";
    case PartitionState::kInactive: return "INACTIVE";
  }
  return "UNKNOWN";
}

std::string_view preemptModeName(PreemptMode mode) {
  switch (mode) {
    case PreemptMode::kOff: return "OFF";
    case PreemptMode::kCancel: return "CANCEL";
    case PreemptMode::kRequeue: return "REQUEUE";
  }
  return "OFF";
}

std::optional<PreemptMode> preemptModeNamed(std::string_view name) {
  for (PreemptMode mode : {PreemptMode::kOff, PreemptMode::kCancel, PreemptMode::kRequeue}) {
    if (equalsIgnoreCase(name, preemptModeName(mode))) return mode;
  }
  return std::nullopt;
}

bool needsGangScheduler(std::string_view modes) {
  for (const std::string& item : splitCommas(modes)) {
    if (equalsIgnoreCase(item, "SUSPEND") || equalsIgnoreCase(item, "GANG")) return true;
  }
  return false;
}

PreemptMode effectivePreemptMode(const SchedulerConfig& scheduler, const PartitionConfig& p,
                                 const QosConfig* qos) {
  if (scheduler.preempt_type == PreemptType::kNone) return PreemptMode::kOff;
  if (scheduler.preempt_type == PreemptType::kQos && qos && qos->preempt_mode) {
    return *qos->preempt_mode;
  }
  return p.preempt_mode.value_or(scheduler.preempt_mode);
}

std::string_view preemptTypeName(PreemptType type) {
  switch (type) {
    case PreemptType::kNone: return "preempt/none";
    case PreemptType::kPartitionPrio: return "preempt/partition_prio";
    case PreemptType::kQos: return "preempt/qos";
  }
  return "preempt/none";
}

std::string_view backfillPolicyName(BackfillPolicy policy) {
  switch (policy) {
    case BackfillPolicy::kFcfs: return "fcfs";
    case BackfillPolicy::kEasy: return "easy";
    case BackfillPolicy::kConservative: return "conservative";
  }
  return "unknown";
}

Result<ClusterConfig> parseClusterConfig(std::string_view yaml_text, std::string_view file_name) {
  return parseClusterConfig(yaml_text, file_name, ParseOptions{});
}

Result<ClusterConfig> parseClusterConfig(std::string_view yaml_text, std::string_view file_name,
                                         const ParseOptions& options) {
  const std::string file(file_name.empty() ? "<config>" : file_name);
  try {
    detail::Context ctx(file, options.base_dir.empty() ? baseDirOf(file_name)
                                                       : std::filesystem::path(options.base_dir));
    const std::string text(yaml_text);
    const YAML::Node root = YAML::Load(text);
    if (root.IsMap()) {
      if (auto second = SecondDocumentFinder().find(text)) {
        ctx.fail(*second, "a second YAML document ('---'); cluster.conf holds exactly one");
        return ctx.takeError();
      }
    }
    ClusterConfig config;
    config.source_path = file;
    if (!parseDocument(ctx, root, options, config)) return ctx.takeError();
    return config;
  } catch (const YAML::Exception& e) {
    const int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    const int column = e.mark.is_null() ? 1 : e.mark.column + 1;
    return makeError(fmt::format("{}:{}:{}: YAML syntax error: {}", file, line, column, e.msg));
  } catch (const std::exception& e) {
    return makeError(fmt::format("{}:1:1: cannot read configuration: {}", file, e.what()));
  }
}

Result<ClusterConfig> loadClusterConfig(const std::string& path) {
  auto text = readConfigFile(path);
  if (!text) return makeError(text.error());
  auto config = parseClusterConfig(*text, path);
  if (config) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(path, ec);
    if (!ec) config->source_path = abs.lexically_normal().string();
  }
  return config;
}

std::string defaultConfigPath() {
  const char* env = std::getenv("DROVER_CONF");
  if (env && *env) return env;
  return "/etc/drover/cluster.conf";
}

}  // namespace drover::config
