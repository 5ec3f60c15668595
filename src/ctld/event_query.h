#pragma once
// The controller's QueryEvents handler (sacctmgr show event), pure over a SQLite accounting
// store: the request as an acct::EventFilter, the store's events as accounting.proto. Events
// are no private data (Slurm lists them to every user), so the caller does not narrow them.
#include <cstdint>
#include <string>

#include "acct/sqlite_store.h"
#include "drover/result.h"
#include "drover/v1/accounting.pb.h"

namespace drover::ctld {

acct::EventFilter eventFilterFromWire(const v1::QueryEventsRequest& request);
v1::AcctEvent eventToWire(const acct::EventRecord& event);
acct::EventRecord eventFromWire(const v1::AcctEvent& event);

// Why a request cannot be answered (an unknown event kind, an empty window), or "".
std::string eventsRequestError(const v1::QueryEventsRequest& request);

Result<v1::QueryEventsReply> queryEvents(acct::SqliteAccountingStore& store,
                                         const v1::QueryEventsRequest& request,
                                         const std::string& cluster_name, std::int64_t now);

}  // namespace drover::ctld
