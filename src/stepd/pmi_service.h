#pragma once
// srun --mpi=pmi2 on one node: a socket pair per task, whose task end the task finds under the
// number PMI_FD names, and the node's PMI server (pmi/node_server.h) answering on the other
// ends. srun's layout and finished fences come in over the step's I/O stream, this node's
// fences and its tasks' aborts go out on it (io_forwarder.h, step_io.proto).
//
// Driven by the supervisor's poll loop as the I/O forwarder is: addPollFds / handlePoll, then
// exchange() after the forwarder's own turn.
#include <poll.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "drover/result.h"
#include "pmi/node_server.h"
#include "stepd/io_forwarder.h"

namespace drover::stepd {

class PmiService {
 public:
  // `io` (not owned) carries the exchange with srun; it outlives this service.
  PmiService(pmi::NodeServer::Options options, IoForwarder& io);
  ~PmiService();
  PmiService(const PmiService&) = delete;
  PmiService& operator=(const PmiService&) = delete;

  // Makes local task `local`'s socket pair; returns the task's end (close-on-exec, which the
  // task's spawn clears on that one descriptor: TaskSpec.pmi_fd). closeTaskEnd() once spawned.
  Result<int> openTask(std::size_t local);
  void closeTaskEnd(std::size_t local);

  // What a PMI client reads, as Slurm's pmi2 plugin sets it: PMI_FD, PMI_JOBID, PMI_RANK,
  // PMI_SIZE, and SLURM_MPI_TYPE=pmi2.
  std::vector<std::pair<std::string, std::string>> taskVariables(std::size_t local, int task_fd) const;

  void addPollFds(std::vector<pollfd>& fds);
  void handlePoll(const std::vector<pollfd>& fds, std::size_t first);
  // srun's layout and finished fences in; this node's fences and aborts out; replies written.
  void exchange();

 private:
  struct Socket {
    int fd = -1;             // ours
    int task_end = -1;       // until closeTaskEnd
    std::string unsent;      // replies the task has not taken yet
  };
  void readTask(std::size_t local);
  void writeTask(std::size_t local);
  void closeTask(std::size_t local);

  pmi::NodeServer server_;
  IoForwarder& io_;
  std::vector<Socket> sockets_;
  std::vector<std::size_t> slots_;   // the task of each descriptor addPollFds added
};

}  // namespace drover::stepd
