#pragma once
// Memory sizes as sacct prints them (MaxRSS, ReqMem, TRESUsage mem/vmem), shared by the
// accounting records and the sacct formatter.
#include <cstdint>
#include <string>

namespace drover::acct {

// 732K, 2M, 1G: kilobytes, moved to a larger unit only when exact, as Slurm does (1048576K is
// 1G but 1000000K stays in K); 0 prints "0".
std::string formatSizeKb(std::int64_t kb);

}  // namespace drover::acct
