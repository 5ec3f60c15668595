#include "cli/sreport_usage.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <set>

#include "common/ascii_case.h"

namespace drover::cli::sreport {

namespace {

std::int64_t localMidnight(std::int64_t t, int days_back) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_mday -= days_back;
  tm.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&tm));
}

// Slurm's rounding of a report's ends, as the reference's sreport showed it: first to the
// minute (30 seconds and more going up), then to the hour (half past and later going up), so
// 03:29:29 is 03:00 but 03:29:30 is 04:00.
std::int64_t nearestHour(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  if (tm.tm_sec >= 30) tm.tm_min += 1;
  if (tm.tm_min >= 30) tm.tm_hour += 1;
  tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&tm));
}

// The job's allocated count of `tres` (cpu falls back on NCPUS for records without AllocTRES).
double allocated(const acct::JobRecord& job, const std::string& tres) {
  const auto counts = parseTresCounts(job.alloc_tres);
  if (auto it = counts.find(tres); it != counts.end()) return it->second;
  if (tres == "cpu" && job.alloc_tres.empty()) return job.ncpus;
  return 0;
}

double requested(const acct::JobRecord& job, const std::string& tres) {
  const auto counts = parseTresCounts(job.req_tres);
  if (auto it = counts.find(tres); it != counts.end()) return it->second;
  if (tres == "cpu" && job.req_tres.empty()) return job.req_cpus;
  return 0;
}

// [start, end) of the job's run; end is now while it runs. {0, 0} when it never started.
std::pair<std::int64_t, std::int64_t> runSpan(const acct::JobRecord& job, std::int64_t now) {
  if (job.start <= 0) return {0, 0};
  const std::int64_t end = job.end > 0 ? job.end : now;
  return {job.start, std::max(job.start, end)};
}

// Seconds the job was eligible but waiting, inside the window.
std::int64_t pendingSeconds(const acct::JobRecord& job, const Window& w, std::int64_t now) {
  const std::int64_t eligible = job.eligible > 0 ? job.eligible : 0;
  if (eligible <= 0) return 0;
  std::int64_t until = job.start > 0 ? job.start : (job.end > 0 ? job.end : now);
  return overlap(eligible, std::max(eligible, until), w);
}

}  // namespace

const std::vector<std::string>& knownTres() {
  static const std::vector<std::string> kAll = {"cpu",     "mem",  "energy", "node",    "billing",
                                                "fs/disk", "vmem", "pages",  "gres/gpu"};
  return kAll;
}

std::map<std::string, double> parseTresCounts(const std::string& text) {
  std::map<std::string, double> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    char* stop = nullptr;
    double v = std::strtod(value.c_str(), &stop);
    if (stop == value.c_str() || !(v >= 0) || v > 1e15) continue;
    if (name == "mem" && *stop != '\0') {
      // Slurm's sizes in MB, with a unit when whole or fractional ("62.50G").
      static const std::string kUnits = "KMGTP";
      const std::size_t unit = kUnits.find(toUpperAscii(*stop));
      if (unit == std::string::npos || stop[1] != '\0') continue;
      v *= unit == 0 ? 1.0 / 1024 : static_cast<double>(1ULL << (10 * (unit - 1)));
    } else if (*stop != '\0') {
      continue;
    }
    out[name] += v;
  }
  return out;
}

Window reportWindow(std::optional<std::int64_t> start, std::optional<std::int64_t> end, std::int64_t now) {
  Window w;
  w.start = nearestHour(start.value_or(localMidnight(now, 1)));
  // An end past now is now, rounded as any other: end=now leaves the current hour out before
  // hh:29:30 and takes it whole from then on, as the reference's sreport did (its rollup has
  // not run for that hour, so Slurm reports nothing of it; Drover counts its jobs up to now).
  w.end = nearestHour(std::min(end.value_or(localMidnight(now, 0)), now));
  if (w.end <= w.start) w.end = w.start + 3600;
  return w;
}

std::int64_t overlap(std::int64_t from, std::int64_t to, const Window& w) {
  const std::int64_t a = std::max(from, w.start), b = std::min(to, w.end);
  return b > a ? b - a : 0;
}

std::map<AssocKey, TresSeconds> usageByAssociation(const std::vector<acct::JobRecord>& jobs,
                                                   const Window& w, std::int64_t now) {
  std::map<AssocKey, TresSeconds> out;
  for (const auto& job : jobs) {
    const auto [from, to] = runSpan(job, now);
    const std::int64_t secs = overlap(from, to, w);
    if (secs <= 0) continue;
    auto counts = parseTresCounts(job.alloc_tres);
    if (job.alloc_tres.empty()) counts["cpu"] = job.ncpus;
    TresSeconds& row = out[{job.account, job.user}];
    for (const auto& [name, count] : counts) row[name] += count * static_cast<double>(secs);
    row["cpu"] += 0;   // a row exists for every job that ran, even on no CPU
  }
  return out;
}

