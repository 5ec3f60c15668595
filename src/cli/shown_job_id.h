#pragma once
// The job id `scontrol show job ID` takes, read as the reference Slurm 22.05's scontrol reads it
// (golden/edges 40-48): JOB, JOB_TASK (an empty TASK is task 0) or either with +OFFSET (a
// heterogeneous job's component), digits only, leading zeros allowed. No array expression, step
// or list: those are "Invalid job id specified" before the controller is asked.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace drover::cli {

struct ShownJobId {
  std::uint32_t job = 0;
  std::optional<std::uint32_t> task;
  std::optional<std::uint32_t> offset;
};

// Empty when `text` is not such an id (or a number does not fit 32 bits, where the reference
// wrapped it: `5_9999999999` was its task 1410065407).
std::optional<ShownJobId> parseShownJobId(std::string_view text);

// What the controller is asked for: "28" or "29_3" (offset aside: Drover has no heterogeneous
// jobs, so only +0 names a job).
std::string controllerJobId(const ShownJobId& id);

// As the reference's "Job ... not found" names it: "29_7", "28_0", "28+1".
std::string shownJobIdText(const ShownJobId& id);

}  // namespace drover::cli
