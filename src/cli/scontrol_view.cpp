#include "cli/scontrol_view.h"

#include <vector>

#include "cli/node_state.h"
#include "cli/node_values.h"
#include "drover/time_spec.h"

namespace drover::cli {
namespace {

std::string orNull(const std::string& s) { return s.empty() ? "(null)" : s; }

std::string joinList(const google::protobuf::RepeatedPtrField<std::string>& items,
                     const std::string& empty_text) {
  if (items.empty()) return empty_text;
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string scontrolTime(std::int64_t minutes, const char* unset) {
  if (minutes < 0) return unset;
  return formatDuration(minutes * 60);
}

}  // namespace

// Trailing spaces inside a line stay, as Slurm prints them ("CoresPerSocket=8 ").
std::string joinRecord(const std::vector<std::string>& lines, bool oneliner) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += oneliner ? " " : "\n   ";
    out += lines[i];
  }
  out += oneliner ? "\n" : "\n\n";
  return out;
}

std::string formatNodeRecord(const v1::NodeInfo& n, bool oneliner) {
  const auto& c = n.configured();
  const bool reported = hasReported(n);
  std::vector<std::string> lines;

  std::string first = "NodeName=" + n.name();
  if (!n.arch().empty()) first += " Arch=" + n.arch();
  first += " CoresPerSocket=" + std::to_string(c.cores_per_socket()) + " ";
  lines.push_back(first);

  lines.push_back("CPUAlloc=" + std::to_string(n.alloc_cpus()) + " CPUEfctv=" + std::to_string(c.cpus()) +
                  " CPUTot=" + std::to_string(c.cpus()) +
                  " CPULoad=" + (reported ? formatCpuLoad(n.cpu_load()) : "N/A"));
  const std::string features = joinList(n.features(), "(null)");
  lines.push_back("AvailableFeatures=" + features);
  lines.push_back("ActiveFeatures=" + features);
  lines.push_back("Gres=" + orNull(n.gres()));

  std::string addr = "NodeAddr=" + (n.address().empty() ? n.name() : n.address()) +
                     " NodeHostName=" + (n.hostname().empty() ? n.name() : n.hostname());
  if (n.port() != 0) addr += " Port=" + std::to_string(n.port());
  if (!n.version().empty()) addr += " Version=" + n.version();
  lines.push_back(addr);
  if (!n.os().empty()) lines.push_back("OS=" + n.os() + " ");

  lines.push_back("RealMemory=" + std::to_string(c.real_memory_mb()) +
                  " AllocMem=" + std::to_string(n.alloc_memory_mb()) +
                  " FreeMem=" + (reported ? std::to_string(n.free_memory_mb()) : "N/A") +
                  " Sockets=" + std::to_string(c.sockets()) + " Boards=1");
  lines.push_back("State=" + stateScontrol(n) + " ThreadsPerCore=" + std::to_string(c.threads_per_core()) +
                  " TmpDisk=0 Weight=" + std::to_string(n.weight()) + " Owner=N/A MCS_label=N/A");
  if (n.partitions_size() > 0) lines.push_back("Partitions=" + joinList(n.partitions(), "") + " ");
  lines.push_back("BootTime=" + formatIsoTime(n.boot_time()) +
                  " SlurmdStartTime=" + formatIsoTime(n.agent_start_time()));
  lines.push_back("LastBusyTime=" + formatIsoTime(n.last_busy_time()));
  lines.push_back("CfgTRES=" + nodeCfgTres(n));
  lines.push_back("AllocTRES=" + nodeAllocTres(n));
  lines.push_back("CapWatts=n/a");
  lines.push_back("CurrentWatts=0 AveWatts=0");
  lines.push_back("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
  if (!n.reason().empty()) {
    std::string reason = "Reason=" + n.reason();
    if (!n.reason_user().empty() || n.reason_time() != 0) {
      reason += " [" + (n.reason_user().empty() ? std::string("root") : n.reason_user()) + "@" +
                formatIsoTime(n.reason_time(), "Unknown") + "]";
    }
    lines.push_back(reason);
  }
  return joinRecord(lines, oneliner);
}

std::string formatPartitionRecord(const v1::PartitionInfo& p, bool oneliner) {
  std::vector<std::string> lines;
  lines.push_back("PartitionName=" + p.name());
  lines.push_back("AllowGroups=" + joinList(p.allow_groups(), "ALL") +
                  " AllowAccounts=" + joinList(p.allow_accounts(), "ALL") + " AllowQos=ALL");
  lines.push_back(std::string("AllocNodes=ALL Default=") + (p.is_default() ? "YES" : "NO") + " QoS=N/A");
  lines.push_back("DefaultTime=" + scontrolTime(p.default_time_min(), "NONE") +
                  " DisableRootJobs=NO ExclusiveUser=NO GraceTime=" +
                  std::to_string(p.grace_time_s()) + " Hidden=NO");
  lines.push_back("MaxNodes=" + (p.max_nodes() < 0 ? std::string("UNLIMITED") : std::to_string(p.max_nodes())) +
                  " MaxTime=" + scontrolTime(p.max_time_min(), "UNLIMITED") +
                  " MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED");
  lines.push_back("Nodes=" + orNull(p.nodes()));
  lines.push_back("PriorityJobFactor=" + std::to_string(p.priority_job_factor()) +
                  " PriorityTier=" + std::to_string(p.priority_tier()) +
                  " RootOnly=NO ReqResv=NO OverSubscribe=" + (p.exclusive() ? "EXCLUSIVE" : "NO"));
  lines.push_back("OverTimeLimit=NONE PreemptMode=" +
                  (p.preempt_mode().empty() ? std::string("OFF") : p.preempt_mode()));
  lines.push_back("State=" + (p.state().empty() ? std::string("UP") : p.state()) +
                  " TotalCPUs=" + std::to_string(p.total_cpus()) +
                  " TotalNodes=" + std::to_string(p.total_nodes()) + " SelectTypeParameters=NONE");
  lines.push_back("JobDefaults=(null)");
  lines.push_back("DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED");
  lines.push_back("TRES=" + partitionTres(p));
  return joinRecord(lines, oneliner);
}

}  // namespace drover::cli
