#pragma once
// One job of squeue --json as Slurm 22.05 prints it (slurm-reference/golden 073): every key of
// its job object, in its order, with the values Drover knows and Slurm's placeholders (null,
// "", 0) for the ones it has no counterpart for (federation, burst buffers, het jobs, ...).
#include <cstdint>
#include <string>
#include <vector>

#include "cli/slurm_json.h"
#include "drover/v1/jobs.pb.h"

namespace drover::cli {

// `cluster`: the cluster name for the "cluster" key ("" when unknown).
json::Value squeueJobJson(const v1::JobInfo& job, std::int64_t now, const std::string& cluster);

// The keys squeueJobJson writes for `job` (job_resources only for a job that has nodes), in
// order; tests compare them with the golden's.
std::vector<std::string> squeueJobJsonKeys(const v1::JobInfo& job);

}  // namespace drover::cli
