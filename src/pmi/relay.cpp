#include "pmi/relay.h"

#include "pmi/process_mapping.h"

namespace drover::pmi {

std::optional<std::string> Relay::joined(std::uint32_t node, const std::vector<std::uint32_t>& ranks) {
  for (auto rank : ranks) node_of_rank_[rank] = node;
  nodes_.insert(node);
  if (started_ || node_of_rank_.size() < num_tasks_) return std::nullopt;
  started_ = true;
  std::vector<std::uint32_t> layout;
  layout.reserve(node_of_rank_.size());
  for (const auto& [rank, n] : node_of_rank_) layout.push_back(n);
  return processMapping(layout);
}

std::optional<Fence> Relay::part(std::uint32_t node, Fence fence) {
  auto& parts = fences_[fence.sequence];
  parts[node] = std::move(fence.pairs);
  if (!started_ || parts.size() < nodes_.size()) return std::nullopt;
  Fence whole{fence.sequence, {}};
  for (auto& [n, pairs] : parts)
    for (auto& pair : pairs) whole.pairs.push_back(std::move(pair));
  fences_.erase(fence.sequence);
  return whole;
}

}  // namespace drover::pmi
