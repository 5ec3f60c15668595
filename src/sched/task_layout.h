#pragma once
// How a job's tasks are laid out over the nodes it starts on, as Slurm's select/cons_tres does
// with the default block distribution: `-N 2 -n 4 -c 2` on idle 16-CPU nodes runs 3 tasks on
// the first node and 1 on the second (SLURM_TASKS_PER_NODE=3,1, golden 041), 2+2 when the
// first node holds only 2 of them; `-n 20` alone on 16-CPU nodes runs 16+4. Planning keeps the
// even share of computeDemand (never less room in total than the layout needs); the layout is
// made only when a job starts, on the nodes walkNodes chose.
#include <functional>
#include <vector>

#include "sched/types.h"

namespace drover::sched {

// Whether a start of `request` on `nodes` nodes is laid out by blockLayout: -n given without
// --ntasks-per-node (which stays uniform, as in Slurm), at least one task per node, more than
// one node, and not whole nodes (--exclusive keeps its per-node rule).
bool laysOutTasks(const JobRequest& request, int nodes, bool wholeNode);

// Tasks per node, in node order, over `nodes` nodes when the job asked for at least
// `min_nodes` (-N min-max; min_nodes == nodes for -N N). `fits(i, t)` tells whether node i can
// hold t tasks for the job's whole run; it must be monotone in t and hold for ceil(ntasks /
// min_nodes), so the layout always exists. Asks each node O(log ntasks) times.
//
// As the reference Slurm laid jobs out (probed on it; see task_layout_test.cpp): first each
// node in order takes as many tasks as it holds, leaving one for each later node up to
// min_nodes, until no task is left; a node past that point (one the range added) takes one.
// Then the tasks are dealt round-robin, one per node per round, each node up to what it took:
// with -N N (or every node needed) that is the first pass unchanged (`-N 4 -n 6 -c 4` on idle
// 16-CPU nodes: 3,1,1,1), while added nodes take their task from the fullest ones
// (`-N 1-4 -n 6 -c 4`: 4,2 then 2,2,1,1; `-N 1-4 -n 10 -c 4`: 4,4,2 then 4,3,2,1).
std::vector<int> blockLayout(int ntasks, int nodes, int min_nodes,
                             const std::function<bool(int, int)>& fits);

// Which candidate nodes a laid-out job starts on, as the reference Slurm chose them when the
// first nodes were partly busy (node01 holding 1 task: `-N 4 -n 6` ran 1,3,1,1; holds 1,16,6,16:
// `-N 3 -n 30` ran on node01,02,04 at 1,16,13). `rooms[i]` is how many tasks candidate i holds
// for the job's run, each at least 1, in the order walked (the scheduler's: lightest first, then
// hostlist order). A node takes as many tasks as it holds while keeping one for each later node
// up to `keep` (blockLayout's first pass, with its `min_nodes`), and is passed over when the
// tasks left after its share could not fit on the nodes still allowed (at most `max_nodes` in
// all) that hold the most. Once every task is placed the walk keeps taking nodes up to
// `max_nodes` when `extend` (-N min-max takes as many as it can), else only up to `min_nodes`.
// Returns the positions taken, ascending, or empty when no `min_nodes` to `max_nodes` of the
// candidates hold `ntasks` between them. blockLayout lays the tasks out over any such nodes in
// any order (exactly as the walk counted them when that is the walk's order).
std::vector<int> walkNodes(int ntasks, int keep, int min_nodes, int max_nodes,
                           const std::vector<int>& rooms, bool extend = true);

// The fewest of the candidates, at least `min_nodes` and at most `max_nodes`, that hold `ntasks`
// between them (0: none do): a job without -N starts on that many, as Slurm's did.
int fewestNodesHolding(int ntasks, int min_nodes, int max_nodes, std::vector<int> rooms);

}  // namespace drover::sched
