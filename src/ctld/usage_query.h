#pragma once
// The controller's QueryUsage handler (sreport), pure over a SQLite accounting store: the
// request's filter narrowed by the caller's rights exactly as QueryAccounting narrows it, the
// store's per-key sums (SqliteAccountingStore::usage) multiplied by each key's TRES counts and
// folded into the groups the report asked for; for cluster Utilization also the nodes' down
// and drained time from their events (SqliteAccountingStore::downTime).
#include <cstdint>
#include <string>
#include <vector>

#include "acct/sqlite_store.h"
#include "drover/result.h"
#include "drover/v1/accounting.pb.h"
#include "rpc/caller.h"

namespace drover::ctld {

// Why a request cannot be answered (an empty window, a grouping this build does not know), or
// "" when it can: the handler answers INVALID_ARGUMENT with it.
std::string usageRequestError(const v1::QueryUsageRequest& request);

// The store's rows as the reply's groups (pure, for tests).
v1::QueryUsageReply foldUsage(const std::vector<acct::UsageRow>& rows, v1::UsageGrouping grouping,
                              const std::string& size_tres);

// cluster Utilization's Down: the node events' seconds in the window times each one's TRES
// counts, into reply.down (pure, for tests).
void foldDown(const std::vector<acct::DownRow>& rows, v1::QueryUsageReply& reply);

// `now` stands in for a request's now of 0.
Result<v1::QueryUsageReply> queryUsage(acct::SqliteAccountingStore& store, const rpc::Caller& caller,
                                       const v1::QueryUsageRequest& request,
                                       const std::string& cluster_name, std::int64_t now);

}  // namespace drover::ctld
