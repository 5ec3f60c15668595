#pragma once
// scontrol update PartitionName=NAME KEY=VALUE...: a partition's settings in the running
// controller, as the reference Slurm 22.05's scontrol took and refused them (checked side by
// side, 2026-12-03). Keys in any case: State (UP DOWN DRAIN INACTIVE, any beginning: `d` is
// DOWN), MaxTime and DefaultTime (Slurm's time specs, UNLIMITED, INFINITE or -1), MaxNodes (a
// count, UNLIMITED or INFINITE), Default (YES/NO), PriorityTier, PriorityJobFactor and Priority
// (both at once; at most 65533), AllowAccounts, AllowGroups (ALL or a list), Nodes (a hostlist,
// ALL, or empty for none) and OverSubscribe/Shared (NO or EXCLUSIVE). The last PartitionName
// (or Partition=) given names the partition, as the reference's. `create` and `delete` as well.
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/controller.pb.h"

namespace drover::cli {

// Whether an update's words name a partition (some word is PartitionName=, in any case).
bool updatesPartition(const std::vector<std::string>& specs);

// The request for `specs` (the words after `update` or `create`), or the lines scontrol
// prints on stderr before exit 1, each ending in a newline, in the reference's words. An
// update must change something; a creation may give the name alone.
Result<v1::UpdatePartitionRequest> parseUpdatePartition(
    const std::vector<std::string>& specs,
    v1::UpdatePartitionRequest::Action action = v1::UpdatePartitionRequest::UPDATE);

// Sends it: `slurm_update error: WHY` and 1 when the controller refuses.
int cmdUpdatePartition(const std::vector<std::string>& specs);

// Whether `words` (from the verb on) are `create PartitionName=...` or `delete
// PartitionName=NAME` (`Partition=NAME` too), which runCreateDeletePartition takes.
bool isPartitionCreateOrDelete(const std::vector<std::string>& words);
// scontrol create PartitionName=NAME [KEY=VALUE...]: a new partition, cluster.conf's defaults
// for what is not given (`Error creating the partition: WHY`); scontrol delete
// PartitionName=NAME: refused while a job names it (`delete_partition ARG: Partition is in
// use`). Both last until the next reconfigure or restart, as updates.
int runCreateDeletePartition(const std::vector<std::string>& words);

}  // namespace drover::cli
