#pragma once
// The variables salloc gives its command (Slurm's salloc OUTPUT ENVIRONMENT VARIABLES), from
// the granted job, through src/launch's one definition of each variable, minus the ones only
// a node of the job has (SLURMD_NODENAME, CUDA_VISIBLE_DEVICES, SLURM_CPUS_ON_NODE, ...):
// salloc's command runs where salloc runs, and srun inside it reads SLURM_JOB_ID.
#include <cstdint>
#include <map>
#include <string>

#include "drover/v1/jobs.pb.h"

namespace drover::cli {

struct SallocContext {
  std::string cluster_name;
  std::string controller_host;
  std::uint16_t controller_port = 0;
  std::string conf_path;
  std::string submit_dir;
  std::string submit_host;
  // --mem-per-cpu was given: the reference's salloc exported SLURM_MEM_PER_CPU only then, not
  // for a partition's default (which the job's record holds).
  bool mem_per_cpu_given = false;
};

std::map<std::string, std::string> sallocVariables(const v1::JobInfo& job, const SallocContext& ctx);

}  // namespace drover::cli
