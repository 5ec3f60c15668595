#pragma once
// What sreport asks the controller for a report (QueryUsage: the sums, not the job records) and
// how the answer becomes the report's UsageSums. Pure, for tests.
#include <cstdint>

#include "cli/sreport_args.h"
#include "cli/sreport_usage.h"
#include "drover/v1/accounting.pb.h"

namespace drover::cli::sreport {

// The report's window, conditions and grouping as a request: every user's jobs (as sreport has
// always asked, `all_users`), earlier runs of requeued jobs too (they used their nodes), and the
// Users=/Accounts= the report filters its rows by (Accounts= only where it names rows, not where
// it names subtrees whose sums need the accounts below).
v1::QueryUsageRequest usageRequest(const ReportRequest& request, const Window& window, std::int64_t now);

// The reply's groups as the report (the request's kind) reads them.
UsageSums usageSums(const ReportRequest& request, const v1::QueryUsageReply& reply);

}  // namespace drover::cli::sreport
