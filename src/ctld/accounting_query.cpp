#include "ctld/accounting_query.h"

#include <map>

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
                                                 const std::string& cluster_name,
                                                 const AssociationIds& assoc_ids) {
  auto rows = store.query(accountingFilterFor(caller, request));
  if (!rows.ok()) return makeError("accounting query failed: " + rows.error());
  v1::QueryAccountingReply reply;
  reply.set_cluster_name(cluster_name);
  const bool kept = request.with_batch_script() || request.with_environment();
  // An array's tasks share one kept script (under the array's id): read once per id.
  std::map<std::uint64_t, std::optional<acct::JobScript>> scripts;
  for (auto& job : *rows) {
    if (auto id = assoc_ids.find({job.job.account, job.job.user}); id != assoc_ids.end()) {
      job.job.assoc_id = id->second;
    }
    // sacct -B / --env-vars: the owner's and root's to read, as the job's files are.
    if (kept && (caller.uid == 0 || caller.uid == job.job.uid)) {
      const std::uint64_t id = job.job.array_job_id != 0 ? job.job.array_job_id : job.job.job_id;
      auto found = scripts.find(id);
      if (found == scripts.end()) {
        auto script = store.jobScript(id);
        if (!script.ok()) return makeError("accounting query failed: " + script.error());
        found = scripts.emplace(id, std::move(*script)).first;
      }
      if (const auto& s = found->second) {
        if (request.with_batch_script()) job.batch_script = s->script;
        if (request.with_environment()) job.environment = s->environment;
      }
    }
    *reply.add_jobs() = toWire(job);
  }
  return reply;
}

}  // namespace drover::ctld
