#pragma once
// scontrol wait_job and notify, as the reference Slurm 22.05's: wait_job answers whether a
// job's nodes are ready (Drover's nodes need no boot, so a running or suspended job's are; a
// pending or ended one is "no longer running" at once, as the reference said of both), notify
// sends a message to the salloc or srun holding an interactive allocation.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace drover::cli {

// The job id the reference's scontrol read from an argument: its leading digits ("12_3",
// "12.0" and "12x" are job 12); nullopt for none or 0.
std::optional<std::uint64_t> leadingJobId(const std::string& word);

// `words` is the command line from the verb on (the verb as typed).
int cmdWaitJob(const std::vector<std::string>& words);
int cmdNotify(const std::vector<std::string>& words);

}  // namespace drover::cli
