#include "ctld/usage_query.h"

#include <map>
#include <tuple>

#include "acct/tres_counts.h"
#include "ctld/accounting_query.h"

namespace drover::ctld {

namespace {

void addScaled(google::protobuf::Map<std::string, double>& to, const std::map<std::string, double>& counts,
               std::int64_t seconds) {
  for (const auto& [name, count] : counts) to[name] += count * static_cast<double>(seconds);
}

}  // namespace

std::string usageRequestError(const v1::QueryUsageRequest& request) {
  if (request.end() <= request.start()) return "usage window: end must be after start";
  if (!v1::UsageGrouping_IsValid(request.grouping()))
    return "unknown usage grouping " + std::to_string(request.grouping());
  return "";
}

v1::QueryUsageReply foldUsage(const std::vector<acct::UsageRow>& rows, v1::UsageGrouping grouping,
                              const std::string& size_tres) {
  // Group key: (account, user, size), the parts the grouping does not use left empty.
  std::map<std::tuple<std::string, std::string, std::uint64_t>, v1::UsageTotal> groups;
  if (grouping == v1::USAGE_TOTAL) groups[{}];
  for (const auto& row : rows) {
    const auto allocated = acct::allocatedCounts(row.alloc_tres, row.ncpus);
    std::tuple<std::string, std::string, std::uint64_t> key;
    if (grouping == v1::USAGE_BY_ASSOCIATION) {
      if (row.jobs_ran == 0) continue;
      key = {row.account, row.user, 0};
    } else if (grouping == v1::USAGE_BY_ACCOUNT_SIZE) {
      auto it = allocated.find(size_tres);
      key = {row.account, "", static_cast<std::uint64_t>(it == allocated.end() ? 0 : it->second)};
    }
    v1::UsageTotal& g = groups[key];
    g.set_account(std::get<0>(key));
    g.set_user(std::get<1>(key));
    g.set_size(std::get<2>(key));
    g.set_jobs(g.jobs() + row.jobs_ran);
    addScaled(*g.mutable_allocated(), allocated, row.ran_sec);
    // A group exists for every job that ran, even on no CPU (sreport prints its row).
    if (row.jobs_ran > 0) (*g.mutable_allocated())["cpu"] += 0;
    if (grouping == v1::USAGE_TOTAL && row.waited_sec > 0)
      addScaled(*g.mutable_waiting(), acct::requestedCounts(row.req_tres, row.req_cpus), row.waited_sec);
  }
  v1::QueryUsageReply reply;
  for (auto& [key, g] : groups) *reply.add_totals() = std::move(g);
  return reply;
}

void foldDown(const std::vector<acct::DownRow>& rows, v1::QueryUsageReply& reply) {
  for (const auto& row : rows) {
    addScaled(*reply.mutable_down(), acct::parseTresCounts(row.tres), row.seconds);
  }
}

Result<v1::QueryUsageReply> queryUsage(acct::SqliteAccountingStore& store, const rpc::Caller& caller,
                                       const v1::QueryUsageRequest& request,
                                       const std::string& cluster_name, std::int64_t now) {
  if (auto why = usageRequestError(request); !why.empty()) return makeError(why);
  const acct::AcctFilter filter = accountingFilterFor(caller, request.filter());
  const acct::UsageWindow window{request.start(), request.end(), request.now() != 0 ? request.now() : now};
  auto rows = store.usage(filter, window);
  if (!rows.ok()) return makeError("usage query failed: " + rows.error());
  v1::QueryUsageReply reply = foldUsage(*rows, request.grouping(), request.size_tres());
  reply.set_cluster_name(cluster_name);
  if (request.grouping() == v1::USAGE_TOTAL) {
    auto down = store.downTime(window);
    if (!down.ok()) return makeError("usage query failed: " + down.error());
    foldDown(*down, reply);
  }
  return reply;
}

}  // namespace drover::ctld
