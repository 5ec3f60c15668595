#include "jobs/pending_description.h"

#include <algorithm>

#include "drover/hostlist.h"

namespace drover::jobs {

bool NodeAvailability::reset(const std::vector<sched::Node>& nodes) {
  // Every pass hands the nodes in; mostly none changed, and a comparison allocates nothing.
  if (unchanged(nodes)) return false;
  byName_.clear();
  usableInPartition_.clear();
  for (const sched::Node& n : nodes) {
    byName_[n.name] = Entry{n.usable, n.partitions};
    if (!n.usable) continue;
    for (const std::string& p : n.partitions) ++usableInPartition_[p];
  }
  return true;
}

bool NodeAvailability::unchanged(const std::vector<sched::Node>& nodes) const {
  if (nodes.size() != byName_.size()) return false;
  for (const sched::Node& n : nodes) {
    auto it = byName_.find(n.name);
    if (it == byName_.end() || it->second.usable != n.usable ||
        it->second.partitions != n.partitions) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> NodeAvailability::unavailableRequired(const sched::JobRequest& r) const {
  std::vector<std::string> out;
  for (const std::string& name : r.requiredNodes) {
    auto it = byName_.find(name);
    if (it == byName_.end() || !it->second.usable) out.push_back(name);
  }
  return out;
}

int NodeAvailability::usableFor(const sched::JobRequest& r) const {
  auto it = usableInPartition_.find(r.partition);
  int usable = it == usableInPartition_.end() ? 0 : it->second;
  for (const std::string& name : r.excludedNodes) {
    auto n = byName_.find(name);
    if (n == byName_.end() || !n->second.usable) continue;
    const auto& parts = n->second.partitions;
    if (std::find(parts.begin(), parts.end(), r.partition) != parts.end()) --usable;
  }
  return usable;
}

std::string pendingDescription(const NodeAvailability& nodes, const sched::JobRequest& r,
                               sched::Reason reason) {
  if (nodes.empty()) return {};  // no view of the nodes yet: nothing to say of them
  if (reason == sched::Reason::ReqNodeNotAvail) {
    const std::vector<std::string> unavailable = nodes.unavailableRequired(r);
    if (unavailable.empty()) return {};
    return "ReqNodeNotAvail, UnavailableNodes:" + hostlist::compress(unavailable);
  }
  // A job of several partitions waits in whichever offers the earliest start: not judged here.
  if (reason == sched::Reason::Resources && r.partitions.empty() &&
      nodes.usableFor(r) < std::max(1, r.minNodes)) {
    return std::string(kNodesDownDescription);
  }
  return {};
}

}  // namespace drover::jobs
