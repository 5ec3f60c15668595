#include "pmi/process_mapping.h"

namespace drover::pmi {

std::string processMapping(const std::vector<std::uint32_t>& node_of_rank) {
  struct Triple {
    std::uint32_t node, nodes, ranks;
  };
  std::vector<Triple> triples;
  for (std::size_t r = 0; r < node_of_rank.size();) {
    // A run of consecutive ranks on one node...
    std::size_t end = r;
    while (end < node_of_rank.size() && node_of_rank[end] == node_of_rank[r]) ++end;
    const auto node = node_of_rank[r];
    const auto run = static_cast<std::uint32_t>(end - r);
    // ...extends the last triple when it is as long and on the next node.
    if (!triples.empty()) {
      Triple& last = triples.back();
      if (last.ranks == run && last.node + last.nodes == node) {
        ++last.nodes;
        r = end;
        continue;
      }
    }
    triples.push_back({node, 1, run});
    r = end;
  }
  std::string out = "(vector";
  for (const auto& t : triples)
    out += ",(" + std::to_string(t.node) + "," + std::to_string(t.nodes) + "," +
           std::to_string(t.ranks) + ")";
  return out + ")";
}

}  // namespace drover::pmi
