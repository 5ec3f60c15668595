#include "jobs/reservations.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "drover/hostlist.h"

namespace drover::jobs {
namespace {

// An UNLIMITED duration: far enough that no job ever reaches the end.
constexpr std::int64_t kUnlimitedResvS = 10LL * 365 * 24 * 3600;

bool listed(const google::protobuf::RepeatedPtrField<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// Users=/Accounts=: a plain list replaces; on update "+a,b" adds and "-a,b" removes (the sign
// of an entry carries over to the entries after it that have none).
Result<std::vector<std::string>> applyList(const std::vector<std::string>& current,
                                           const std::string& text, bool updating,
                                           const char* what) {
  std::vector<std::string> out;
  std::vector<std::string> entries = splitCommas(text);
  if (entries.empty()) return out;
  char op = 0;
  if (entries.front()[0] == '+' || entries.front()[0] == '-') {
    if (!updating) {
      return makeError(std::string(what) + "=" + text +
                       ": '+' and '-' only change the list of an existing reservation");
    }
    out = current;
  }
  for (std::string e : entries) {
    if (e[0] == '+' || e[0] == '-') {
      op = e[0];
      e.erase(0, 1);
    }
    if (e.empty()) return makeError(std::string(what) + "=" + text + ": empty name in the list");
    auto it = std::find(out.begin(), out.end(), e);
    if (op == '-') {
      if (it != out.end()) out.erase(it);
    } else if (it == out.end()) {
      out.push_back(e);
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& knownReservationFlags() {
  static const std::vector<std::string> flags = {
      "MAINT",  "OVERLAP",  "IGNORE_JOBS",        "HOURLY",    "DAILY", "WEEKLY",
      "FLEX",   "MAGNETIC", "NO_HOLD_JOBS_AFTER", "PURGE_COMP"};
  return flags;
}

Result<std::vector<std::string>> parseReservationFlags(const std::string& text) {
  std::set<std::string> given;
  for (const std::string& f : splitCommas(text)) {
    std::string u = toUpperAscii(f);
    const auto& known = knownReservationFlags();
    if (std::find(known.begin(), known.end(), u) == known.end()) {
      std::string accepted;
      for (const auto& k : known) accepted += (accepted.empty() ? "" : ", ") + k;
      return makeError(std::string(kResvBadFlags) + ": " + f + " (accepted: " + accepted + ")");
    }
    given.insert(u);
  }
  if (given.count("HOURLY") + given.count("DAILY") + given.count("WEEKLY") > 1) {
    return makeError(std::string(kResvBadFlags) + ": " + text +
                     " (give at most one of HOURLY, DAILY, WEEKLY)");
  }
  std::vector<std::string> out;
  for (const auto& k : knownReservationFlags()) {
    if (given.count(k)) out.push_back(k);
  }
  return out;
}

std::int64_t recurrencePeriod(const v1::ReservationInfo& info) {
  if (hasFlag(info, "HOURLY")) return 3600;
  if (hasFlag(info, "DAILY")) return 24 * 3600;
  if (hasFlag(info, "WEEKLY")) return 7 * 24 * 3600;
  return 0;
}

std::int64_t occurrenceEnd(const v1::ReservationInfo& info, std::int64_t job_start) {
  const std::int64_t period = recurrencePeriod(info);
  if (period <= 0 || job_start >= info.start_time()) return info.end_time();
  // Occurrences are `period` apart: the one the job started in began k periods before this one.
  const std::int64_t k = (info.start_time() - job_start + period - 1) / period;
  return info.end_time() - k * period;
}

std::optional<std::int64_t> reservationKillTime(const v1::ReservationInfo& info,
                                                std::int64_t job_start, std::int64_t over_run_s) {
  if (over_run_s < 0 || hasFlag(info, "FLEX")) return std::nullopt;
  return occurrenceEnd(info, job_start) + over_run_s;
}

bool hasFlag(const v1::ReservationInfo& info, const std::string& flag) {
  return listed(info.flags(), flag);
}

const v1::ReservationInfo* ReservationBook::find(const std::string& name) const {
  auto it = resv_.find(name);
  return it == resv_.end() ? nullptr : &it->second;
}

std::vector<std::string> ReservationBook::partitionNodes(const std::string& partition) const {
  std::vector<std::string> out;
  if (!partition.empty()) {
    if (const auto* p = config_.findPartition(partition)) out = p->nodes;
    return out;
  }
  for (const auto& n : config_.nodes) out.push_back(n.name);
  return out;
}

std::uint32_t ReservationBook::coresOf(const std::vector<std::string>& nodes) const {
  std::uint32_t cores = 0;
  for (const auto& name : nodes) {
    for (const auto& n : config_.nodes) {
      if (n.name == name) cores += n.cpus;
    }
  }
  return cores;
}

bool ReservationBook::overlapsOther(const v1::ReservationInfo& info, const std::string& node,
                                    const std::string& replacing) const {
  for (const auto& [name, other] : resv_) {
    if (name == replacing) continue;
    if (other.start_time() >= info.end_time() || info.start_time() >= other.end_time()) continue;
    if (listed(other.nodes(), node)) return true;
  }
  return false;
}

Result<std::vector<std::string>> ReservationBook::pickNodes(const v1::ReservationInfo& info,
                                                            std::uint32_t count,
                                                            const ReservationContext& ctx,
                                                            const std::string& replacing) const {
  if (count == 0) return makeError(std::string(kResvBadNodeCount) + ": NodeCnt must be at least 1");
  const bool overlap = hasFlag(info, "OVERLAP");
  const bool ignore_jobs = hasFlag(info, "IGNORE_JOBS");
  std::vector<std::string> out;
  for (const std::string& node : partitionNodes(info.partition())) {
    if (out.size() >= count) break;
    if (!overlap && overlapsOther(info, node, replacing)) continue;
    bool busy = std::any_of(ctx.busy.begin(), ctx.busy.end(), [&](const BusyNode& b) {
      return b.node == node && b.end > info.start_time();
    });
    if (busy && !ignore_jobs) continue;
    out.push_back(node);
  }
  if (out.size() < count) {
    return makeError(std::string(kResvNodesBusy) + ": " + std::to_string(count) +
                     " node(s) asked, " + std::to_string(out.size()) +
                     " free of other reservations" + (ignore_jobs ? "" : " and jobs") +
                     " in that window");
  }
  return out;
}

Status ReservationBook::validate(v1::ReservationInfo& info, bool nodes_changed,
                                 const ReservationContext& ctx,
                                 const std::string& replacing) const {
  if (info.end_time() <= info.start_time()) {
    return makeError(std::string(kResvBadTime) + ": the end must come after the start");
  }
  if (info.end_time() <= ctx.now) {
    return makeError(std::string(kResvBadTime) + ": the reservation would already be over");
  }
  if (const std::int64_t period = recurrencePeriod(info);
      period > 0 && info.end_time() - info.start_time() > period) {
    return makeError(std::string(kResvBadTime) + ": a " + (period == 3600 ? "HOURLY" :
                     period == 86400 ? "DAILY" : "WEEKLY") +
                     " reservation must not last longer than its period");
  }
  if (info.users().empty() && info.accounts().empty()) return makeError(kResvEmpty);
  // Names an update keeps were checked when they were given.
  auto kept = resv_.find(replacing);
  for (const auto& u : info.users()) {
    if (kept != resv_.end() && listed(kept->second.users(), u)) continue;
    if (ctx.user_exists && !ctx.user_exists(u)) {
      return makeError(std::string(kResvBadUser) + ": no user named " + u);
    }
  }
  if (!config_.accounts.empty()) {
    for (const auto& a : info.accounts()) {
      bool known = std::any_of(config_.accounts.begin(), config_.accounts.end(),
                               [&](const config::AccountConfig& c) { return c.name == a; });
      if (!known) return makeError(std::string(kResvBadAccount) + ": no account named " + a);
    }
  }
  if (!info.partition().empty() && config_.findPartition(info.partition()) == nullptr) {
    return makeError(std::string(kResvBadPartition) + ": " + info.partition());
  }
  if (info.nodes().empty()) return makeError(std::string(kResvBadNodeCount) + ": no nodes");
  if (!hasFlag(info, "OVERLAP")) {
    for (const auto& node : info.nodes()) {
      for (const auto& [name, other] : resv_) {
        if (name == replacing) continue;
        if (other.start_time() >= info.end_time() || info.start_time() >= other.end_time()) {
          continue;
        }
        if (listed(other.nodes(), node)) {
          return makeError(std::string(kResvOverlap) + ": " + name + " holds " + node +
                           " in that window");
        }
      }
    }
  }
  if (nodes_changed && !hasFlag(info, "IGNORE_JOBS")) {
    for (const auto& b : ctx.busy) {
      if (listed(info.nodes(), b.node) && b.end > info.start_time()) {
        return makeError(std::string(kResvNodesBusy) + ": " + b.node +
                         " runs a job past the reservation's start (Flags=IGNORE_JOBS reserves "
                         "it anyway)");
      }
    }
  }
  info.set_core_count(coresOf({info.nodes().begin(), info.nodes().end()}));
  return okStatus();
}

std::string ReservationBook::generatedName(const v1::ReservationInfo& info) const {
  std::string base = !info.users().empty() ? info.users(0) : info.accounts(0);
  for (int n = 1;; ++n) {
    std::string name = base + "_" + std::to_string(n);
    if (!resv_.count(name)) return name;
  }
}

namespace {

// Nodes=: ALL (the partition's nodes, else every node) or a hostlist of configured nodes.
Result<std::vector<std::string>> resolveNodes(const config::ClusterConfig& config,
                                              const std::string& text,
                                              const std::vector<std::string>& all) {
  if (toUpperAscii(text) == "ALL") return all;
  auto hosts = hostlist::expand(text);
  if (!hosts) return makeError(std::string(kResvBadNode) + ": " + hosts.error());
  std::vector<std::string> out;
  for (const auto& h : *hosts) {
    bool known = std::any_of(config.nodes.begin(), config.nodes.end(),
                             [&](const config::NodeConfig& n) { return n.name == h; });
    if (!known) return makeError(std::string(kResvBadNode) + ": " + h + " is not a configured node");
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  if (out.empty()) return makeError(std::string(kResvBadNode) + ": empty node list");
  return out;
}

// Start, end and duration of `spec` over `info` (which holds the current times on update).
Status applyTimes(const v1::ReservationSpec& spec, v1::ReservationInfo& info, bool creating) {
  const std::int64_t old_length = info.end_time() - info.start_time();
  if (spec.has_start_time()) info.set_start_time(spec.start_time());
  if (creating && !spec.has_start_time()) {
    return makeError(std::string(kResvBadTime) + ": StartTime must be given");
  }
  if (spec.has_duration_s()) {
    const std::int64_t d = spec.duration_s() < 0 ? kUnlimitedResvS : spec.duration_s();
    info.set_end_time(info.start_time() + d);
  } else if (spec.has_end_time()) {
    info.set_end_time(spec.end_time());
  } else if (creating) {
    return makeError(std::string(kResvBadTime) + ": EndTime or Duration must be given");
  } else if (spec.has_start_time()) {
    info.set_end_time(info.start_time() + old_length);  // moving the start keeps the length
  }
  return okStatus();
}

}  // namespace

Result<v1::ReservationInfo> ReservationBook::create(const v1::ReservationSpec& spec,
                                                    const ReservationContext& ctx) {
  v1::ReservationInfo info;
  if (!spec.name().empty() && resv_.count(spec.name())) {
    return makeError(std::string(kResvDuplicate) + ": " + spec.name());
  }
  if (auto s = applyTimes(spec, info, true); !s) return makeError(s.error());
  // A start already past means now, as Slurm's StartTime=now.
  if (info.start_time() < ctx.now) {
    const std::int64_t length = info.end_time() - info.start_time();
    info.set_start_time(ctx.now);
    if (spec.has_duration_s()) info.set_end_time(ctx.now + length);
  }
  if (spec.has_flags()) {
    if (!spec.flags().empty() && (spec.flags()[0] == '+' || spec.flags()[0] == '-')) {
      return makeError("Flags" + std::string(1, spec.flags()[0]) + "=" + spec.flags().substr(1) +
                       ": '+' and '-' only change the flags of an existing reservation");
    }
    auto flags = parseReservationFlags(spec.flags());
    if (!flags) return makeError(flags.error());
    for (auto& f : *flags) info.add_flags(std::move(f));
  }
  if (spec.has_partition()) info.set_partition(spec.partition());
  if (spec.has_users()) {
    auto users = applyList({}, spec.users(), false, "Users");
    if (!users) return makeError(users.error());
    for (auto& u : *users) info.add_users(std::move(u));
  }
  if (spec.has_accounts()) {
    auto accounts = applyList({}, spec.accounts(), false, "Accounts");
    if (!accounts) return makeError(accounts.error());
    for (auto& a : *accounts) info.add_accounts(std::move(a));
  }
  if (info.users().empty() && info.accounts().empty()) return makeError(kResvEmpty);
  if (!info.partition().empty() && config_.findPartition(info.partition()) == nullptr) {
    return makeError(std::string(kResvBadPartition) + ": " + info.partition());
  }
  if (spec.has_nodes()) {
    auto nodes = resolveNodes(config_, spec.nodes(), partitionNodes(info.partition()));
    if (!nodes) return makeError(nodes.error());
    for (auto& n : *nodes) info.add_nodes(std::move(n));
    info.set_node_list_given(toUpperAscii(spec.nodes()) != "ALL");
  } else if (spec.has_node_count()) {
    auto nodes = pickNodes(info, spec.node_count(), ctx, "");
    if (!nodes) return makeError(nodes.error());
    for (auto& n : *nodes) info.add_nodes(std::move(n));
  } else {
    return makeError(std::string(kResvBadNodeCount) + ": give Nodes= or NodeCnt=");
  }
  info.set_name(spec.name().empty() ? generatedName(info) : spec.name());
  if (auto s = validate(info, true, ctx, ""); !s) return makeError(s.error());
  resv_[info.name()] = info;
  return info;
}

Result<v1::ReservationInfo> ReservationBook::update(const v1::ReservationSpec& spec,
                                                    const ReservationContext& ctx) {
  auto it = resv_.find(spec.name());
  if (it == resv_.end()) return makeError(std::string(kResvInvalid) + ": " + spec.name());
  v1::ReservationInfo info = it->second;
  if (auto s = applyTimes(spec, info, false); !s) return makeError(s.error());
  if (spec.has_flags()) {
    // "+A,B" adds to and "-A,B" removes from the current flags (scontrol's Flags+= / Flags-=).
    std::string text = spec.flags();
    const char sign = !text.empty() && (text[0] == '+' || text[0] == '-') ? text[0] : 0;
    if (sign != 0) text.erase(0, 1);
    auto flags = parseReservationFlags(text);
    if (!flags) return makeError(flags.error());
    std::vector<std::string> merged;
    if (sign == 0) {
      merged = *flags;
    } else {
      for (const auto& f : info.flags()) {
        const bool named = std::find(flags->begin(), flags->end(), f) != flags->end();
        if (sign == '+' || !named) merged.push_back(f);
      }
      if (sign == '+') merged.insert(merged.end(), flags->begin(), flags->end());
    }
    std::string joined;
    for (const auto& f : merged) joined += (joined.empty() ? "" : ",") + f;
    auto ordered = parseReservationFlags(joined);  // Slurm's order; one recurrence at most
    if (!ordered) return makeError(ordered.error());
    info.clear_flags();
    for (auto& f : *ordered) info.add_flags(std::move(f));
  }
  if (spec.has_partition()) info.set_partition(spec.partition());
  if (spec.has_users()) {
    auto users = applyList({info.users().begin(), info.users().end()}, spec.users(), true, "Users");
    if (!users) return makeError(users.error());
    info.clear_users();
    for (auto& u : *users) info.add_users(std::move(u));
  }
  if (spec.has_accounts()) {
    auto accounts = applyList({info.accounts().begin(), info.accounts().end()}, spec.accounts(),
                              true, "Accounts");
    if (!accounts) return makeError(accounts.error());
    info.clear_accounts();
    for (auto& a : *accounts) info.add_accounts(std::move(a));
  }
  if (!info.partition().empty() && config_.findPartition(info.partition()) == nullptr) {
    return makeError(std::string(kResvBadPartition) + ": " + info.partition());
  }
  bool nodes_changed = spec.has_start_time();
  if (spec.has_nodes()) {
    auto nodes = resolveNodes(config_, spec.nodes(), partitionNodes(info.partition()));
    if (!nodes) return makeError(nodes.error());
    info.clear_nodes();
    for (auto& n : *nodes) info.add_nodes(std::move(n));
    info.set_node_list_given(toUpperAscii(spec.nodes()) != "ALL");
    nodes_changed = true;
  } else if (spec.has_node_count()) {
    auto nodes = pickNodes(info, spec.node_count(), ctx, info.name());
    if (!nodes) return makeError(nodes.error());
    info.clear_nodes();
    for (auto& n : *nodes) info.add_nodes(std::move(n));
    info.set_node_list_given(false);
    nodes_changed = true;
  }
  if (auto s = validate(info, nodes_changed, ctx, info.name()); !s) return makeError(s.error());
  it->second = info;
  return info;
}

Status ReservationBook::remove(const std::string& name) {
  if (resv_.erase(name) == 0) return makeError(std::string(kResvInvalid) + ": " + name);
  return okStatus();
}

void ReservationBook::restore(v1::ReservationInfo info) {
  std::string name = info.name();
  resv_[name] = std::move(info);
}

Result<std::vector<v1::ReservationInfo>> ReservationBook::list(
    const std::vector<std::string>& names, std::int64_t now) const {
  std::vector<v1::ReservationInfo> out;
  for (const auto& name : names) {
    auto it = resv_.find(name);
    if (it == resv_.end() || it->second.end_time() <= now) {
      return makeError("Reservation " + name + " not found");
    }
  }
  for (const auto& [name, info] : resv_) {
    if (info.end_time() <= now) continue;
    if (!names.empty() && std::find(names.begin(), names.end(), name) == names.end()) continue;
    out.push_back(info);
    out.back().set_active(info.start_time() <= now);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.start_time() < b.start_time();
  });
  return out;
}

ReservationBook::Expiry ReservationBook::expire(std::int64_t now, std::int64_t keep_s) {
  Expiry out;
  for (auto it = resv_.begin(); it != resv_.end();) {
    v1::ReservationInfo& info = it->second;
    const std::int64_t period = recurrencePeriod(info);
    if (period > 0 && info.end_time() <= now) {
      // Skip the occurrences that passed while nobody looked (a controller down for days).
      const std::int64_t k = (now - info.end_time()) / period + 1;
      info.set_start_time(info.start_time() + k * period);
      info.set_end_time(info.end_time() + k * period);
      out.moved.push_back(info);
      ++it;
    } else if (period == 0 && info.end_time() + std::max<std::int64_t>(keep_s, 0) <= now) {
      out.dropped.push_back(it->first);
      it = resv_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::int64_t ReservationBook::nextExpiry(std::int64_t keep_s) const {
  std::int64_t next = 0;
  for (const auto& [name, info] : resv_) {
    const std::int64_t at =
        recurrencePeriod(info) > 0 ? info.end_time()
                                   : info.end_time() + std::max<std::int64_t>(keep_s, 0);
    if (next == 0 || at < next) next = at;
  }
  return next;
}

std::vector<sched::AdvanceReservation> ReservationBook::forSnapshot(std::int64_t now) const {
  std::vector<sched::AdvanceReservation> out;
  for (const auto& [name, info] : resv_) {
    if (info.end_time() <= now) continue;
    sched::AdvanceReservation r;
    r.name = name;
    r.nodes.assign(info.nodes().begin(), info.nodes().end());
    r.users.assign(info.users().begin(), info.users().end());
    r.accounts.assign(info.accounts().begin(), info.accounts().end());
    r.start = info.start_time();
    r.end = info.end_time();
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<std::string> ReservationBook::checkAccess(const std::string& name,
                                                        const std::string& user,
                                                        const std::string& account,
                                                        std::int64_t now) const {
  const v1::ReservationInfo* info = find(name);
  if (info == nullptr || info->end_time() <= now) return std::string(kResvInvalid);
  if (listed(info->users(), user)) return std::nullopt;
  if (!account.empty() && listed(info->accounts(), account)) return std::nullopt;
  return std::string(kResvAccess);
}

std::optional<std::string> ReservationBook::pendingReason(const sched::JobRequest& request,
                                                          sched::Reason reason,
                                                          std::int64_t now) const {
  if (!request.reservation.empty()) return std::nullopt;
  if (reason != sched::Reason::Resources && reason != sched::Reason::Priority &&
      reason != sched::Reason::ReqNodeNotAvail) {
    return std::nullopt;
  }
  const std::int64_t end =
      request.timeLimitS > 0 ? now + request.timeLimitS : std::numeric_limits<std::int64_t>::max();
  const std::vector<std::string> candidates =
      !request.requiredNodes.empty() ? request.requiredNodes : partitionNodes(request.partition);
  for (const auto& [name, info] : resv_) {
    // Only jobs that name a reservation run in it, so its own users' other jobs wait too.
    if (!hasFlag(info, "MAINT") || info.end_time() <= now || info.start_time() >= end) continue;
    for (const auto& node : candidates) {
      if (listed(info.nodes(), node)) return std::string(kReservedForMaintenance);
    }
  }
  return std::nullopt;
}

}  // namespace drover::jobs
