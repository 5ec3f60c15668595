// The sacct field table: name, default width, alignment and how each value is printed for a job
// row and for a step row (blank where Slurm leaves it blank).
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "acct/report/sacct_values.h"
#include "drover/time_spec.h"
#include "acct/report/size_units.h"
#include "acct/tres_counts.h"
#include "drover/slurm_time_format.h"

namespace drover::acct::report {
namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

template <typename T>
std::string opt(const std::optional<T>& v) {
  return v ? std::to_string(*v) : std::string();
}

std::string optSize(const std::optional<std::int64_t>& kb) {
  return kb ? formatSizeKb(*kb) : std::string();
}

// MaxRSS and the like: as --units/--noconvert say (size_units.h).
std::string optUsageSize(const std::optional<std::int64_t>& kb) {
  return kb ? formatUsageSizeKb(*kb) : std::string();
}

std::string optDuration(const std::optional<std::int64_t>& s) {
  return s ? formatSacctDuration(*s) : std::string();
}

std::string optMb(const std::optional<double>& mb) {
  return mb ? formatDiskMb(*mb) : std::string();
}

std::string optFreq(const std::optional<std::int64_t>& khz) {
  return khz ? formatCpuFreqKhz(*khz) : std::string();
}

// A number scaled by `divisor` through `units`, two decimals unless whole.
std::string scaled(double value, double divisor, const char* units) {
  std::size_t unit = 0;
  while (units[unit + 1] != '\0' && value >= divisor) {
    value /= divisor;
    ++unit;
  }
  char buf[64];
  if (value == static_cast<double>(static_cast<std::int64_t>(value))) {
    std::snprintf(buf, sizeof buf, "%.0f%c", value, units[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f%c", value, units[unit]);
  }
  return buf;
}

std::string exitText(const ExitStatus& e) { return num(e.code) + ":" + num(e.signal); }

std::int64_t elapsedOf(std::int64_t start, std::int64_t end, std::int64_t suspended,
                       std::int64_t now) {
  if (start <= 0) return 0;
  std::int64_t stop = end > 0 ? end : now;
  return std::max<std::int64_t>(0, stop - start - suspended);
}

std::int64_t elapsed(const Row& r) {
  return r.step ? elapsedOf(r.step->start, r.step->end, r.step->suspended_sec, r.now)
                : elapsedOf(r.job->start, r.job->end, r.job->suspended_sec, r.now);
}

std::uint32_t cpus(const Row& r) { return r.step ? r.step->ncpus : r.job->ncpus; }

// A job row reports the CPU time of all its steps, as Slurm does.
std::int64_t cpuUsec(const Row& r, bool user, bool system) {
  auto one = [&](const Usage& u) {
    return (user ? u.user_cpu_usec : 0) + (system ? u.system_cpu_usec : 0);
  };
  if (r.step) return one(r.step->usage);
  std::int64_t total = 0;
  if (r.steps) {
    for (const auto& s : *r.steps) total += one(s.usage);
  }
  return total;
}

std::string jobOnly(const Row& r, const std::string& v) { return r.step ? std::string() : v; }

std::string stateText(const Row& r) {
  if (r.step) return std::string(jobStateName(r.step->state));
  std::string s(jobStateName(r.job->state));
  if (r.job->state == JobState::kCancelled && r.job->cancelled_by) {
    s += " by " + std::to_string(*r.job->cancelled_by);
  }
  return s;
}

std::string timeLimitText(std::int64_t minutes) {
  if (minutes == kTimeLimitUnlimited) return "UNLIMITED";
  if (minutes == kTimeLimitUnset) return "Partition_Limit";
  return formatSacctDuration(minutes * 60);
}

std::string freq(const Row& r, const std::optional<std::uint32_t> StepRecord::*member) {
  if (!r.step || !(r.step->*member)) return "Unknown";
  return std::to_string(*(r.step->*member));
}

// ReqMem: the job's whole request, as Slurm's (the mem of its ReqTRES): --mem per node times
// the nodes (golden 117: --mem=1G on 2 nodes is 2G), --mem-per-cpu times the CPUs; for
// --mem=0 (all of each node's memory) its ReqTRES's, as the reference's 128G for `-N2`.
std::int64_t requestedMemMb(const JobRecord& job) {
  if (job.req_mem_mb == 0 && !job.req_mem_per_cpu) {
    const auto tres = parseTresCounts(job.req_tres);
    const auto mem = tres.find("mem");
    return mem == tres.end() ? 0 : static_cast<std::int64_t>(mem->second);
  }
  const auto each = static_cast<std::int64_t>(job.req_mem_mb);
  const std::int64_t times = job.req_mem_per_cpu ? job.req_cpus : job.req_nodes;
  return each * std::max<std::int64_t>(1, times);
}

const Usage* usage(const Row& r) { return r.step ? &r.step->usage : nullptr; }

#define USAGE(expr) [](const Row& r) -> std::string { \
    const Usage* u = usage(r);                        \
    return u ? (expr) : std::string();                \
  }

const std::vector<FieldDef>& table() {
  static const std::vector<FieldDef> kTable = {
      {{"Account", 10, false}, [](const Row& r) { return r.job->account; }},
      {{"AdminComment", 20, false}, [](const Row& r) { return jobOnly(r, r.job->admin_comment); }},
      {{"AllocCPUS", 10, false, Cut::kNone}, [](const Row& r) { return num(cpus(r)); }},
      {{"AllocNodes", 10, false, Cut::kNone},
       [](const Row& r) { return num(r.step ? r.step->nnodes : r.job->nnodes); }},
      {{"AllocTRES", 10, false},
       [](const Row& r) { return convertTresSizes(r.step ? r.step->alloc_tres : r.job->alloc_tres); }},
      // The association's id as sshare numbers it now (steps too, as the reference's).
      {{"AssocID", 7, false}, [](const Row& r) { return num(r.job->assoc_id); }},
      {{"AveCPU", 10, false}, USAGE(optDuration(u->ave_cpu_sec))},
      {{"AveCPUFreq", 10, false}, USAGE(optFreq(u->ave_cpu_freq_khz))},
      {{"AveDiskRead", 14, false}, USAGE(optMb(u->ave_disk_read_mb))},
      {{"AveDiskWrite", 14, false}, USAGE(optMb(u->ave_disk_write_mb))},
      {{"AvePages", 10, false}, USAGE(optSize(u->ave_pages))},
      {{"AveRSS", 10, false}, USAGE(optUsageSize(u->ave_rss_kb))},
      {{"AveVMSize", 10, false}, USAGE(optUsageSize(u->ave_vmsize_kb))},
      {{"BlockID", 16, false}, [](const Row&) { return std::string(); }},
      {{"Cluster", 10, false}, [](const Row& r) { return r.job->cluster; }},
      {{"Comment", 15, false}, [](const Row& r) { return jobOnly(r, r.job->comment); }},
      {{"Constraints", 19, false}, [](const Row& r) { return jobOnly(r, r.job->constraints); }},
      {{"ConsumedEnergy", 14, false},
       [](const Row& r) { return num(r.step ? r.step->usage.consumed_energy.value_or(0) : 0); }},
      {{"ConsumedEnergyRaw", 17, false},
       [](const Row& r) { return num(r.step ? r.step->usage.consumed_energy.value_or(0) : 0); }},
      {{"Container", 19, false}, [](const Row&) { return std::string(); }},
      {{"CPUTime", 10, false, Cut::kNone},
       [](const Row& r) { return formatSacctDuration(elapsed(r) * cpus(r)); }},
      {{"CPUTimeRAW", 10, false, Cut::kNone}, [](const Row& r) { return num(elapsed(r) * cpus(r)); }},
      {{"DBIndex", 9, false}, [](const Row& r) { return num(static_cast<std::int64_t>(r.job->job_id)); }},
      {{"DerivedExitCode", 15, false},
       [](const Row& r) { return jobOnly(r, exitText(r.job->derived_exit)); }},
      {{"Elapsed", 10, false, Cut::kNone}, [](const Row& r) { return formatSacctDuration(elapsed(r)); }},
      {{"ElapsedRaw", 10, false, Cut::kNone}, [](const Row& r) { return num(elapsed(r)); }},
      {{"Eligible", 19, false, Cut::kSilent},
       [](const Row& r) { return formatSacctTime(r.step ? r.step->start : r.job->eligible); }},
      {{"End", 19, false, Cut::kSilent},
       [](const Row& r) { return formatSacctTime(r.step ? r.step->end : r.job->end); }},
      {{"ExitCode", 8, false},
       [](const Row& r) { return exitText(r.step ? r.step->exit : r.job->exit); }},
      {{"Flags", 19, false},
       [](const Row& r) {
         std::string s;
         if (!r.step) {
           for (const auto& f : r.job->flags) s += (s.empty() ? "" : ",") + f;
         }
         return s;
       }},
      {{"GID", 6, false, Cut::kNone}, [](const Row& r) { return jobOnly(r, num(r.job->gid)); }},
      {{"Group", 9, false}, [](const Row& r) { return jobOnly(r, r.job->group); }},
      {{"JobID", 12, true},
       [](const Row& r) {
         std::string id = jobIdText(*r.job);
         return r.step ? id + "." + stepIdName(r.step->step_id) : id;
       }},
      {{"JobIDRaw", 12, true},
       [](const Row& r) {
         std::string id = std::to_string(r.job->job_id);
         return r.step ? id + "." + stepIdName(r.step->step_id) : id;
       }},
      {{"JobName", 10, false}, [](const Row& r) { return r.step ? r.step->name : r.job->name; }},
      {{"Layout", 8, false}, [](const Row& r) { return r.step ? r.step->layout : std::string(); }},
      {{"MaxDiskRead", 12, false}, USAGE(optMb(u->max_disk_read_mb))},
      {{"MaxDiskReadNode", 15, false}, USAGE(u->max_disk_read_node)},
      {{"MaxDiskReadTask", 15, false}, USAGE(opt(u->max_disk_read_task))},
      {{"MaxDiskWrite", 12, false}, USAGE(optMb(u->max_disk_write_mb))},
      {{"MaxDiskWriteNode", 16, false}, USAGE(u->max_disk_write_node)},
      {{"MaxDiskWriteTask", 16, false}, USAGE(opt(u->max_disk_write_task))},
      {{"MaxPages", 8, false}, USAGE(optSize(u->max_pages))},
      {{"MaxPagesNode", 12, false}, USAGE(u->max_pages_node)},
      {{"MaxPagesTask", 14, false}, USAGE(opt(u->max_pages_task))},
      {{"MaxRSS", 10, false}, USAGE(optUsageSize(u->max_rss_kb))},
      {{"MaxRSSNode", 10, false}, USAGE(u->max_rss_node)},
      {{"MaxRSSTask", 10, false}, USAGE(opt(u->max_rss_task))},
      {{"MaxVMSize", 10, false}, USAGE(optUsageSize(u->max_vmsize_kb))},
      {{"MaxVMSizeNode", 14, false}, USAGE(u->max_vmsize_node)},
      {{"MaxVMSizeTask", 14, false}, USAGE(opt(u->max_vmsize_task))},
      {{"McsLabel", 20, false}, [](const Row&) { return std::string(); }},
      {{"MinCPU", 10, false}, USAGE(optDuration(u->min_cpu_sec))},
      {{"MinCPUNode", 10, false}, USAGE(u->min_cpu_node)},
      {{"MinCPUTask", 10, false}, USAGE(opt(u->min_cpu_task))},
      {{"NCPUS", 10, false, Cut::kNone}, [](const Row& r) { return num(cpus(r)); }},
      {{"NNodes", 8, false, Cut::kNone},
       [](const Row& r) {
         if (r.step) return num(r.step->nnodes);
         return num(r.job->nnodes ? r.job->nnodes : r.job->req_nodes);
       }},
      {{"NodeList", 15, false},
       [](const Row& r) {
         if (r.step) return r.step->node_list;
         return r.job->node_list.empty() ? std::string("None assigned") : r.job->node_list;
       }},
      {{"NTasks", 8, false, Cut::kNone},
       [](const Row& r) { return r.step ? num(r.step->ntasks) : std::string(); }},
      {{"Partition", 10, false}, [](const Row& r) { return jobOnly(r, r.job->partition); }},
      {{"Priority", 10, false, Cut::kNone}, [](const Row& r) { return jobOnly(r, num(r.job->priority)); }},
      {{"QOS", 10, false}, [](const Row& r) { return jobOnly(r, r.job->qos); }},
      // The QOS's id in cluster.conf's table (normal 1, as Slurm's first QOS).
      {{"QOSRAW", 6, false}, [](const Row& r) { return jobOnly(r, r.job->qos_id ? num(r.job->qos_id) : ""); }},
      {{"Reason", 22, false},  // 22 wide, as the reference printed it (2026-12-02)
       [](const Row& r) {
         return jobOnly(r, r.job->reason.empty() ? std::string("None") : r.job->reason);
       }},
      {{"ReqCPUFreq", 13, false}, [](const Row& r) { return freq(r, &StepRecord::req_cpu_freq_min); }},
      {{"ReqCPUFreqGov", 13, false}, [](const Row& r) { return freq(r, &StepRecord::req_cpu_freq_gov); }},
      {{"ReqCPUFreqMax", 13, false}, [](const Row& r) { return freq(r, &StepRecord::req_cpu_freq_max); }},
      {{"ReqCPUFreqMin", 13, false}, [](const Row& r) { return freq(r, &StepRecord::req_cpu_freq_min); }},
      {{"ReqCPUS", 8, false, Cut::kNone}, [](const Row& r) { return jobOnly(r, num(r.job->req_cpus)); }},
      {{"ReqMem", 10, false},
       [](const Row& r) {
         return jobOnly(r, formatMemoryRequestMb(requestedMemMb(*r.job)));
       }},
      {{"ReqNodes", 8, false, Cut::kNone}, [](const Row& r) { return jobOnly(r, num(r.job->req_nodes)); }},
      {{"ReqTRES", 10, false},
       [](const Row& r) { return convertTresSizes(r.step ? r.step->req_tres : r.job->req_tres); }},
      {{"Reservation", 20, false}, [](const Row& r) { return jobOnly(r, r.job->reservation); }},
      {{"ReservationId", 13, false}, [](const Row&) { return std::string(); }},
      {{"Reserved", 10, false},
       [](const Row& r) {
         if (r.step || r.job->start <= 0 || r.job->eligible <= 0) return jobOnly(r, "00:00:00");
         return formatSacctDuration(std::max<std::int64_t>(0, r.job->start - r.job->eligible));
       }},
      {{"ResvCPU", 10, false},
       [](const Row& r) {
         if (r.step || r.job->start <= 0 || r.job->eligible <= 0) return jobOnly(r, "00:00:00");
         return formatSacctDuration(std::max<std::int64_t>(0, r.job->start - r.job->eligible) *
                                    r.job->ncpus);
       }},
      {{"ResvCPURAW", 10, false},
       [](const Row& r) {
         if (r.step || r.job->start <= 0 || r.job->eligible <= 0) return jobOnly(r, "0");
         return num(std::max<std::int64_t>(0, r.job->start - r.job->eligible) * r.job->ncpus);
       }},
      {{"Start", 19, false, Cut::kSilent},
       [](const Row& r) { return formatSacctTime(r.step ? r.step->start : r.job->start); }},
      {{"State", 10, false}, stateText},
      {{"Submit", 19, false, Cut::kSilent},
       [](const Row& r) { return formatSacctTime(r.step ? r.step->start : r.job->submit); }},
      {{"SubmitLine", 20, false},
       [](const Row& r) { return r.step ? r.step->submit_line : r.job->submit_line; }},
      {{"Suspended", 10, false, Cut::kNone},
       [](const Row& r) {
         return formatSacctDuration(r.step ? r.step->suspended_sec : r.job->suspended_sec);
       }},
      {{"SystemComment", 15, false}, [](const Row& r) { return jobOnly(r, r.job->system_comment); }},
      {{"SystemCPU", 10, false}, [](const Row& r) { return formatCpuTime(cpuUsec(r, false, true)); }},
      {{"Timelimit", 10, false},
       [](const Row& r) { return jobOnly(r, timeLimitText(r.job->time_limit_min)); }},
      {{"TimelimitRaw", 12, false, Cut::kNone},
       [](const Row& r) {
         auto m = r.job->time_limit_min;
         return jobOnly(r, m == kTimeLimitUnlimited ? "UNLIMITED"
                           : m == kTimeLimitUnset   ? "Partition_Limit"
                                                    : num(m));
       }},
      {{"TotalCPU", 10, false}, [](const Row& r) { return formatCpuTime(cpuUsec(r, true, true)); }},
      {{"TRESUsageInAve", 14, false}, USAGE(u->tres_usage_in_ave)},
      {{"TRESUsageInMax", 14, false}, USAGE(u->tres_usage_in_max)},
      {{"TRESUsageInMaxNode", 18, false}, USAGE(u->tres_usage_in_max_node)},
      {{"TRESUsageInMaxTask", 18, false}, USAGE(u->tres_usage_in_max_task)},
      {{"TRESUsageInMin", 14, false}, USAGE(u->tres_usage_in_min)},
      {{"TRESUsageInMinNode", 18, false}, USAGE(u->tres_usage_in_min_node)},
      {{"TRESUsageInMinTask", 18, false}, USAGE(u->tres_usage_in_min_task)},
      {{"TRESUsageInTot", 14, false}, USAGE(u->tres_usage_in_tot)},
      {{"TRESUsageOutAve", 15, false}, USAGE(u->tres_usage_out_ave)},
      {{"TRESUsageOutMax", 15, false}, USAGE(u->tres_usage_out_max)},
      {{"TRESUsageOutMaxNode", 19, false}, USAGE(u->tres_usage_out_max_node)},
      {{"TRESUsageOutMaxTask", 19, false}, USAGE(u->tres_usage_out_max_task)},
      {{"TRESUsageOutMin", 15, false}, [](const Row&) { return std::string(); }},
      {{"TRESUsageOutMinNode", 19, false}, [](const Row&) { return std::string(); }},
      {{"TRESUsageOutMinTask", 19, false}, [](const Row&) { return std::string(); }},
      {{"TRESUsageOutTot", 15, false}, USAGE(u->tres_usage_out_tot)},
      {{"UID", 6, false, Cut::kNone}, [](const Row& r) { return jobOnly(r, num(r.job->uid)); }},
      {{"User", 9, false}, [](const Row& r) { return jobOnly(r, r.job->user); }},
      {{"UserCPU", 10, false}, [](const Row& r) { return formatCpuTime(cpuUsec(r, true, false)); }},
      {{"WCKey", 10, false}, [](const Row& r) { return jobOnly(r, r.job->wckey); }},
      {{"WCKeyID", 7, false}, [](const Row&) { return std::string(); }},
      {{"WorkDir", 30, false}, [](const Row& r) { return jobOnly(r, r.job->work_dir); }},
  };
  return kTable;
}

#undef USAGE

}  // namespace

const std::vector<FieldDef>& fieldTable() { return table(); }

std::string formatSacctTime(std::int64_t unix_seconds) {
  return unix_seconds <= 0 ? "Unknown" : formatSlurmTime(unix_seconds);
}

std::string formatCpuTime(std::int64_t usec) {
  if (usec < 0) usec = 0;
  std::int64_t secs = usec / 1'000'000, ms = usec % 1'000'000 / 1000;
  std::int64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
  char buf[64];
  if (d > 0) {
    std::snprintf(buf, sizeof buf, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, d, h, m,
                  s);
  } else if (h > 0) {
    std::snprintf(buf, sizeof buf, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
  } else if (ms > 0) {
    std::snprintf(buf, sizeof buf, "%02" PRId64 ":%02" PRId64 ".%03" PRId64, m, s, ms);
  } else {
    // No milliseconds to show: hours, minutes and seconds, as the reference printed a zero
    // TotalCPU/SystemCPU (00:00:00) next to 00:00.007.
    std::snprintf(buf, sizeof buf, "00:%02" PRId64 ":%02" PRId64, m, s);
  }
  return buf;
}


std::string formatCpuFreqKhz(std::int64_t khz) {
  if (khz <= 0) return "0";
  return scaled(static_cast<double>(khz), 1000, "KMGT");
}

std::string formatDiskMb(double mb) {
  if (mb <= 0) return "0";
  if (mb <= 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fM", mb);
    return buf;
  }
  return scaled(mb, 1024, "MGTP");
}

std::string jobIdText(const JobRecord& job) {
  if (job.array_job_id == 0) return std::to_string(job.job_id);
  if (job.array_task_id) {
    return std::to_string(job.array_job_id) + "_" + std::to_string(*job.array_task_id);
  }
  return std::to_string(job.array_job_id) + "_[" + job.array_task_str + "]";
}

std::string renderKeptSubmission(const std::vector<JobWithSteps>& jobs, bool batch_script) {
  std::string out;
  for (const JobWithSteps& j : jobs) {
    const std::optional<std::string>& kept = batch_script ? j.batch_script : j.environment;
    out += batch_script ? "Batch Script for " + jobIdText(j.job) + "\n"
                        : "Environment used for " + jobIdText(j.job) + " (must be batch to display)\n";
    out += std::string(80, '-') + "\n";
    out += kept ? *kept : std::string("NONE\n");
    if (kept && !kept->empty() && kept->back() != '\n') out += '\n';
    out += '\n';
  }
  return out;
}

}  // namespace drover::acct::report
