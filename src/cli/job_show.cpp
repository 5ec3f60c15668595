#include "cli/job_show.h"

#include "jobstate/gres_text.h"

#include <string>
#include <vector>

#include "cli/job_values.h"
#include "cli/node_values.h"
#include "drover/hostlist.h"
#include "jobstate/eligible_time.h"

namespace drover::cli {
namespace {

std::string orNull(const std::string& s) { return s.empty() ? "(null)" : s; }
std::string timeOr(std::int64_t t, const char* none) { return t > 0 ? formatIsoTime(t, none) : none; }

std::string cpuIds(std::uint32_t cpus) {
  if (cpus == 0) return "";
  return cpus == 1 ? "0" : "0-" + std::to_string(cpus - 1);
}

std::string gpuIdx(const v1::NodeAllocation& a) {
  // The indices as a range list: "0-7", "0,2".
  std::string out;
  std::size_t i = 0;
  const auto& g = a.gpu_indices();
  while (i < static_cast<std::size_t>(g.size())) {
    std::size_t j = i;
    while (j + 1 < static_cast<std::size_t>(g.size()) && g[static_cast<int>(j + 1)] == g[static_cast<int>(j)] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(g[static_cast<int>(i)]);
    if (j > i) out += "-" + std::to_string(g[static_cast<int>(j)]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string formatJobRecord(const v1::JobInfo& j, std::int64_t now, bool oneliner, bool details) {
  const bool pending = j.state() == v1::JOB_PENDING;
  const bool started = j.start_time() > 0 && !pending;
  std::vector<std::string> lines;
  std::string first = "JobId=" + std::to_string(j.job_id());
  if (j.array_job_id() != 0) {
    first += " ArrayJobId=" + std::to_string(j.array_job_id()) + " ArrayTaskId=" + arrayTaskText(j);
    if (j.array_max_running() > 0) first += " ArrayTaskThrottle=" + std::to_string(j.array_max_running());
  }
  first += " JobName=" + j.name();
  lines.push_back(first);
  lines.push_back("UserId=" + j.user() + "(" + std::to_string(j.uid()) + ") GroupId=" + j.group() + "(" +
                  std::to_string(j.gid()) + ") MCS_label=N/A");
  lines.push_back("Priority=" + std::to_string(shownPriority(j)) + " Nice=" + std::to_string(j.nice()) +
                  " Account=" + orNull(j.account()) + " QOS=" + (j.qos().empty() ? "normal" : j.qos()));
  lines.push_back("JobState=" + std::string(jobStateName(j.state())) +
                  " Reason=" + scontrolReasonText(j) +
                  " Dependency=" +
                  orNull(j.dependency().empty() ? std::string() : j.dependency_status()));
  const std::string exit_code = std::to_string(j.exit_code()) + ":" + std::to_string(j.exit_signal());
  lines.push_back(std::string("Requeue=") + (j.requeue() ? "1" : "0") + " Restarts=" +
                  std::to_string(j.restart_count()) + " BatchFlag=" + (j.batch() ? "1" : "0") +
                  " Reboot=0 ExitCode=" + exit_code);
  if (details) {
    lines.push_back("DerivedExitCode=" + std::to_string(j.derived_exit_code()) + ":" +
                    std::to_string(j.derived_exit_signal()));
  }
  const std::int64_t run = pending ? 0 : jobRunTime(j, now);
  lines.push_back("RunTime=" + formatScontrolDuration(run) + " TimeLimit=" +
                  formatScontrolLimit(j.time_limit_min()) + " TimeMin=" +
                  (j.spec().time_min_min() > 0 ? formatScontrolLimit(j.spec().time_min_min()) : "N/A"));
  // As the reference printed them: a job waiting for its --begin time is eligible (and accrues
  // age) from that time, held or not (Drover stamps eligible_time only when it comes), and the
  // waiting tasks of a throttled array are not eligible yet (their AccrueTime the reference
  // printed as the submit time or Unknown, from one capture to the next: Drover's is its
  // eligible time).
  const std::int64_t accrue = shownEligibleTime(j);
  const std::int64_t eligible = pending && j.reason() == "JobArrayTaskLimit" ? 0 : accrue;
  lines.push_back("SubmitTime=" + timeOr(j.submit_time(), "Unknown") +
                  " EligibleTime=" + timeOr(eligible, "Unknown"));
  lines.push_back("AccrueTime=" + timeOr(accrue, "Unknown"));
  lines.push_back("StartTime=" + timeOr(j.start_time(), "Unknown") + " EndTime=" +
                  timeOr(jobEndTime(j), "Unknown") + " Deadline=" + timeOr(j.spec().deadline(), "N/A"));
  // Drover has no separate scheduler-evaluation stamp: the start (or submit) time stands in.
  const std::int64_t sched_eval = j.start_time() > 0 && started ? j.start_time() : j.submit_time();
  // As the reference: for every job that has started and may be preempted (its mode is not
  // OFF, or it was preempted), running or ended, PreemptTime=None until it is; the controller
  // tells which (JobInfo.preempt_eligible_time).
  if (j.preempt_eligible_time() > 0) {
    lines.push_back("PreemptEligibleTime=" + timeOr(j.preempt_eligible_time(), "None") +
                    " PreemptTime=" + timeOr(j.preempt_time(), "None"));
  }
  lines.push_back("SuspendTime=" + timeOr(j.suspend_time(), "None") +
                  " SecsPreSuspend=0 LastSchedEval=" + timeOr(sched_eval, "Unknown") + " Scheduler=Main");
  lines.push_back("Partition=" + j.partition() + " AllocNode:Sid=" +
                  (j.spec().submit_host().empty() ? std::string("(null)") : j.spec().submit_host()) + ":*");
  // Slurm prints the line only for a job that asked for a reservation (goldens 086-089 have none).
  if (!j.spec().reservation().empty()) lines.push_back("Reservation=" + j.spec().reservation());
  lines.push_back("ReqNodeList=" + orNull(j.req_nodes()) + " ExcNodeList=" + orNull(j.exc_nodes()));
  std::string nodelist = "NodeList=" + (pending ? std::string() : j.nodes());
  if ((pending || j.nodes().empty()) && !j.sched_nodes().empty()) nodelist += " SchedNodeList=" + j.sched_nodes();
  lines.push_back(nodelist);
  if (!j.batch_host().empty() && started) lines.push_back("BatchHost=" + j.batch_host());
  std::string num_nodes = std::to_string(j.num_nodes());
  // A pending job that asked for a node count (-N) shows min-max, "4-4" for -N 4 (golden 087).
  if (pending && (j.spec().max_nodes() > 0 || j.spec().min_nodes() > 0)) {
    const std::uint32_t lo = std::max(j.num_nodes(), j.spec().min_nodes());
    num_nodes = std::to_string(lo) + "-" + std::to_string(std::max(lo, j.spec().max_nodes()));
  }
  const bool never_ran = !pending && j.start_time() > 0 && j.start_time() == j.end_time() && j.nodes().empty();
  lines.push_back("NumNodes=" + num_nodes + " NumCPUs=" + std::to_string(j.num_cpus()) +
                  " NumTasks=" + (never_ran ? std::string("N/A") : std::to_string(j.num_tasks())) +
                  " CPUs/Task=" + std::to_string(std::max(1u, j.spec().cpus_per_task())) +
                  " ReqB:S:C:T=0:0:*:*");
  const std::string& tres = started && !j.alloc_tres().empty() ? j.alloc_tres() : j.req_tres();
  lines.push_back("TRES=" + scontrolTres(tres));
  lines.push_back("Socks/Node=* NtasksPerN:B:S:C=" + std::to_string(j.spec().ntasks_per_node()) +
                  ":0:*:* CoreSpec=*");
  if (details) {
    // -d: the allocation per node ("JOB_GRES=gpu:24" then one line per node).
    std::uint32_t gpus = 0;
    for (const auto& a : j.allocation()) gpus += static_cast<std::uint32_t>(a.gpu_indices_size());
    if (!j.allocation().empty()) {
      lines.push_back("JOB_GRES=" + (gpus > 0 ? "gpu:" + std::to_string(gpus) : std::string("(null)")));
      // Nodes with the same share are listed once, as a host list (Slurm groups them too).
      std::vector<std::pair<std::string, std::vector<std::string>>> groups;
      for (const auto& a : j.allocation()) {
        std::string share = " CPU_IDs=" + cpuIds(a.cpus()) + " Mem=" + std::to_string(a.memory_mb()) + " GRES=";
        if (a.gpu_indices_size() > 0)
          share += "gpu:" + std::to_string(a.gpu_indices_size()) + "(IDX:" + gpuIdx(a) + ")";
        if (!groups.empty() && groups.back().first == share) groups.back().second.push_back(a.node());
        else groups.push_back({share, {a.node()}});
      }
      for (const auto& [share, nodes] : groups) lines.push_back("  Nodes=" + hostlist::compress(nodes) + share);
    }
  }
  const MinMemory mem = minMemory(j);
  lines.push_back("MinCPUsNode=" + std::to_string(std::max(1u, j.spec().cpus_per_task())) +
                  (mem.per_cpu ? " MinMemoryCPU=" : " MinMemoryNode=") + mem.text + " MinTmpDiskNode=0");
  lines.push_back("Features=" + orNull(j.features()) + " DelayBoot=00:00:00");
  // Shown while set, as the reference's (`Prefer=` too for an empty --prefer=).
  if (j.spec().has_prefer()) lines.push_back("Prefer=" + j.spec().prefer());
  lines.push_back(std::string("OverSubscribe=") + (j.spec().exclusive() ? "NO" : "OK") +
                  " Contiguous=0 Licenses=(null) Network=(null)");
  lines.push_back("Command=" + orNull(j.command()));
  lines.push_back("WorkDir=" + j.work_dir());
  if (!j.spec().comment().empty()) lines.push_back("Comment=" + j.spec().comment());
  lines.push_back("StdErr=" + j.std_err());
  lines.push_back("StdIn=" + (j.std_in().empty() ? std::string("/dev/null") : j.std_in()));
  lines.push_back("StdOut=" + j.std_out());
  lines.push_back("Power=");
  // Each per-TRES request the job made, in the reference's order.
  const std::pair<const char*, std::string> per_tres[] = {
      {"CpusPerTres=", cpusPerTresText(j.spec())}, {"MemPerTres=", memPerTresText(j.spec())},
      {"TresBind=", tresBindText(j.spec())},
      {"TresFreq=", tresFreqText(j.spec())},
      {"TresPerJob=", tresPerJobText(j.spec())},
      {"TresPerNode=", tresPerNode(j)},            {"TresPerTask=", tresPerTaskText(j.spec())}};
  for (const auto& [key, text] : per_tres)
    if (!text.empty()) lines.push_back(key + text);
  if (j.spec().ntasks_per_gpu() > 0) {
    lines.push_back("NtasksPerTRES=" + std::to_string(j.spec().ntasks_per_gpu()));
  }

  std::string out;
  if (oneliner) {
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? " " : "") + lines[i];
    return out + " \n";
  }
  out = lines.front() + "\n";
  for (std::size_t i = 1; i < lines.size(); ++i) out += "   " + lines[i] + "\n";
  return out + "   \n\n";
}

}  // namespace drover::cli
