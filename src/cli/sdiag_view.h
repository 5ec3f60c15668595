#pragma once
// sdiag's report, laid out as Slurm 22.05's sdiag prints it (tests/unit/cli/golden/sdiag/):
// the controller's counters, the scheduling pass, backfill, and the RPC tables by message type
// and by user, sorted as -i/-t/-T ask (by count otherwise).
#include <cstdint>
#include <string>

#include "drover/v1/controller.pb.h"

namespace drover::cli {

enum class SdiagSort {
  kCount,      // default: most calls first
  kId,         // -i: by message type id and by uid
  kTotalTime,  // -t: most total time first
  kAveTime,    // -T: highest average time first
};

// Times are printed in the local time zone, as Slurm's sdiag does.
std::string renderSdiag(const v1::GetStatisticsReply& stats, SdiagSort sort);

}  // namespace drover::cli
