#pragma once
// srun --multi-prog FILE [ARGS...]: srun reads the configuration file itself, before it asks
// the controller for anything, so a bad file is reported (file, line, what is accepted) and
// nothing starts. The step carries the file's text; the controller checks it again against
// the step's task count and gives each node its tasks' argv (src/jobs/steps.cpp).
#include <string>

#include "drover/result.h"
#include "drover/v1/jobs.pb.h"
#include "jobspec/build_spec.h"

namespace drover::cli {

// The largest file srun sends: far more than one line per task of any step.
inline constexpr std::size_t kMaxMultiProgBytes = 4u << 20;

// The file named by the request's command, read and parsed; with -n (or SLURM_NTASKS) also
// checked against that task count. Errors are srun's message without its "srun: error: ".
Result<v1::MultiProgram> loadMultiProg(const jobspec::StepRequest& request);

}  // namespace drover::cli
