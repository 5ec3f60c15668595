#pragma once
// The CLIs' path to droverctld: reads cluster.conf ($DROVER_CONF or the installed default) for
// the controller's address, the MUNGE socket and the message timeout, and makes one
// authenticated call per RPC. Every call gives up after the message timeout, so a controller
// that is down is a clear error, never a hang. gRPC stays out of this header.
#include <memory>
#include <string>

#include "drover/result.h"
#include "drover/v1/controller.pb.h"

namespace grpc {
class Channel;
}

namespace drover::cli {

struct ControllerAddress {
  std::string host;          // as configured, for messages ("Droverctld(primary) at HOST")
  std::string target;        // host:port
  std::string munge_socket;  // "" = libmunge default
  int timeout_ms = 10000;
};

// Why a call failed, so commands can word errors as Slurm does for each case.
enum class FailureKind { kNone, kUnreachable, kDenied, kNotFound, kInvalid, kOther };

class ControllerClient {
 public:
  // From the config file that defaultConfigPath() names.
  static Result<ControllerClient> fromConfig();
  explicit ControllerClient(ControllerAddress address);

  Result<v1::PingReply> ping();
  Result<v1::GetNodesReply> getNodes(const v1::GetNodesRequest& request);
  Result<v1::GetPartitionsReply> getPartitions(const v1::GetPartitionsRequest& request);
  Result<v1::UpdateNodeReply> updateNode(const v1::UpdateNodeRequest& request);
  Result<v1::ReconfigureReply> reconfigure(const v1::ReconfigureRequest& request);

  const ControllerAddress& address() const { return address_; }
  // The kind of the last failure (kNone after a success).
  FailureKind lastFailure() const { return last_failure_; }

 private:
  template <typename Reply, typename Request, typename Method>
  Result<Reply> call(const char* name, const Request& request, Method method);

  ControllerAddress address_;
  std::shared_ptr<grpc::Channel> channel_;  // made on first call
  FailureKind last_failure_ = FailureKind::kNone;
};

}  // namespace drover::cli
