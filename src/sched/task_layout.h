#pragma once
// How a job's tasks are laid out over the nodes it starts on, as Slurm's select/cons_tres does
// with the default block distribution: `-N 2 -n 4 -c 2` on idle 16-CPU nodes runs 3 tasks on
// the first node and 1 on the second (SLURM_TASKS_PER_NODE=3,1, golden 041), 2+2 when the
// first node holds only 2 of them; `-n 20` alone on 16-CPU nodes runs 16+4. Planning keeps the
// even share of computeDemand (never less room in total than the layout needs); the layout is
// made only when a job starts, on the nodes already chosen for that share.
#include <functional>
#include <vector>

#include "sched/types.h"

namespace drover::sched {

// Whether a start of `request` on `nodes` nodes is laid out by blockLayout: -n given without
// --ntasks-per-node (which stays uniform, as in Slurm), at least one task per node, more than
// one node, and not whole nodes (--exclusive keeps its per-node rule).
bool laysOutTasks(const JobRequest& request, int nodes, bool wholeNode);

// Tasks per node, in node order: each node gets at least one task and the earlier nodes as many
// as `fits` allows, leaving one for each later node. `fits(i, t)` tells whether node i can hold
// t tasks for the job's whole run; it must be monotone in t and hold for ceil(ntasks/nodes), so
// the layout always exists. Asks each node O(log ntasks) times.
std::vector<int> blockLayout(int ntasks, int nodes, const std::function<bool(int, int)>& fits);

}  // namespace drover::sched
