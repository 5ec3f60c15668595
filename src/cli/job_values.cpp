#include "cli/job_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>

#include "cli/cli_common.h"
#include "cli/node_values.h"
#include "jobstate/gres_text.h"

namespace drover::cli {

std::int64_t shownPriority(const v1::JobInfo& job) {
  return job.held_user() || job.held_admin() ? 0 : job.priority();
}

std::string normalizedPriority(const v1::JobInfo& job) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.14f", static_cast<double>(shownPriority(job)) / 4294967296.0);
  return buf;
}

std::string jobReasonText(const v1::JobInfo& job) {
  if (job.state() == v1::JOB_PENDING && !job.reason_description().empty())
    return job.reason_description();
  return jobReasonCode(job);
}

std::string scontrolReasonText(const v1::JobInfo& job) {
  std::string text = jobReasonText(job);
  std::replace(text.begin(), text.end(), ' ', '_');
  return text;
}

std::string jobReasonCode(const v1::JobInfo& job) {
  const bool none = job.reason().empty() || job.reason() == "None";
  if (job.state() == v1::JOB_PENDING) return none ? "None" : job.reason();
  if (isActiveState(job.state())) {
    if (job.held_admin()) return "JobHeldAdmin";
    if (job.held_user()) return "JobHeldUser";
    return "None";
  }
  if (none && job.state() == v1::JOB_FAILED && job.exit_code() != 0) return "NonZeroExitCode";
  // A batch shell a signal ended: the reference's controller said JobLaunchFailure (its
  // `kill -9 $$` job: FAILED, ExitCode=0:9), sacct's Reason None.
  if (none && job.state() == v1::JOB_FAILED && job.exit_signal() != 0) return "JobLaunchFailure";
  return none ? "None" : job.reason();
}
namespace {

std::optional<std::uint64_t> parseMemMb(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  char unit = 'M';
  std::string s(text);
  if (std::isalpha(static_cast<unsigned char>(s.back()))) {
    unit = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
    s.pop_back();
  }
  try {
    value = std::stod(s);
  } catch (...) {
    return std::nullopt;
  }
  switch (unit) {
    case 'K': value /= 1024; break;
    case 'G': value *= 1024; break;
    case 'T': value *= 1024.0 * 1024; break;
    default: break;
  }
  return static_cast<std::uint64_t>(value + 0.5);
}

}  // namespace

bool isActiveState(v1::JobState state) {
  return state == v1::JOB_PENDING || state == v1::JOB_RUNNING || state == v1::JOB_SUSPENDED ||
         state == v1::JOB_COMPLETING;
}

std::string jobIdText(const v1::JobInfo& job) {
  if (job.array_job_id() == 0) return std::to_string(job.job_id());
  if (!job.array_task_pending().empty())
    return std::to_string(job.array_job_id()) + "_[" + job.array_task_pending() + "]";
  return std::to_string(job.array_job_id()) + "_" + std::to_string(job.array_task_id());
}

std::string arrayTaskText(const v1::JobInfo& job) {
  if (job.array_job_id() == 0) return "N/A";
  if (!job.array_task_pending().empty()) return job.array_task_pending();
  return std::to_string(job.array_task_id());
}

bool jobMatchesId(const v1::JobInfo& job, std::string_view id) {
  const auto underscore = id.find('_');
  std::string_view head = id.substr(0, underscore);
  std::uint64_t value = 0;
  if (std::from_chars(head.data(), head.data() + head.size(), value).ec != std::errc()) return false;
  if (underscore == std::string_view::npos) {
    return job.job_id() == value || (job.array_job_id() != 0 && job.array_job_id() == value);
  }
  if (job.array_job_id() != value) return false;
  std::string_view task = id.substr(underscore + 1);
  if (!task.empty() && task.front() == '[' && task.back() == ']') task = task.substr(1, task.size() - 2);
  const auto tasks = expandArrayTasks(task);
  if (!job.array_task_pending().empty()) {
    const auto pending = expandArrayTasks(job.array_task_pending());
    for (auto t : tasks)
      if (std::find(pending.begin(), pending.end(), t) != pending.end()) return true;
    return false;
  }
  return std::find(tasks.begin(), tasks.end(), static_cast<std::uint32_t>(job.array_task_id())) !=
         tasks.end();
}

