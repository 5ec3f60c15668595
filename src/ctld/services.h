#pragma once
// The controller's two gRPC services. Each handler authenticates the MUNGE credential, then
// runs its work on the io_context that owns CtldState (loop.h) and waits for the answer.
#include <grpcpp/impl/service_type.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>

#include "ctld/ctld_state.h"
#include "ctld/handlers.h"
#include "ctld/job_service.h"
#include "wire/method_table.h"

namespace drover::ctld {

// Controller: what the CLIs call. Reads for every authenticated user; node updates and
// reconfigure for root and configured operators.
// The handlers (handlers.h) must outlive the service.
std::unique_ptr<grpc::Service> makeControllerService(boost::asio::io_context& io,
                                                     const ControllerHandlers& handlers,
                                                     std::string munge_socket);

// AgentControl: what droverd and drover-stepd call. Only root or the uid the controller runs
// as. `jobs` may be null (no StepEvent then).
std::unique_ptr<grpc::Service> makeAgentControlService(boost::asio::io_context& io,
                                                       CtldState& state, JobService* jobs,
                                                       std::string munge_socket);

// The AgentControl methods drover-stepd calls over the frame transport (StepEvent), with the
// same rule as the gRPC service: root or the controller's own uid. The frame server runs on
// the state thread, so `jobs` is called directly; null = StepEvent refused. Calls are counted
// in `stats` (sdiag) unless it is null.
void addAgentFrameMethods(wire::MethodTable& table, JobService* jobs, DiagStats* stats = nullptr);

}  // namespace drover::ctld
