#pragma once
// GRES requests as Slurm prints them ("gres:gpu:h100:2"): squeue's %b and TRES_PER_NODE,
// scontrol's TresPerNode=, the steps' tres_per_node the controller records for squeue -s.
#include <string>

#include "drover/v1/jobs.pb.h"

namespace drover {

// "gres:NAME[:TYPE]:COUNT" (an unnamed request is a GPU one).
std::string gresRequestText(const v1::GresRequest& gres);

// Each --gres, else --gpus-per-node, comma separated: a JobSpec's or a StepSpec's (their
// fields share the names).
template <typename Spec>
std::string tresPerNodeText(const Spec& spec) {
  std::string out;
  for (const auto& g : spec.gres()) out += (out.empty() ? "" : ",") + gresRequestText(g);
  if (out.empty() && spec.gpus_per_node().count() > 0) out = gresRequestText(spec.gpus_per_node());
  return out;
}

// A job's other per-TRES requests as scontrol's TresPerJob=, TresPerTask=, CpusPerTres=,
// MemPerTres=, TresBind= and TresFreq= (and squeue's TRES_PER_JOB, ...) show them:
// "gres:gpu:3", "gres:gpu:1024" for --mem-per-gpu=1G, "gpu:closest", "gpu:high"; "" when the
// job did not ask.
std::string tresPerJobText(const v1::JobSpec& spec);
std::string tresPerTaskText(const v1::JobSpec& spec);
std::string cpusPerTresText(const v1::JobSpec& spec);
std::string memPerTresText(const v1::JobSpec& spec);
std::string tresBindText(const v1::JobSpec& spec);
std::string tresFreqText(const v1::JobSpec& spec);

}  // namespace drover
