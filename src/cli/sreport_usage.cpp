#include "cli/sreport_usage.h"

#include <algorithm>
#include <ctime>
#include <set>

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

}  // namespace

const std::vector<std::string>& knownTres() {
  static const std::vector<std::string> kAll = {"cpu",     "mem",  "energy", "node",    "billing",
                                                "fs/disk", "vmem", "pages",  "gres/gpu"};
  return kAll;
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

Utilization clusterUtilization(double allocated, double waiting, const Window& w, double count,
                               double down) {
  Utilization u;
  u.count = count;
  u.reported = count * static_cast<double>(w.seconds());
  // More allocated than possible (records that overlap, a node set that shrank): Slurm's
  // rollup caps it the same way.
  u.allocated = std::min(allocated, u.reported);
  // Jobs that still ran on a draining node count as allocated; its down time is what is left.
  u.down = std::max(0.0, std::min(down, u.reported - u.allocated));
  const double free_time = u.reported - u.allocated - u.down - u.planned_down;
  u.planned = std::min(waiting, free_time);
  u.overcommitted = waiting - u.planned;
  u.idle = free_time - u.planned;
  return u;
}

SizeColumns sizeColumns(const std::vector<std::uint64_t>& grouping, bool individual,
                        const std::vector<SizeTotal>& sizes) {
  SizeColumns c;
  c.individual = individual;
  std::set<std::uint64_t> bounds;
  if (individual) {
    for (const auto& s : sizes) bounds.insert(s.size);
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

std::map<std::string, std::vector<double>> sizesByAccount(const std::vector<SizeTotal>& sizes,
                                                          const SizeColumns& columns, bool count_jobs) {
  std::map<std::string, std::vector<double>> out;
  if (columns.lower.empty()) return out;
  for (const auto& s : sizes) {
    if (s.jobs == 0) continue;
    auto it = std::upper_bound(columns.lower.begin(), columns.lower.end(), s.size);
    if (it == columns.lower.begin()) continue;
    const auto col = static_cast<std::size_t>(it - columns.lower.begin() - 1);
    if (columns.individual && columns.lower[col] != s.size) continue;
    auto& row = out[s.account];
    row.resize(columns.lower.size(), 0.0);
    row[col] += count_jobs ? static_cast<double>(s.jobs) : s.tres_seconds;
  }
  return out;
}

}  // namespace drover::cli::sreport
