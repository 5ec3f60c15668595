#include "cli/controller_client.h"

#include <charconv>

#include "common/launch_attempts.h"
#include "config/client_settings.h"
#include "drover/config.h"
#include "wire/frame_client.h"
#include "wire/status_codes.h"

namespace drover::cli {
namespace {

FailureKind kindOf(int code) {
  using namespace wire::status;
  switch (code) {
    case 0: return FailureKind::kNone;
    case kUnavailable:
    case kDeadlineExceeded: return FailureKind::kUnreachable;
    case kPermissionDenied:
    case kUnauthenticated: return FailureKind::kDenied;
    case kNotFound: return FailureKind::kNotFound;
    case kInvalidArgument:
    case kFailedPrecondition: return FailureKind::kInvalid;
    default: return FailureKind::kOther;
  }
}

std::uint16_t portOf(const ControllerAddress& address) {
  if (address.port != 0) return address.port;
  const auto colon = address.target.rfind(':');
  unsigned value = 0;
  if (colon != std::string::npos) {
    const char* begin = address.target.data() + colon + 1;
    std::from_chars(begin, address.target.data() + address.target.size(), value);
  }
  return static_cast<std::uint16_t>(value);
}

std::string hostOf(const ControllerAddress& address) {
  const auto colon = address.target.rfind(':');
  if (colon != std::string::npos && colon > 0) return address.target.substr(0, colon);
  return address.host;
}

}  // namespace

Result<ControllerClient> ControllerClient::fromConfig() {
  const std::string path = config::defaultConfigPath();
  auto cfg = config::loadClientSettings(path);
  if (!cfg.ok()) return makeError(cfg.error());
  return fromSettings(*cfg);
}

ControllerClient ControllerClient::fromSettings(const config::ClientSettings& settings) {
  ControllerAddress address;
  address.host = settings.controller.host;
  address.port = settings.controller.cliPort();
  address.target = settings.controller.host + ":" + std::to_string(address.port);
  address.munge_socket = settings.munge_socket;
  address.timeout_ms = static_cast<int>(settings.timeouts.message_s) * 1000;
  return ControllerClient(std::move(address));
}

ControllerClient::ControllerClient(ControllerAddress address) : address_(std::move(address)) {}

Status ControllerClient::callInto(const char* name, const google::protobuf::MessageLite& request,
                                  google::protobuf::MessageLite* reply, int timeout_ms) {
  wire::ClientOptions opts;
  opts.host = hostOf(address_);
  opts.port = portOf(address_);
  opts.munge_socket = address_.munge_socket;
  opts.timeout_ms = timeout_ms > 0 ? timeout_ms : address_.timeout_ms;
  wire::CallError error;
  if (!wire::call(opts, std::string("/drover.v1.Controller/") + name, request, reply, &error)) {
    last_failure_ = kindOf(error.code);
    if (last_failure_ == FailureKind::kNone) last_failure_ = FailureKind::kOther;
    if (last_failure_ == FailureKind::kNotFound || last_failure_ == FailureKind::kInvalid) {
      return makeError(error.message);
    }
    return makeError(wire::describe(error, opts));
  }
  last_failure_ = FailureKind::kNone;
  return okStatus();
}

template <typename Reply, typename Request>
Result<Reply> ControllerClient::call(const char* name, const Request& request, int timeout_ms) {
  Reply reply;
  if (auto s = callInto(name, request, &reply, timeout_ms); !s.ok()) return makeError(s.error());
  return reply;
}

Result<v1::PingReply> ControllerClient::ping() {
  return call<v1::PingReply>("Ping", v1::PingRequest{});
}
Result<v1::GetNodesReply> ControllerClient::getNodes(const v1::GetNodesRequest& request) {
  return call<v1::GetNodesReply>("GetNodes", request);
}
Result<v1::GetPartitionsReply> ControllerClient::getPartitions(const v1::GetPartitionsRequest& request) {
  return call<v1::GetPartitionsReply>("GetPartitions", request);
}
Result<v1::UpdateNodeReply> ControllerClient::updateNode(const v1::UpdateNodeRequest& request) {
  return call<v1::UpdateNodeReply>("UpdateNode", request);
}
Result<v1::UpdatePartitionReply> ControllerClient::updatePartition(
    const v1::UpdatePartitionRequest& request) {
  return call<v1::UpdatePartitionReply>("UpdatePartition", request);
}
Result<v1::ReconfigureReply> ControllerClient::reconfigure(const v1::ReconfigureRequest& request) {
  return call<v1::ReconfigureReply>("Reconfigure", request);
}
Result<v1::SetDebugLevelReply> ControllerClient::setDebugLevel(
    const v1::SetDebugLevelRequest& request) {
  return call<v1::SetDebugLevelReply>("SetDebugLevel", request);
}
Result<v1::SubmitJobReply> ControllerClient::submitJob(const v1::SubmitJobRequest& request) {
  return call<v1::SubmitJobReply>("SubmitJob", request);
}
Result<v1::GetJobsReply> ControllerClient::getJobs(const v1::GetJobsRequest& request) {
  return call<v1::GetJobsReply>("GetJobs", request);
}
Result<v1::GetJobsReply*> ControllerClient::getJobs(const v1::GetJobsRequest& request,
                                                    google::protobuf::Arena* arena) {
  auto* reply = google::protobuf::Arena::CreateMessage<v1::GetJobsReply>(arena);
  if (auto s = callInto("GetJobs", request, reply); !s.ok()) return makeError(s.error());
  return reply;
}
Result<v1::CancelJobsReply> ControllerClient::cancelJobs(const v1::CancelJobsRequest& request) {
  return call<v1::CancelJobsReply>("CancelJobs", request);
}
Result<v1::JobControlReply> ControllerClient::jobControl(const v1::JobControlRequest& request) {
  return call<v1::JobControlReply>("JobControl", request);
}
Result<v1::UpdateJobReply> ControllerClient::updateJob(const v1::UpdateJobRequest& request) {
  return call<v1::UpdateJobReply>("UpdateJob", request);
}

Result<v1::GetJobScriptReply> ControllerClient::getJobScript(
    const v1::GetJobScriptRequest& request) {
  return call<v1::GetJobScriptReply>("GetJobScript", request);
}
Result<v1::QueryAccountingReply> ControllerClient::queryAccounting(
    const v1::QueryAccountingRequest& request) {
  return call<v1::QueryAccountingReply>("QueryAccounting", request);
}

Result<v1::QueryUsageReply> ControllerClient::queryUsage(const v1::QueryUsageRequest& request) {
  return call<v1::QueryUsageReply>("QueryUsage", request);
}

Result<v1::QueryEventsReply> ControllerClient::queryEvents(const v1::QueryEventsRequest& request) {
  return call<v1::QueryEventsReply>("QueryEvents", request);
}

Result<v1::CreateStepReply> ControllerClient::createStep(const v1::CreateStepRequest& request) {
  // The controller answers once the step's launches did: a node's agent that does not answer
  // gets its launch again, up to kLaunchAttempts message timeouts.
  return call<v1::CreateStepReply>(
      "CreateStep", request, static_cast<int>(createStepTimeoutMs(address_.timeout_ms)));
}
Result<v1::AwaitAllocationReply> ControllerClient::awaitAllocation(
    const v1::AwaitAllocationRequest& request, int timeout_ms) {
  return call<v1::AwaitAllocationReply>("AwaitAllocation", request, timeout_ms);
}
Result<v1::CompleteAllocationReply> ControllerClient::completeAllocation(
    const v1::CompleteAllocationRequest& request) {
  return call<v1::CompleteAllocationReply>("CompleteAllocation", request);
}

Result<v1::NotifyJobReply> ControllerClient::notifyJob(const v1::NotifyJobRequest& request) {
  return call<v1::NotifyJobReply>("NotifyJob", request);
}

Result<v1::GetPrioritiesReply> ControllerClient::getPriorities(
    const v1::GetPrioritiesRequest& request) {
  return call<v1::GetPrioritiesReply>("GetPriorities", request);
}
Result<v1::GetSharesReply> ControllerClient::getShares(const v1::GetSharesRequest& request) {
  return call<v1::GetSharesReply>("GetShares", request);
}
Result<v1::GetStatisticsReply> ControllerClient::getStatistics(
    const v1::GetStatisticsRequest& request) {
  return call<v1::GetStatisticsReply>("GetStatistics", request);
}
Result<v1::GetStepStatsReply> ControllerClient::getStepStats(
    const v1::GetStepStatsRequest& request) {
  return call<v1::GetStepStatsReply>("GetStepStats", request, 2 * address_.timeout_ms);
}
Result<v1::ListPidsReply> ControllerClient::listPids(const v1::ListPidsRequest& request) {
  return call<v1::ListPidsReply>("ListPids", request, 2 * address_.timeout_ms);
}
Result<v1::BroadcastFileReply> ControllerClient::broadcastFile(
    const v1::BroadcastFileRequest& request, int timeout_ms) {
  return call<v1::BroadcastFileReply>("BroadcastFile", request, timeout_ms);
}
Result<v1::GetReservationsReply> ControllerClient::getReservations(
    const v1::GetReservationsRequest& request) {
  return call<v1::GetReservationsReply>("GetReservations", request);
}
Result<v1::CreateReservationReply> ControllerClient::createReservation(
    const v1::CreateReservationRequest& request) {
  return call<v1::CreateReservationReply>("CreateReservation", request);
}
Result<v1::UpdateReservationReply> ControllerClient::updateReservation(
    const v1::UpdateReservationRequest& request) {
  return call<v1::UpdateReservationReply>("UpdateReservation", request);
}
Result<v1::DeleteReservationReply> ControllerClient::deleteReservation(
    const v1::DeleteReservationRequest& request) {
  return call<v1::DeleteReservationReply>("DeleteReservation", request);
}

}  // namespace drover::cli
