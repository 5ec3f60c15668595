#include "ctld/accounting_query.h"

#include "ctld/acct_wire.h"

namespace drover::ctld {

acct::AcctFilter accountingFilterFor(const rpc::Caller& caller, const v1::QueryAccountingRequest& request) {
  acct::AcctFilter filter = fromWire(request);
  // A user's own jobs by default, as sacct's: not when jobs are named (the reference listed
  // another user's job by id; Drover, as Slurm without PrivateData, keeps no job private).
  if (caller.uid != 0 && !request.all_users() && filter.uids.empty() && filter.users.empty() &&
      filter.jobs.empty()) {
    filter.uids.push_back(caller.uid);
  }
  return filter;
}

Result<v1::QueryAccountingReply> queryAccounting(acct::AccountingStore& store, const rpc::Caller& caller,
                                                 const v1::QueryAccountingRequest& request,
                                                 const std::string& cluster_name) {
  auto rows = store.query(accountingFilterFor(caller, request));
  if (!rows.ok()) return makeError("accounting query failed: " + rows.error());
  v1::QueryAccountingReply reply;
  reply.set_cluster_name(cluster_name);
  for (const auto& job : *rows) *reply.add_jobs() = toWire(job);
  return reply;
}

}  // namespace drover::ctld
