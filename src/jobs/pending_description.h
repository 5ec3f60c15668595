#pragma once
// Slurm's words for why a pending job waits, beyond its reason code: squeue's REASON column
// and scontrol's Reason= show them (JobInfo.reason_description), while sacct and squeue
// --json's state_reason keep the code. The reference printed, for a job that names a drained
// node, `ReqNodeNotAvail, UnavailableNodes:node04` (code ReqNodeNotAvail), and for a job whose
// partition has too few nodes up for its node count `Nodes required for job are DOWN, DRAINED
// or reserved for jobs in higher priority partitions` (code Resources).
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/reason.h"
#include "sched/types.h"

namespace drover::jobs {

inline constexpr std::string_view kNodesDownDescription =
    "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions";

// Which nodes the scheduler may use now (up, not drained), by name and per partition.
class NodeAvailability {
 public:
  // False when the nodes say what they said before (nothing was reset).
  bool reset(const std::vector<sched::Node>& nodes);
  bool empty() const { return byName_.empty(); }

  // The job's required nodes (-w) that are unknown, down, drained or not responding.
  std::vector<std::string> unavailableRequired(const sched::JobRequest& r) const;
  // How many usable nodes of the job's partition it does not exclude (-x).
  int usableFor(const sched::JobRequest& r) const;

 private:
  bool unchanged(const std::vector<sched::Node>& nodes) const;

  struct Entry {
    bool usable = false;
    std::vector<std::string> partitions;
  };
  std::unordered_map<std::string, Entry> byName_;
  std::unordered_map<std::string, int> usableInPartition_;
};

// The description of a pending job waiting for `reason`, "" when its code says it all.
std::string pendingDescription(const NodeAvailability& nodes, const sched::JobRequest& r,
                               sched::Reason reason);

}  // namespace drover::jobs
