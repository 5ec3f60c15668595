#pragma once
// PMI_process_mapping: which node each rank of a step runs on, in the notation MPICH reads
// (Hydra and Slurm's PMI servers write it): "(vector,(N,C,R),...)" where each triple is R
// consecutive ranks on node N, the next R on node N+1, ... over C nodes, the triples in rank
// order. Block layouts make one triple ("(vector,(0,2,4))" for 8 ranks on 2 nodes), cyclic ones
// one per round ("(vector,(0,2,1),(0,2,1))" for 4). MPICH learns from it which ranks share a
// node (and so shared memory).
#include <cstdint>
#include <string>
#include <vector>

namespace drover::pmi {

// node_of_rank[r]: the step's node index (0-based) of rank r.
std::string processMapping(const std::vector<std::uint32_t>& node_of_rank);

}  // namespace drover::pmi
