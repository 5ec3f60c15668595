#include <boost/asio/post.hpp>
#include <future>
#include <memory>

#include "ctld/handlers.h"
#include "ctld/services.h"
#include "drover/v1/controller.grpc.pb.h"
#include "rpc/server_auth.h"

namespace drover::ctld {

namespace {

// Runs `handler` on the state thread and waits until it calls `done` (after a commit for
// writes), so the gRPC service shares every line of logic with the frame transport.
class ControllerService final : public v1::Controller::Service {
 public:
  ControllerService(boost::asio::io_context& io, const ControllerHandlers& handlers,
                    std::string munge_socket)
      : io_(io), h_(handlers), munge_socket_(std::move(munge_socket)) {}

#define DROVER_SERVE(Method, field)                                                  \
  grpc::Status Method(grpc::ServerContext* ctx, const v1::Method##Request* req,      \
                      v1::Method##Reply* rep) override {                              \
    return serve(*ctx, *req, rep, h_.field);                                         \
  }
  DROVER_SERVE(Ping, ping)
  DROVER_SERVE(GetNodes, get_nodes)
  DROVER_SERVE(GetPartitions, get_partitions)
  DROVER_SERVE(UpdateNode, update_node)
  DROVER_SERVE(UpdatePartition, update_partition)
  DROVER_SERVE(Reconfigure, reconfigure)
  DROVER_SERVE(SetDebugLevel, set_debug_level)
  DROVER_SERVE(SubmitJob, submit_job)
  DROVER_SERVE(GetJobs, get_jobs)
  DROVER_SERVE(CancelJobs, cancel_jobs)
  DROVER_SERVE(JobControl, job_control)
  DROVER_SERVE(UpdateJob, update_job)
  DROVER_SERVE(GetJobScript, get_job_script)
  DROVER_SERVE(QueryAccounting, query_accounting)
  DROVER_SERVE(QueryUsage, query_usage)
  DROVER_SERVE(QueryEvents, query_events)
  DROVER_SERVE(CreateStep, create_step)
  DROVER_SERVE(AwaitAllocation, await_allocation)
  DROVER_SERVE(CompleteAllocation, complete_allocation)
  DROVER_SERVE(NotifyJob, notify_job)
  DROVER_SERVE(CreateReservation, create_reservation)
  DROVER_SERVE(UpdateReservation, update_reservation)
  DROVER_SERVE(DeleteReservation, delete_reservation)
  DROVER_SERVE(GetReservations, get_reservations)
  DROVER_SERVE(GetPriorities, get_priorities)
  DROVER_SERVE(GetShares, get_shares)
  DROVER_SERVE(GetStepStats, get_step_stats)
  DROVER_SERVE(ListPids, list_pids)
  DROVER_SERVE(BroadcastFile, broadcast_file)
  DROVER_SERVE(GetStatistics, get_statistics)
#undef DROVER_SERVE

 private:
  template <typename Request, typename Reply>
  grpc::Status serve(grpc::ServerContext& ctx, const Request& req, Reply* rep,
                     const Handler<Request, Reply>& handler) {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(ctx, req, munge_socket_, &caller); !s.ok()) return s;
    if (!handler) return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "not served");
    auto answered = std::make_shared<std::promise<grpc::Status>>();
    auto result = answered->get_future();
    // caller, req and rep live on this stack until the future is ready.
    boost::asio::post(io_, [&, answered] {
      handler(caller, req, [answered, rep](wire::Outcome outcome, const Reply& reply) {
        if (outcome.code == 0) {
          *rep = reply;
          answered->set_value(grpc::Status::OK);
        } else {
          answered->set_value(grpc::Status(static_cast<grpc::StatusCode>(outcome.code),
                                           outcome.message));
        }
      });
    });
    return result.get();
  }

  boost::asio::io_context& io_;
  const ControllerHandlers& h_;
  const std::string munge_socket_;
};

}  // namespace

std::unique_ptr<grpc::Service> makeControllerService(boost::asio::io_context& io,
                                                     const ControllerHandlers& handlers,
                                                     std::string munge_socket) {
  return std::make_unique<ControllerService>(io, handlers, std::move(munge_socket));
}

}  // namespace drover::ctld
