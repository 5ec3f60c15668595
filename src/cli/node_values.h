#pragma once
// Values derived from NodeInfo/PartitionInfo that several commands print the same way:
// TRES strings (CfgTRES=cpu=16,mem=64G,billing=16,gres/gpu=8; memory by common/tres_memory.h),
// GPU counts, Slurm timestamps.
#include <cstdint>
#include <string>

#include "common/tres_memory.h"
#include "drover/v1/types.pb.h"

namespace drover::cli {

std::uint32_t configuredGpus(const v1::NodeInfo& node);   // from the GPU list, else from gres
std::string nodeCfgTres(const v1::NodeInfo& node);        // cpu=16,mem=64G,billing=16,gres/gpu=8
std::string nodeAllocTres(const v1::NodeInfo& node);      // cpu=3,mem=12000M ("" when idle)
std::string partitionTres(const v1::PartitionInfo& part); // cpu=64,mem=256G,node=4,billing=64,...

// gres_used as sinfo --json prints it ("gpu:8", no index list).
std::string gresUsedPlain(const v1::NodeInfo& node);

// True once the node's agent has reported (load, free memory, OS are known).
bool hasReported(const v1::NodeInfo& node);

// Slurm's timestamp style, local time: 2026-11-30T12:28:34; `zero_text` for 0 ("None").
std::string formatIsoTime(std::int64_t unix_seconds, const char* zero_text = "None");

// CPU load as Slurm prints it: 6.65 (two decimals).
std::string formatCpuLoad(double load);

}  // namespace drover::cli
