#pragma once
// The Controller RPCs, one handler each, written once and served by both transports: the
// frame transport (frame_methods.h, already on the state thread) and the gRPC service
// (services.h, which posts the call to the state thread and waits for `done`). A handler runs
// on the state thread and calls `done` exactly once, now or after a commit (group commit).
#include <functional>

#include "ctld/ctld_state.h"
#include "ctld/job_service.h"
#include "drover/v1/accounting.pb.h"
#include "drover/v1/controller.pb.h"
#include "drover/v1/priority.pb.h"
#include "rpc/caller.h"
#include "wire/method_table.h"
#include "wire/status_codes.h"

namespace drover::ctld {

template <typename Request, typename Reply>
using Handler = std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)>;

// gRPC status codes used in Outcome.
using wire::status::kFailedPrecondition;
using wire::status::kInternal;
using wire::status::kInvalidArgument;
using wire::status::kNotFound;
using wire::status::kPermissionDenied;
using wire::status::kUnavailable;

struct ControllerHandlers {
  Handler<v1::PingRequest, v1::PingReply> ping;
  Handler<v1::GetNodesRequest, v1::GetNodesReply> get_nodes;
  Handler<v1::GetPartitionsRequest, v1::GetPartitionsReply> get_partitions;
  Handler<v1::UpdateNodeRequest, v1::UpdateNodeReply> update_node;
  Handler<v1::UpdatePartitionRequest, v1::UpdatePartitionReply> update_partition;
  Handler<v1::ReconfigureRequest, v1::ReconfigureReply> reconfigure;
  Handler<v1::SetDebugLevelRequest, v1::SetDebugLevelReply> set_debug_level;
  Handler<v1::SubmitJobRequest, v1::SubmitJobReply> submit_job;
  Handler<v1::GetJobsRequest, v1::GetJobsReply> get_jobs;
  Handler<v1::CancelJobsRequest, v1::CancelJobsReply> cancel_jobs;
  Handler<v1::JobControlRequest, v1::JobControlReply> job_control;
  Handler<v1::UpdateJobRequest, v1::UpdateJobReply> update_job;
  Handler<v1::GetJobScriptRequest, v1::GetJobScriptReply> get_job_script;
  Handler<v1::QueryAccountingRequest, v1::QueryAccountingReply> query_accounting;
  Handler<v1::QueryUsageRequest, v1::QueryUsageReply> query_usage;
  Handler<v1::QueryEventsRequest, v1::QueryEventsReply> query_events;
  // srun/salloc: steps and interactive allocations (handlers_steps.cpp).
  Handler<v1::CreateStepRequest, v1::CreateStepReply> create_step;
  Handler<v1::AwaitAllocationRequest, v1::AwaitAllocationReply> await_allocation;
  Handler<v1::CompleteAllocationRequest, v1::CompleteAllocationReply> complete_allocation;
  Handler<v1::NotifyJobRequest, v1::NotifyJobReply> notify_job;
  // Filled by ReservationService::install (reservation_service.h); unset = not served.
  Handler<v1::CreateReservationRequest, v1::CreateReservationReply> create_reservation;
  Handler<v1::UpdateReservationRequest, v1::UpdateReservationReply> update_reservation;
  Handler<v1::DeleteReservationRequest, v1::DeleteReservationReply> delete_reservation;
  Handler<v1::GetReservationsRequest, v1::GetReservationsReply> get_reservations;
  // sprio and sshare (handlers_priority.cpp).
  Handler<v1::GetPrioritiesRequest, v1::GetPrioritiesReply> get_priorities;
  Handler<v1::GetSharesRequest, v1::GetSharesReply> get_shares;
  // sstat (handlers_steps.cpp).
  Handler<v1::GetStepStatsRequest, v1::GetStepStatsReply> get_step_stats;
  // scontrol listpids and pidinfo (handlers_steps.cpp).
  Handler<v1::ListPidsRequest, v1::ListPidsReply> list_pids;
  // sbcast and srun --bcast (handlers_steps.cpp).
  Handler<v1::BroadcastFileRequest, v1::BroadcastFileReply> broadcast_file;
  // sdiag (handlers_diag.cpp).
  Handler<v1::GetStatisticsRequest, v1::GetStatisticsReply> get_statistics;
};

// `jobs` may be null (node-only tests): the job RPCs then answer UNAVAILABLE-like errors.
ControllerHandlers makeControllerHandlers(CtldState& state, JobService* jobs);
// CreateStep, AwaitAllocation, CompleteAllocation, NotifyJob, GetStepStats, ListPids
// (handlers_steps.cpp).
void addStepHandlers(ControllerHandlers& h, JobService* jobs);
// GetPriorities and GetShares (handlers_priority.cpp).
void addPriorityHandlers(ControllerHandlers& h, const CtldState& state, JobService* jobs);
// GetStatistics (handlers_diag.cpp).
void addStatisticsHandler(ControllerHandlers& h, CtldState& state, JobService* jobs);
// Wraps every handler set in `h` so each call is counted and timed in `stats` (sdiag's RPC
// tables) under its method name and caller: the one place both transports pass through.
// Call once, after every handler is installed.
void countCalls(ControllerHandlers& h, DiagStats& stats);

// Calls `fn(method_name, handler)` for every row, so a transport registers them all (and
// countCalls wraps them all: `H` is ControllerHandlers, const or not).
template <typename H, typename Fn>
void forEachHandler(H& h, Fn&& fn) {
  fn("Ping", h.ping);
  fn("GetNodes", h.get_nodes);
  fn("GetPartitions", h.get_partitions);
  fn("UpdateNode", h.update_node);
  fn("UpdatePartition", h.update_partition);
  fn("Reconfigure", h.reconfigure);
  fn("SetDebugLevel", h.set_debug_level);
  fn("SubmitJob", h.submit_job);
  fn("GetJobs", h.get_jobs);
  fn("CancelJobs", h.cancel_jobs);
  fn("JobControl", h.job_control);
  fn("UpdateJob", h.update_job);
  fn("GetJobScript", h.get_job_script);
  fn("QueryAccounting", h.query_accounting);
  fn("QueryUsage", h.query_usage);
  fn("QueryEvents", h.query_events);
  fn("CreateStep", h.create_step);
  fn("AwaitAllocation", h.await_allocation);
  fn("CompleteAllocation", h.complete_allocation);
  fn("NotifyJob", h.notify_job);
  fn("CreateReservation", h.create_reservation);
  fn("UpdateReservation", h.update_reservation);
  fn("DeleteReservation", h.delete_reservation);
  fn("GetReservations", h.get_reservations);
  fn("GetPriorities", h.get_priorities);
  fn("GetShares", h.get_shares);
  fn("GetStepStats", h.get_step_stats);
  fn("ListPids", h.list_pids);
  fn("BroadcastFile", h.broadcast_file);
  fn("GetStatistics", h.get_statistics);
}

}  // namespace drover::ctld
