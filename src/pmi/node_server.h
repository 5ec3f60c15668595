#pragma once
// One node's PMI server for a step (srun --mpi=pmi2): the protocol and the state behind the
// sockets of this node's tasks. The step supervisor owns the sockets (stepd/pmi_service.h)
// and feeds this class what each task wrote; it answers in the wire that task speaks
// (wire.h: PMI-1 lines or PMI-2 frames, as Slurm's pmi2 plugin takes both).
//
// The key-value space is the step's: a task's puts reach the other tasks at a fence (PMI-1
// barrier_in, PMI-2 kvs-fence). Once every task of this node still in the step entered fence
// number S (1, 2, ...), takeFence() hands out this node's puts since fence S-1; the host sends
// them to srun, which answers every node with all nodes' puts (fenceDone) once each node sent
// its part, and the waiting tasks are answered. A step whose tasks all run here fences alone.
//
// Until start() gives the step's layout (PMI_process_mapping, which srun learns from every
// node's hello) requests wait unanswered; a step whose tasks all run here starts at once.
// PMI-2 node attributes (info-putnodeattr / info-getnodeattr with wait=TRUE) stay on this node.
// PMI-2's `ring` (Slurm's PMIX_Ring: each task learns its place in the step and its neighbours'
// values) is a fence whose pairs carry each task's entry under a reserved key, answered from
// all entries in rank order; the entries never enter the key-value space.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmi/wire.h"

namespace drover::pmi {

struct Fence {
  std::uint32_t sequence = 0;
  Pairs pairs;
};

struct Abort {
  std::uint32_t rank = 0;
  int exit_code = 1;
  std::string message;
};

class NodeServer {
 public:
  // What get_maxes says: MPICH splits longer values itself.
  static constexpr std::size_t kKvsNameMax = 256, kKeyMax = 256, kValueMax = 1024;

  struct Options {
    std::string jobid;                  // "12.0": PMI_JOBID, PMI-2 job-getid, PMI-1's kvsname
    std::uint32_t size = 1;             // the step's tasks (PMI_SIZE, the universe size)
    std::vector<std::uint32_t> ranks;   // this node's tasks' global ranks, in local order
  };

  explicit NodeServer(Options options);

  // The step's layout as PMI_process_mapping (process_mapping.h); requests held until now
  // are answered. Later calls change nothing.
  void start(const std::string& process_mapping);
  bool started() const { return started_; }

  // Bytes local task `local` wrote on its socket.
  void received(std::size_t local, std::string_view bytes);
  // Its socket reached end of file: it takes part in no later fence.
  void closed(std::size_t local);
  // Every node reached fence `sequence`; `pairs` are all their puts of it.
  void fenceDone(std::uint32_t sequence, const Pairs& pairs);

  // What to write to local task `local`'s socket since the last call.
  std::string takeOutput(std::size_t local);
  // Why local task `local` can no longer be understood ("" while it can): its socket is to be
  // closed, which the MPI library reports as a PMI failure.
  const std::string& protocolError(std::size_t local) const { return tasks_.at(local).error; }
  // This node's part of a fence every live local task entered (never for a step all here).
  std::optional<Fence> takeFence();
  // Tasks that called PMI abort since the last call.
  std::vector<Abort> takeAborts();
  const Options& options() const { return options_; }

 private:
  enum class Wait { kNone, kFence, kRing, kNodeAttribute };
  struct Task {
    CommandReader reader;
    std::string output;
    Wait wait = Wait::kNone;
    std::string wait_key;        // kNodeAttribute: the attribute awaited
    bool finalized = false;
    bool closed = false;
    std::string error;
  };

  void pump(std::size_t local);
  void handleLines(std::size_t local, const Command& c);
  void handleFramed(std::size_t local, const Command& c);
  void reply(std::size_t local, std::string_view name, const Pairs& args);
  void maybeFence();
  void answerFence(std::size_t local, const Pairs& ring_entries);
  const std::string* lookup(const std::string& key) const;
  std::string jobAttribute(const std::string& key) const;

  Options options_;
  std::vector<Task> tasks_;
  bool started_ = false;
  std::string process_mapping_;
  std::map<std::string, std::string> kvs_;          // every node's puts, as of the last fence
  Pairs unfenced_;                                  // this node's puts since then
  std::map<std::string, std::string> node_attributes_;
  std::uint32_t next_fence_ = 1;
  bool fence_pending_ = false;                      // sent, awaiting fenceDone
  std::optional<Fence> outgoing_;
  std::vector<Abort> aborts_;
};

}  // namespace drover::pmi
