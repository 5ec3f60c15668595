#pragma once
// The controller's QueryAccounting handler, pure over an AccountingStore: the request
// (sacct's filter on the wire) narrowed by the caller's rights, the store's answer converted
// to accounting.proto. To wire it: add a row for "/drover.v1.Controller/QueryAccounting" to the
// method table that calls this with the controller's store (or a reader opened on the same
// SQLite file) and the cluster name.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "drover/accounting.h"
#include "drover/result.h"
#include "drover/v1/accounting.pb.h"
#include "rpc/caller.h"

namespace drover::ctld {

// A non-root caller that named no users and did not ask for all (-a) sees only their own jobs,
// as sacct's default.
acct::AcctFilter accountingFilterFor(const rpc::Caller& caller, const v1::QueryAccountingRequest& request);

// (account, user) -> the association's id, as sshare numbers the association tree.
using AssociationIds = std::map<std::pair<std::string, std::string>, std::uint32_t>;

// Each job's association id is looked up in `assoc_ids` (sacct's AssocID and -x).
Result<v1::QueryAccountingReply> queryAccounting(acct::AccountingStore& store, const rpc::Caller& caller,
                                                 const v1::QueryAccountingRequest& request,
                                                 const std::string& cluster_name,
                                                 const AssociationIds& assoc_ids = {});

}  // namespace drover::ctld
