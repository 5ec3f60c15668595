#include "cli/sreport_query.h"

namespace drover::cli::sreport {

v1::QueryUsageRequest usageRequest(const ReportRequest& r, const Window& w, std::int64_t now) {
  v1::QueryUsageRequest q;
  q.set_start(w.start);
  q.set_end(w.end);
  q.set_now(now);
  v1::QueryAccountingRequest& f = *q.mutable_filter();
  f.set_all_users(true);
  f.set_duplicates(true);
  for (const auto& u : r.users) f.add_users(u);
  // AccountUtilizationByUser without Users= and SizesByAccount sum each named account's
  // subtree; the other reports keep only rows of the named accounts.
  const bool accounts_name_rows =
      r.kind == ReportKind::kUserUtilizationByAccount || r.kind == ReportKind::kTopUsage ||
      (r.kind == ReportKind::kAccountUtilizationByUser && !r.users.empty());
  if (accounts_name_rows)
    for (const auto& a : r.accounts) f.add_accounts(a);
  for (const auto& p : r.partitions) f.add_partitions(p);
  for (const auto& n : r.nodes) f.add_nodes(n);
  for (auto g : r.gids) f.add_gids(g);
  for (const auto& sel : r.jobs) {
    auto* s = f.add_jobs();
    s->set_job_id(sel.job_id);
    if (sel.array_task) s->set_array_task(*sel.array_task);
    if (sel.step_id) s->set_step_id(*sel.step_id);
  }
  switch (r.kind) {
    case ReportKind::kUtilization: q.set_grouping(v1::USAGE_TOTAL); break;
    case ReportKind::kSizesByAccount:
      q.set_grouping(v1::USAGE_BY_ACCOUNT_SIZE);
      q.set_size_tres(r.size_tres);
      break;
    default: q.set_grouping(v1::USAGE_BY_ASSOCIATION); break;
  }
  return q;
}

UsageSums usageSums(const ReportRequest& r, const v1::QueryUsageReply& reply) {
  UsageSums u;
  if (r.kind == ReportKind::kUtilization) u.down.insert(reply.down().begin(), reply.down().end());
  for (const auto& t : reply.totals()) {
    TresSeconds allocated(t.allocated().begin(), t.allocated().end());
    switch (r.kind) {
      case ReportKind::kUtilization:
        for (const auto& [name, v] : allocated) u.allocated[name] += v;
        for (const auto& [name, v] : t.waiting()) u.waiting[name] += v;
        break;
      case ReportKind::kSizesByAccount: {
        auto it = allocated.find(r.size_tres);
        u.sizes.push_back({t.account(), t.size(), it == allocated.end() ? 0 : it->second, t.jobs()});
        break;
      }
      default: u.by_assoc[{t.account(), t.user()}] = std::move(allocated); break;
    }
  }
  return u;
}

}  // namespace drover::cli::sreport
