#pragma once
// sbatch's parsed request (src/jobspec) as the wire's JobSpec (proto/drover/v1/jobs.proto), with
// what only the submitting side knows: its environment (as --export selects it), working
// directory, host and command line.
#include <map>
#include <string>

#include "drover/v1/jobs.pb.h"
#include "jobspec/build_spec.h"

namespace drover::cli {

struct SubmitContext {
  std::map<std::string, std::string> environment;  // the submitter's whole environment
  std::string cwd;
  std::string host;
  std::string submit_line;  // "sbatch -J x --wrap=true", as Slurm records it
};

v1::JobSpec toWireSpec(const jobspec::BatchRequest& request, const SubmitContext& context);

// The environment --export selects: ALL (default) = everything plus the listed assignments;
// NONE / a bare list = only the listed variables, plus the SLURM_* ones, as Slurm.
std::map<std::string, std::string> exportedEnvironment(const jobspec::JobSpec& spec,
                                                       const std::map<std::string, std::string>& env);

}  // namespace drover::cli
