#pragma once
// Dependency= as Slurm shows it while a job waits: each item that still holds the job back,
// with its state ("afterok:28(unfulfilled)", "afterany:5(failed)"), joined as written (',' or
// '?'). Satisfied items are dropped and a satisfied dependency shows nothing, as Slurm clears
// what no longer holds the job (golden 088).
#include <string>
#include <vector>

#include "jobspec/dependency_spec.h"
#include "sched/types.h"

namespace drover::jobs {

// `items` holds the state of each of spec.items, in order; `overall` is their combination.
std::string dependencyStatus(const jobspec::DependencySpec& spec,
                             const std::vector<sched::DependencyState>& items,
                             sched::DependencyState overall);

}  // namespace drover::jobs
