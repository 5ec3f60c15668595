#pragma once
// Node and cluster events for accounting, as slurmctld reports them to slurmdbd: a node that
// goes down or drained opens a node event (its state, reason, who set it, its TRES), one that
// is back in service closes it; the cluster's TRES open a cluster event that a change of them
// closes. Pure: the caller gives the node records and the time, and writes the changes it
// gets with the next accounting batch (acct::EventChange, applied by the store).
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ctld/node_registry.h"
#include "drover/accounting.h"
#include "drover/config.h"

namespace drover::ctld {

// The TRES string of a node's event: "cpu=4,mem=16000M,gres/gpu=2" (mem and gres/gpu left out
// when 0), from its configuration.
std::string nodeTres(const config::NodeConfig& node);
// The cluster's: its nodes' TRES summed, with node=<count>.
std::string clusterTres(const std::vector<config::NodeConfig>& nodes);

class NodeEventTracker {
 public:
  // `uid_of` resolves the name of who set a reason (an unknown name: 0); `system_user` is who
  // the controller's own changes are by (an event it opens when a draining node is drained).
  NodeEventTracker(std::string cluster, std::function<std::uint32_t(const std::string&)> uid_of,
                   std::string system_user = "slurm");

  // The events the store holds open when the controller starts: they are carried on, and
  // closed or kept as the nodes' states say.
  void restore(const std::vector<acct::EventRecord>& open);

  // A node's state now. Down (DOWN, or not responding past the timeout) or drained: its event
  // opens (a different open one closes first). Draining (drained with jobs still running): no
  // event until its jobs are done, then one by `system_user`, as the reference's slurmctld
  // (a node drained while running a job had its DRAIN event, by slurm, when the job ended).
  // Registered, responding, up and not drained: its
  // open event closes. A node not heard from since the controller started (UNKNOWN) changes
  // nothing: its event neither starts nor ends until it is known.
  // `busy`: jobs hold resources on it (the registry's state does not say).
  void observe(const NodeRecord& node, std::int64_t now, std::vector<acct::EventChange>* out,
               bool busy = false);

  // Nodes seen draining: the caller observes them again when jobs end.
  const std::set<std::string>& draining() const { return draining_; }

  // The configuration now: open events of nodes it no longer has close, and the cluster's
  // event opens when its nodes or TRES are new ("Cluster Registered TRES", as Slurm's).
  void configured(const std::vector<config::NodeConfig>& nodes, std::int64_t now,
                  std::vector<acct::EventChange>* out);

  // Open events, by node name ("" = the cluster's).
  const std::map<std::string, acct::EventRecord>& open() const { return open_; }

 private:
  void close(const std::string& name, std::int64_t now, std::vector<acct::EventChange>* out);

  std::string cluster_;
  std::function<std::uint32_t(const std::string&)> uid_of_;
  std::map<std::string, acct::EventRecord> open_;
  std::string system_user_;
  std::set<std::string> draining_;   // nodes seen draining, whose drained event is the system's
};

// Slurm's node state numbers for an event's StateRaw (common/slurm_node_state.h): the base
// state with the DRAIN flag.
std::uint32_t eventStateRaw(const NodeRecord& node);

}  // namespace drover::ctld