std::string formatSqueueDuration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const std::int64_t days = seconds / 86400, hours = seconds / 3600 % 24,
                     minutes = seconds / 60 % 60, secs = seconds % 60;
  char buf[64];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes), static_cast<long long>(secs));
  } else if (hours > 0) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(minutes), static_cast<long long>(secs));
  }
  return buf;
}

std::string formatSqueueLimit(std::int64_t minutes) {
  if (minutes < 0) return "UNLIMITED";
  return formatSqueueDuration(minutes * 60);
}

std::string formatScontrolDuration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const std::int64_t days = seconds / 86400, hours = seconds / 3600 % 24,
                     minutes = seconds / 60 % 60, secs = seconds % 60;
  char buf[64];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes), static_cast<long long>(secs));
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  }
  return buf;
}

std::string formatScontrolLimit(std::int64_t minutes) {
  if (minutes < 0) return "UNLIMITED";
  return formatScontrolDuration(minutes * 60);
}

std::int64_t jobRunTime(const v1::JobInfo& job, std::int64_t now) {
  if ((job.state() == v1::JOB_RUNNING || job.state() == v1::JOB_COMPLETING) && job.start_time() > 0 &&
      now >= job.start_time()) {
    return now - job.start_time() - (job.state() == v1::JOB_RUNNING ? 0 : 0);
  }
  return job.run_time_s();
}

std::int64_t jobEndTime(const v1::JobInfo& job) {
  if (job.end_time() > 0 || job.state() != v1::JOB_PENDING) return job.end_time();
  if (job.start_time() <= 0 || job.time_limit_min() <= 0) return 0;
  return job.start_time() + job.time_limit_min() * 60;
}

std::string tresPerNode(const v1::JobInfo& job) { return tresPerNodeText(job.spec()); }

MinMemory minMemory(const v1::JobInfo& job) {
  const auto& s = job.spec();
  auto text = [](std::uint64_t mb) {
    if (mb >= 1024 && mb % 1024 == 0) {
      std::uint64_t v = mb / 1024;
      if (v >= 1024 && v % 1024 == 0) return std::to_string(v / 1024) + "T";
      return std::to_string(v) + "G";
    }
    return std::to_string(mb) + "M";
  };
  if (s.mem_per_cpu_mb() > 0) return {text(s.mem_per_cpu_mb()), true};
  if (s.mem_per_node_mb() > 0) return {text(s.mem_per_node_mb()), false};
  return {"0", false};
}

std::string scontrolTres(std::string_view tres) {
  std::map<std::string, std::string> values;
  std::vector<std::string> gres;
  for (const auto& item : splitCommas(tres)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "mem") {
      if (auto mb = parseMemMb(value)) value = formatTresMemory(*mb);
    }
    if (key.rfind("gres/", 0) == 0) gres.push_back(key + "=" + value);
    values[key] = value;
  }
  std::string out;
  auto add = [&out](const std::string& kv) { out += (out.empty() ? "" : ",") + kv; };
  for (const char* key : {"cpu", "mem", "energy", "node", "billing"}) {
    if (auto it = values.find(key); it != values.end()) add(std::string(key) + "=" + it->second);
  }
  std::sort(gres.begin(), gres.end());
  for (const auto& g : gres) add(g);
  return out;
}

std::vector<std::uint32_t> expandArrayTasks(std::string_view text) {
  std::vector<std::uint32_t> out;
  if (auto pct = text.find('%'); pct != std::string_view::npos) text = text.substr(0, pct);
  for (const auto& item : splitCommas(text)) {
    std::uint32_t first = 0, last = 0, step = 1;
    std::string_view s = item;
    if (auto colon = s.find(':'); colon != std::string_view::npos) {
      std::from_chars(s.data() + colon + 1, s.data() + s.size(), step);
      if (step == 0) step = 1;
      s = s.substr(0, colon);
    }
    const auto dash = s.find('-');
    if (std::from_chars(s.data(), s.data() + (dash == std::string_view::npos ? s.size() : dash), first).ec !=
        std::errc())
      continue;
    last = first;
    if (dash != std::string_view::npos) std::from_chars(s.data() + dash + 1, s.data() + s.size(), last);
    for (std::uint64_t t = first; t <= last; t += step) out.push_back(static_cast<std::uint32_t>(t));
  }
  return out;
}

}  // namespace drover::cli
