#pragma once
// Values as sacct prints them (sizes for MaxRSS, ReqMem and TRESUsage mem/vmem; durations for
// Elapsed, Timelimit and TRESUsage cpu), shared by the accounting records and the sacct
// formatter.
#include <cstdint>
#include <string>

namespace drover::acct {

// 732K, 2M, 1G: kilobytes, moved to a larger unit only when exact, as Slurm does (1048576K is
// 1G but 1000000K stays in K); 0 prints "0".
std::string formatSizeKb(std::int64_t kb);
// 00:00:01, 1-02:03:04; negative durations print as 0.
std::string formatSacctDuration(std::int64_t seconds);

}  // namespace drover::acct
