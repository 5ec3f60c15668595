#pragma once
// Where a job step (srun inside an allocation) runs: which of the job's nodes, how many tasks
// on each and which ranks (block, cyclic, plane=N as srun's man page defines them), and the
// CPUs and GPU indices it uses there. Pure code: the job's allocation, the step request and what
// other running exclusive steps hold in, a layout or Slurm's refusal out.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/jobs.pb.h"

namespace drover::jobs {

// Slurm's texts for a step that cannot be laid out.
inline constexpr const char* kStepNodeConfigUnavailable =
    "Requested node configuration is not available";
inline constexpr const char* kStepTooManyProcessors = "More processors requested than permitted";
inline constexpr const char* kStepNodesBusy = "Requested nodes are busy";
inline constexpr const char* kStepBadDistribution = "Invalid task distribution specification";

// One node of the job's allocation, as the step sees it.
struct StepAllocNode {
  std::string name;
  std::uint32_t cpus = 0;
  std::vector<std::uint32_t> gpus;   // the job's GPU indices there
  std::uint32_t tasks = 0;           // the job's tasks there (its default step layout)
};

// What running exclusive steps hold on one node.
struct StepNodeUse {
  std::uint32_t cpus = 0;
  std::set<std::uint32_t> gpus;
};

struct StepLayout {
  std::vector<v1::StepNode> nodes;   // in step order
  std::vector<std::size_t> job_index;  // per step node: its index in the job's allocation
  std::uint32_t ntasks = 0;
  std::uint32_t cpus_per_task = 1;
  std::string distribution;          // "block", "cyclic", "plane" (SLURM_DISTRIBUTION)
  std::uint32_t plane_size = 0;
  std::string layout_name() const;   // "Block", "Cyclic", "Plane" (sacct)
};

// Lays out `spec` on `job`. Defaults as Slurm's srun inside an allocation: without -N, -n,
// --ntasks-per-node, -w or -x the step runs the job's own task layout on all its nodes;
// -N alone runs one task per node; -n alone spreads the tasks over up to n nodes. Exclusive
// steps take only CPUs and GPUs that `exclusive_use` leaves free; other steps share.
// A step record's TRES (sacct AllocTRES of ID.batch, ID.0, ...): Slurm's steps carry no
// billing, unlike their job ("cpu=3,gres/gpu=2,mem=12000M,node=1", golden 111).
std::string stepTres(std::int64_t cpus, std::int64_t mem_mb, std::int64_t nodes, std::int64_t gpus);

Result<StepLayout> layoutStep(const std::vector<StepAllocNode>& job, const v1::StepSpec& spec,
                              const std::map<std::string, StepNodeUse>& exclusive_use);

}  // namespace drover::jobs
