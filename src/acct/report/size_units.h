#pragma once
// sacct --units and --noconvert: how sizes print. Set once from sacct's options, read by the
// field formatters (sacct_values.cpp). By default usage sizes print as formatSizeKb (exact
// units) and memory requests as Slurm's TRES memory (common/tres_memory.h: 1536M is 1.50G, as
// the reference printed ReqMem, ReqTRES and AllocTRES).
//   --units=K|M|G|T|P  every size in that unit, two decimals unless whole (8000M: 7.81G,
//                      8192000K), ReqMem and the mem of AllocTRES/ReqTRES too (the reference's)
//   --noconvert        usage sizes (MaxRSS, AveRSS, MaxVMSize, AveVMSize) in bytes without a
//                      unit, memory requests in M as stored (the reference printed MaxRSS 823296
//                      and ReqMem 8000M)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover::acct::report {

struct SizeUnits {
  char unit = 0;          // 'K', 'M', 'G', 'T', 'P'; 0: Slurm's own choice
  bool no_convert = false;
};

void setSizeUnits(SizeUnits units);
const SizeUnits& sizeUnits();

// --units' value as the reference read it: its first letter, either case ("MB" is M).
Result<char> parseSizeUnit(std::string_view text);

std::string formatUsageSizeKb(std::int64_t kb);    // MaxRSS, AveRSS, MaxVMSize, AveVMSize
std::string formatMemoryRequestMb(std::int64_t mb);  // ReqMem
std::string convertTresSizes(const std::string& tres);  // mem= of AllocTRES/ReqTRES

}  // namespace drover::acct::report
