#pragma once
// `scontrol show job`: Slurm's key=value record for a job (slurm-reference/golden 086-092, 106,
// 108), multi-line or one line (-o), with -d's extra lines. Pure: JobInfo in, text out.
#include <cstdint>
#include <string>

#include "drover/v1/jobs.pb.h"

namespace drover::cli {

std::string formatJobRecord(const v1::JobInfo& job, std::int64_t now, bool oneliner, bool details);

}  // namespace drover::cli
