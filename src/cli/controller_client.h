#pragma once
// The CLIs' path to droverctld: reads cluster.conf ($DROVER_CONF or the installed default) for
// the controller's address, the MUNGE socket and the message timeout, and makes one
// authenticated call per RPC over the frame transport (src/wire), so no CLI loads gRPC
// (PLATFORM.md: start-up cost). Every call gives up after the message timeout (CreateStep after
// a few), so a controller that is down is a clear error, never a hang.
#include <google/protobuf/arena.h>

#include <cstdint>
#include <string>

#include "config/client_settings.h"
#include "drover/result.h"
#include "drover/v1/controller.pb.h"
#include "drover/v1/priority.pb.h"

namespace drover::cli {

struct ControllerAddress {
  std::string host;          // as configured, for messages ("Droverctld(primary) at HOST")
  std::string target;        // host:port (the port is taken from here when `port` is 0)
  std::string munge_socket;  // "" = libmunge default
  int timeout_ms = 10000;
  std::uint16_t port = 0;    // the controller's CLI (frame) port
};

// Why a call failed, so commands can word errors as Slurm does for each case.
enum class FailureKind { kNone, kUnreachable, kDenied, kNotFound, kInvalid, kOther };

class ControllerClient {
 public:
  // From the config file that defaultConfigPath() names.
  static Result<ControllerClient> fromConfig();
  // From settings already read (scontrol show config reads the whole file anyway).
  static ControllerClient fromSettings(const config::ClientSettings& settings);
  explicit ControllerClient(ControllerAddress address);

  Result<v1::PingReply> ping();
  Result<v1::GetNodesReply> getNodes(const v1::GetNodesRequest& request);
  Result<v1::GetPartitionsReply> getPartitions(const v1::GetPartitionsRequest& request);
  Result<v1::UpdateNodeReply> updateNode(const v1::UpdateNodeRequest& request);
  Result<v1::UpdatePartitionReply> updatePartition(const v1::UpdatePartitionRequest& request);
  Result<v1::ReconfigureReply> reconfigure(const v1::ReconfigureRequest& request);
  Result<v1::SetDebugLevelReply> setDebugLevel(const v1::SetDebugLevelRequest& request);

  Result<v1::SubmitJobReply> submitJob(const v1::SubmitJobRequest& request);
  Result<v1::GetJobsReply> getJobs(const v1::GetJobsRequest& request);
  // The reply parsed into `arena`, which owns it (squeue: thousands of rows, freed at once).
  Result<v1::GetJobsReply*> getJobs(const v1::GetJobsRequest& request, google::protobuf::Arena* arena);
  Result<v1::CancelJobsReply> cancelJobs(const v1::CancelJobsRequest& request);
  Result<v1::JobControlReply> jobControl(const v1::JobControlRequest& request);
  Result<v1::UpdateJobReply> updateJob(const v1::UpdateJobRequest& request);
  Result<v1::GetJobScriptReply> getJobScript(const v1::GetJobScriptRequest& request);
  Result<v1::QueryAccountingReply> queryAccounting(const v1::QueryAccountingRequest& request);
  Result<v1::QueryUsageReply> queryUsage(const v1::QueryUsageRequest& request);   // sreport
  Result<v1::QueryEventsReply> queryEvents(const v1::QueryEventsRequest& request);   // sacctmgr
  // srun and salloc: steps and interactive allocations. CreateStep waits for the step's
  // launches, which the controller may send again: it gives up after createStepTimeoutMs
  // (common/launch_attempts.h), not the message timeout.
  Result<v1::CreateStepReply> createStep(const v1::CreateStepRequest& request);
  // `timeout_ms` 0: the message timeout.
  Result<v1::AwaitAllocationReply> awaitAllocation(const v1::AwaitAllocationRequest& request,
                                                   int timeout_ms = 0);
  Result<v1::CompleteAllocationReply> completeAllocation(
      const v1::CompleteAllocationRequest& request);
  // scontrol notify: a message for an allocation's salloc or srun.
  Result<v1::NotifyJobReply> notifyJob(const v1::NotifyJobRequest& request);
  // sprio and sshare.
  Result<v1::GetPrioritiesReply> getPriorities(const v1::GetPrioritiesRequest& request);
  Result<v1::GetSharesReply> getShares(const v1::GetSharesRequest& request);
  // sdiag: the controller's statistics, or (request.reset) their reset.
  Result<v1::GetStatisticsReply> getStatistics(const v1::GetStatisticsRequest& request);
  // sstat: waits for the controller to ask the steps' nodes (twice the message timeout).
  Result<v1::GetStepStatsReply> getStepStats(const v1::GetStepStatsRequest& request);
  // scontrol listpids and pidinfo: the same wait for one node's agent.
  Result<v1::ListPidsReply> listPids(const v1::ListPidsRequest& request);
  // sbcast and srun --bcast: one block, sent on by the controller to every node; waits
  // `timeout_ms` (the nodes' time, plus the message timeout).
  Result<v1::BroadcastFileReply> broadcastFile(const v1::BroadcastFileRequest& request,
                                               int timeout_ms);
  Result<v1::GetReservationsReply> getReservations(const v1::GetReservationsRequest& request);
  Result<v1::CreateReservationReply> createReservation(const v1::CreateReservationRequest& request);
  Result<v1::UpdateReservationReply> updateReservation(const v1::UpdateReservationRequest& request);
  Result<v1::DeleteReservationReply> deleteReservation(const v1::DeleteReservationRequest& request);

  const ControllerAddress& address() const { return address_; }
  // The kind of the last failure (kNone after a success).
  FailureKind lastFailure() const { return last_failure_; }

 private:
  // `timeout_ms` 0: the message timeout.
  template <typename Reply, typename Request>
  Result<Reply> call(const char* name, const Request& request, int timeout_ms = 0);
  Status callInto(const char* name, const google::protobuf::MessageLite& request,
                  google::protobuf::MessageLite* reply, int timeout_ms = 0);

  ControllerAddress address_;
  FailureKind last_failure_ = FailureKind::kNone;
};

}  // namespace drover::cli
