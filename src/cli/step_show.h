#pragma once
// `scontrol show step`: Slurm's key=value record for a running step (tests/unit/cli/golden
// 126-128), multi-line or one line (-o). Pure: a step of a JobInfo in, text out.
#include <cstdint>
#include <string>

#include "cli/step_rows.h"

namespace drover::cli {

std::string formatStepRecord(const StepRow& row, bool oneliner);

}  // namespace drover::cli
