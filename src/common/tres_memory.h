#pragma once
// Memory as Slurm prints it in TRES strings and requests (scontrol's TRES=, sinfo's CfgTRES,
// sacct's ReqMem, ReqTRES and AllocTRES): 65536 -> "64G", 64000 -> "62.50G", 1536 -> "1.50G",
// 12000 -> "12000M". Slurm moves to the next unit only while the value stays exact to two
// decimals.
#include <cstdint>
#include <string>

namespace drover {

std::string formatTresMemory(std::uint64_t mb);

}  // namespace drover
