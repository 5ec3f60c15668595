#pragma once
// sreport's numbers from the controller's sums over the job records (QueryUsage) rather than
// from Slurm's hourly rollup tables: a job's allocated TRES (AllocTRES) times the seconds of its
// run that fall inside the report window, summed per account and user by the controller; here
// the window, the sums up the account tree, the cluster's capacity (its nodes' CPUs and GPUs)
// times the window for the Utilization report, and the job-size columns. Pure, for tests.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace drover::cli::sreport {

// The TRES sreport knows, in the order `-T ALL` lists them.
const std::vector<std::string>& knownTres();

// The report's period [start, end), as Slurm's sreport: an end past `now` is `now`; both ends
// are rounded to the nearest hour (to the minute first: 30 seconds and more go up, then 30
// minutes and more go up), and an end not after the start is one hour past it. So end=now
// leaves the current hour out before hh:29:30 and takes it whole after. Defaults: yesterday
// 00:00 to today 00:00 (local time).
struct Window {
  std::int64_t start = 0;
  std::int64_t end = 0;   // exclusive; reports print end - 1
  std::int64_t seconds() const { return end - start; }
};
Window reportWindow(std::optional<std::int64_t> start, std::optional<std::int64_t> end, std::int64_t now);

// TRES name -> TRES-seconds.
using TresSeconds = std::map<std::string, double>;

// Per association (account, user).
using AssocKey = std::pair<std::string, std::string>;   // account, user

// job SizesByAccount: one account's jobs of one size (their allocated count of the report's
// TRES, whole): TRES-seconds in the window, and how many of them ran in it (0: a size the
// report's jobs had, used only for `individual` columns).
struct SizeTotal {
  std::string account;
  std::uint64_t size = 0;
  double tres_seconds = 0;
  std::uint64_t jobs = 0;
};

// What the controller summed for a report (QueryUsage, cli/sreport_query.h): each job's
// allocated TRES times the seconds of its run inside the window (running jobs up to now).
struct UsageSums {
  std::map<AssocKey, TresSeconds> by_assoc;   // cluster and user reports
  TresSeconds allocated, waiting;             // cluster Utilization: all jobs; eligible waiting
  TresSeconds down;                           // cluster Utilization: nodes down or drained
  std::vector<SizeTotal> sizes;               // job SizesByAccount
};

// The account tree (cluster.conf's accounts:): account -> parent; "root" has none, and an
// account the tree does not know hangs under root.
using AccountParents = std::map<std::string, std::string>;
// An account's ancestors up to root, nearest first (cycles cut).
std::vector<std::string> ancestors(const AccountParents& parents, const std::string& account);
// Each account's usage: its users' and its sub-accounts', summed up the tree (root: all).
std::map<std::string, TresSeconds> usageByAccount(const std::map<AssocKey, TresSeconds>& by_assoc,
                                                  const AccountParents& parents);

// cluster Utilization, in TRES-seconds, for one TRES, from the jobs' `allocated` and `waiting`
// sums and the nodes' `down` time (their down and drained node events, clipped to the window),
// capped at what allocation left (a draining node's running jobs count as allocated).
// PlannedDown stays 0: Drover records no maintenance reservations in accounting. Planned is
// eligible jobs' waiting (requested TRES times the pending seconds in the window), capped at
// what allocation and down time left free; OverCommitted the rest.
struct Utilization {
  double count = 0;   // the cluster's TRES count (TRES Count)
  double allocated = 0, down = 0, planned_down = 0, idle = 0, planned = 0, overcommitted = 0;
  double reported = 0;   // count x window
};
Utilization clusterUtilization(double allocated, double waiting, const Window& w, double count,
                               double down = 0);

// job SizesByAccount: the columns' lower bounds (grouping=50,250 -> {0, 50, 250}); sizes
// found in `individual` mode become one column each.
struct SizeColumns {
  std::vector<std::uint64_t> lower;   // ascending, first 0
  bool individual = false;
};
SizeColumns sizeColumns(const std::vector<std::uint64_t>& grouping, bool individual,
                        const std::vector<SizeTotal>& sizes);
// Column labels: "0-49", "50-249", ">= 1000" (individual: "4").
std::vector<std::string> sizeLabels(const SizeColumns& columns);
// Per account of the jobs that ran: TRES-seconds (or, count_jobs, the number of jobs) per column.
std::map<std::string, std::vector<double>> sizesByAccount(const std::vector<SizeTotal>& sizes,
                                                          const SizeColumns& columns, bool count_jobs);

}  // namespace drover::cli::sreport
