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

// `-N 0` (or `0-0`): the reference's controller refused it, "Node count specification invalid"
// (sbatch, salloc and srun alike; `-N 0-2` it took). The wire's 0 means no -N, so the CLIs
// refuse it themselves, in their own words for a refused submission.
inline constexpr const char* kZeroNodesRefusal = "Node count specification invalid";
inline bool asksZeroNodes(const jobspec::JobSpec& spec) {
  return spec.nodes && spec.nodes->min == 0 && spec.nodes->max == 0;
}

// The environment --export selects: ALL (default) = everything plus the listed assignments;
// NONE / a bare list = only the listed variables, plus the SLURM_* ones, as Slurm.
std::map<std::string, std::string> exportedEnvironment(const jobspec::JobSpec& spec,
                                                       const std::map<std::string, std::string>& env);

void setGres(v1::GresRequest* out, const jobspec::GpuCount& count);

// --gres, --gpus, --gpus-per-node and --gpus-per-task into a JobSpec or a StepSpec (the
// fields have the same names in both).
template <typename WireSpec>
void setGpuRequests(const jobspec::JobSpec& s, WireSpec& w) {
  for (const auto& g : s.gres) {
    auto* out = w.add_gres();
    out->set_name(g.name);
    if (g.type) out->set_type(*g.type);
    out->set_count(static_cast<std::uint32_t>(g.count));
  }
  if (s.gpus) setGres(w.mutable_gpus(), *s.gpus);
  if (s.gpus_per_node) setGres(w.mutable_gpus_per_node(), *s.gpus_per_node);
  if (s.gpus_per_task) setGres(w.mutable_gpus_per_task(), *s.gpus_per_task);
}

}  // namespace drover::cli