std::vector<std::string> ancestors(const AccountParents& parents, const std::string& account) {
  std::vector<std::string> chain;
  std::set<std::string> seen{account};
  std::string at = account;
  while (at != "root") {
    auto it = parents.find(at);
    std::string up = it == parents.end() || it->second.empty() ? "root" : it->second;
    if (!seen.insert(up).second) up = "root";
    if (up == at) break;
    chain.push_back(up);
    at = up;
  }
  return chain;
}

std::map<std::string, TresSeconds> usageByAccount(const std::map<AssocKey, TresSeconds>& by_assoc,
                                                  const AccountParents& parents) {
  std::map<std::string, TresSeconds> out;
  for (const auto& [key, tres] : by_assoc) {
    std::vector<std::string> accounts{key.first};
    for (auto& a : ancestors(parents, key.first)) accounts.push_back(a);
    for (const auto& a : accounts) {
      TresSeconds& row = out[a];
      for (const auto& [name, v] : tres) row[name] += v;
    }
  }
  return out;
}

Utilization clusterUtilization(const std::vector<acct::JobRecord>& jobs, const Window& w,
                               std::int64_t now, const std::string& tres, double count) {
  Utilization u;
  u.count = count;
  u.reported = count * static_cast<double>(w.seconds());
  double waiting = 0;
  for (const auto& job : jobs) {
    const auto [from, to] = runSpan(job, now);
    u.allocated += allocated(job, tres) * static_cast<double>(overlap(from, to, w));
    waiting += requested(job, tres) * static_cast<double>(pendingSeconds(job, w, now));
  }
  // More allocated than possible (records that overlap, a node set that shrank): Slurm's
  // rollup caps it the same way.
  u.allocated = std::min(u.allocated, u.reported);
  const double free_time = u.reported - u.allocated - u.down - u.planned_down;
  u.planned = std::min(waiting, free_time);
  u.overcommitted = waiting - u.planned;
  u.idle = free_time - u.planned;
  return u;
}

SizeColumns sizeColumns(const std::vector<std::uint64_t>& grouping, bool individual,
                        const std::vector<acct::JobRecord>& jobs, const std::string& tres) {
  SizeColumns c;
  c.individual = individual;
  std::set<std::uint64_t> bounds;
  if (individual) {
    for (const auto& job : jobs) bounds.insert(static_cast<std::uint64_t>(allocated(job, tres)));
  } else {
    bounds.insert(0);
    for (auto g : grouping) bounds.insert(g);
  }
  c.lower.assign(bounds.begin(), bounds.end());
  return c;
}

std::vector<std::string> sizeLabels(const SizeColumns& columns) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < columns.lower.size(); ++i) {
    const std::uint64_t lo = columns.lower[i];
    if (columns.individual) out.push_back(std::to_string(lo));
    else if (columns.lower.size() == 1) out.push_back("0-4294967295");   // grouping= without a size
    else if (i + 1 == columns.lower.size()) out.push_back(">= " + std::to_string(lo));
    else out.push_back(std::to_string(lo) + "-" + std::to_string(columns.lower[i + 1] - 1));
  }
  return out;
}

std::map<std::string, std::vector<double>> sizesByAccount(const std::vector<acct::JobRecord>& jobs,
                                                          const Window& w, std::int64_t now,
                                                          const std::string& tres,
                                                          const SizeColumns& columns, bool count_jobs) {
  std::map<std::string, std::vector<double>> out;
  if (columns.lower.empty()) return out;
  for (const auto& job : jobs) {
    const auto [from, to] = runSpan(job, now);
    const std::int64_t secs = overlap(from, to, w);
    if (secs <= 0) continue;
    const double n = allocated(job, tres);
    const auto size = static_cast<std::uint64_t>(n);
    auto it = std::upper_bound(columns.lower.begin(), columns.lower.end(), size);
    if (it == columns.lower.begin()) continue;
    const auto col = static_cast<std::size_t>(it - columns.lower.begin() - 1);
    if (columns.individual && columns.lower[col] != size) continue;
    auto& row = out[job.account];
    row.resize(columns.lower.size(), 0.0);
    row[col] += count_jobs ? 1.0 : n * static_cast<double>(secs);
  }
  return out;
}

}  // namespace drover::cli::sreport
