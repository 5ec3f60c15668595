#pragma once
// srun's part of PMI for a step on several nodes (srun --mpi=pmi2): each node's supervisor
// serves its own tasks (node_server.h); srun learns the layout from the nodes' hellos and
// joins their fences. Pure state: the step I/O server (stepio/step_io_server.h) carries the
// frames.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pmi/node_server.h"

namespace drover::pmi {

class Relay {
 public:
  explicit Relay(std::uint32_t num_tasks) : num_tasks_(num_tasks) {}
  // The step's real task count, known once the controller laid it out.
  void setNumTasks(std::uint32_t num_tasks) { num_tasks_ = num_tasks; }

  // Node `node` (its index in the step) said hello with these ranks. Once every rank of the
  // step has its node: the layout as PMI_process_mapping, to send to every node (once).
  std::optional<std::string> joined(std::uint32_t node, const std::vector<std::uint32_t>& ranks);

  // Node `node`'s part of a fence. Once every node that joined sent its part of that fence:
  // the fence with every node's pairs (in node order), to send to every node.
  std::optional<Fence> part(std::uint32_t node, Fence fence);

 private:
  std::uint32_t num_tasks_;
  std::map<std::uint32_t, std::uint32_t> node_of_rank_;
  std::set<std::uint32_t> nodes_;                               // nodes that said hello
  bool started_ = false;
  std::map<std::uint32_t, std::map<std::uint32_t, Pairs>> fences_;  // sequence -> node -> pairs
};

}  // namespace drover::pmi
