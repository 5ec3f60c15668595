#pragma once
// The socket on which a running step's supervisor answers its agent with the step's usage so
// far (sstat), as slurmstepd answers slurmd on its per-step socket. Both ends live here so
// they agree on the name and the checks.
//
// The socket is in the abstract namespace: no path in the spool dir, whose length (pytest's
// and sites' temporary dirs) could pass sun_path's 108 bytes, and nothing left behind by a
// supervisor that is killed. Anyone on the host may connect to an abstract socket, so each end
// checks the other with SO_PEERCRED: the supervisor answers only root or its own user (the
// agent's), and the agent takes an answer only from the supervisor's pid it recorded, so a
// user who binds the name first cannot feed it figures.
//
// Protocol: the agent connects; the supervisor samples its tasks, writes one serialized
// v1::StepUsage and closes; the agent reads to EOF.
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "common/step_run.h"
#include "drover/result.h"

namespace drover {

// "\0drover-stepd-usage/<spool hash>/<node>/<job>.<step>[.<run>]": the agent's spool dir (16
// hex digits of its SHA-256) and node name keep apart the steps of several agents on one host,
// of several clusters too (parallel tests each have a node1 with a job 1); the run keeps apart
// the supervisors of two runs of a requeued job.
std::string stepUsageSocketName(const std::string& spool_dir, const std::string& node,
                                std::uint64_t job_id, std::int64_t step_id, RunNumber run);

// The supervisor's end: a listening, non-blocking, close-on-exec socket bound to `name`.
Result<int> listenForUsage(const std::string& name);
// Accepts one waiting connection and answers it with `reply()` if the peer is root or this
// process's user (others are closed unanswered). Never blocks: a reply larger than the
// socket's buffer is cut (the agent then fails to parse it and says so).
template <typename ReplyFn>
void answerUsageRequest(int listen_fd, ReplyFn&& reply);
// Non-template parts of answerUsageRequest.
int acceptUsagePeer(int listen_fd);              // -1: none waiting, or a peer refused
void sendUsageReply(int fd, const std::string& bytes);  // and closes fd

// The agent's end: connects to `name`, checks the peer is `supervisor_pid`, reads the reply
// until EOF or `timeout_ms` passed. No reply at all (the supervisor refused us) is an error.
Result<std::string> askStepUsage(const std::string& name, pid_t supervisor_pid, int timeout_ms);

template <typename ReplyFn>
void answerUsageRequest(int listen_fd, ReplyFn&& reply) {
  const int fd = acceptUsagePeer(listen_fd);
  if (fd >= 0) sendUsageReply(fd, reply());
}

}  // namespace drover
