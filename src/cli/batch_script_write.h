#pragma once
// scontrol write batch_script JOB_ID [FILE]: a batch job's script, as it was submitted, into
// FILE (default slurm-<job_id>.sh in the current directory; "-" writes it to stdout), as Slurm's
// scontrol does it; only the job's owner, root and operators may read it.
#include <string>
#include <vector>

#include "cli/controller_client.h"

namespace drover::cli {

// The job whose script is read, from the id as given: Slurm's scontrol reads only its leading
// number ("12_3", "12.0", "12x" -> "12"; no digits -> "0", which names no job).
std::string batchScriptJobId(const std::string& job_id);

// The default file for a job id as given: slurm-<batchScriptJobId>.sh ("12_3" -> slurm-12.sh).
std::string defaultBatchScriptFile(const std::string& job_id);

// `words`: the whole command ("write", "batch_script", JOB_ID[, FILE]). Prints what Slurm's
// scontrol prints and returns the exit code.
int writeBatchScript(const std::vector<std::string>& words);

}  // namespace drover::cli
