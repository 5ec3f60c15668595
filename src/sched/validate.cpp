#include <algorithm>
#include <set>

#include "sched/constraint.h"
#include "sched/demand.h"
#include "sched/scheduler.h"

namespace drover::sched {

namespace {

Validation reject(RejectCode code, const std::string& detail) {
  static constexpr const char* kSlurm[] = {
      "",
      "Invalid partition name specified",
      "Invalid account or account/partition combination specified",
      "Invalid feature specification",
      "Invalid node name specified",
      "Invalid generic resource (gres) specification",
      "Node count specification invalid",
      "Requested node configuration is not available",
  };
  return Validation{code, std::string(kSlurm[static_cast<int>(code)]) + ": " + detail};
}

int typedGpus(const Node& n, const std::string& type) {
  if (type.empty()) return static_cast<int>(n.gpuTypes.size());
  return static_cast<int>(std::count(n.gpuTypes.begin(), n.gpuTypes.end(), type));
}

}  // namespace

Validation validateRequest(const JobRequest& r, const std::vector<Node>& nodes,
                           const std::vector<Partition>& partitions) {
  auto part = std::find_if(partitions.begin(), partitions.end(),
                           [&](const Partition& p) { return p.name == r.partition; });
  if (part == partitions.end()) {
    return reject(RejectCode::InvalidPartition, "no partition named \"" + r.partition + "\"");
  }
  if (!part->allowedAccounts.empty() &&
      std::find(part->allowedAccounts.begin(), part->allowedAccounts.end(), r.account) ==
          part->allowedAccounts.end()) {
    return reject(RejectCode::InvalidAccount,
                  "account \"" + r.account + "\" may not use partition \"" + r.partition + "\"");
  }
  if (r.ntasks < 1 || r.cpusPerTask < 1 || r.minNodes < 0 ||
      (r.maxNodes > 0 && r.minNodes > r.maxNodes)) {
    return reject(RejectCode::InvalidNodeCount,
                  "need ntasks >= 1, cpus-per-task >= 1 and min nodes <= max nodes");
  }
  auto constraint = Constraint::parse(r.constraint);
  if (!constraint) return reject(RejectCode::InvalidFeature, constraint.error());

  std::vector<const Node*> inPart;
  std::set<std::string> features;
  bool typeKnown = r.gpuType.empty();
  int largestCpus = 1;
  for (const Node& n : nodes) {
    if (std::find(n.partitions.begin(), n.partitions.end(), r.partition) == n.partitions.end())
      continue;
    inPart.push_back(&n);
    features.insert(n.features.begin(), n.features.end());
    if (!typeKnown && typedGpus(n, r.gpuType) > 0) typeKnown = true;
    largestCpus = std::max(largestCpus, n.cpus);
  }
  for (const std::string& f : constraint->names()) {
    if (!features.count(f)) {
      return reject(RejectCode::InvalidFeature,
                    "no node in partition \"" + r.partition + "\" has feature \"" + f + "\"");
    }
  }
  // A GPU type no node has is a node configuration Slurm cannot satisfy (golden 011); only an
  // unknown GRES name is an invalid specification, refused before this (jobs/submit.cpp).
  if (!typeKnown) {
    return reject(RejectCode::NodeConfigUnavailable, "no node in partition \"" + r.partition +
                                                         "\" has GPUs of type \"" + r.gpuType +
                                                         "\"");
  }
  auto byName = [&](const std::string& name) {
    return std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == name; });
  };
  for (const auto* list : {&r.requiredNodes, &r.excludedNodes}) {
    for (const std::string& name : *list) {
      if (byName(name) == nodes.end()) {
        return reject(RejectCode::InvalidNodeName, "no node named \"" + name + "\"");
      }
    }
  }
  // A node both required and excluded: the reference refused it at once (sbatch, salloc and
  // srun alike), where the job would otherwise wait for ever.
  for (const std::string& name : r.requiredNodes) {
    if (std::find(r.excludedNodes.begin(), r.excludedNodes.end(), name) != r.excludedNodes.end()) {
      return reject(RejectCode::InvalidNodeName,
                    "node \"" + name + "\" is both required (-w) and excluded (-x)");
    }
  }

  Demand d = computeDemand(r, largestCpus);
  if (r.maxNodes > 0 && d.nodes > r.maxNodes) {
    return reject(RejectCode::InvalidNodeCount,
                  std::to_string(d.nodes) + " nodes needed but at most " +
                      std::to_string(r.maxNodes) + " allowed");
  }
  std::vector<std::string> feats;
  int capable = 0;
  for (const Node* n : inPart) {
    if (std::find(r.excludedNodes.begin(), r.excludedNodes.end(), n->name) !=
        r.excludedNodes.end())
      continue;
    feats = n->features;
    std::sort(feats.begin(), feats.end());
    if (!constraint->matches(feats)) continue;
    Capacity total{n->cpus, n->memoryMb, typedGpus(*n, d.gpuType)};
    if (!total.covers(d.perNode)) continue;
    ++capable;
  }
  for (const std::string& name : r.requiredNodes) {
    const Node& n = *byName(name);
    Capacity total{n.cpus, n.memoryMb, typedGpus(n, d.gpuType)};
    if (std::find(n.partitions.begin(), n.partitions.end(), r.partition) == n.partitions.end() ||
        !total.covers(d.perNode)) {
      return reject(RejectCode::NodeConfigUnavailable,
                    "required node \"" + name + "\" cannot hold the request");
    }
  }
  if (capable < d.nodes) {
    return reject(RejectCode::NodeConfigUnavailable,
                  "needs " + std::to_string(d.nodes) + " node(s) with " +
                      std::to_string(d.perNode.cpus) + " CPUs, " +
                      std::to_string(d.perNode.memoryMb) + " MB and " +
                      std::to_string(d.perNode.gpus) + " GPUs each; partition \"" + r.partition +
                      "\" has " + std::to_string(capable) + " such node(s)");
  }
  return Validation{};
}

}  // namespace drover::sched
