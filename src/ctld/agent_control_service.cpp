#include <unistd.h>

#include <boost/asio/post.hpp>
#include <future>
#include <memory>

#include "ctld/counted_handler.h"
#include "ctld/loop.h"
#include "ctld/services.h"
#include "drover/v1/agent_control.grpc.pb.h"
#include "rpc/server_auth.h"
#include "wire/method_table.h"

namespace drover::ctld {
namespace {

// Root or the uid the controller runs as (a cluster run by one unprivileged user, as in tests).
std::string agentCallerRefusal(unsigned caller_uid, unsigned own_uid) {
  if (caller_uid == 0 || caller_uid == own_uid) return {};
  return "AgentControl is for droverd only (root or uid " + std::to_string(own_uid) +
         "); caller uid " + std::to_string(caller_uid);
}

Registration fromProto(const v1::RegisterRequest& req) {
  Registration r;
  r.node_name = req.node_name();
  r.address = req.address();
  r.port = static_cast<std::uint16_t>(req.port());
  const auto& res = req.resources();
  r.resources.cpus = res.cpus();
  r.resources.sockets = res.sockets();
  r.resources.cores_per_socket = res.cores_per_socket();
  r.resources.threads_per_core = res.threads_per_core();
  r.resources.real_memory_mb = res.real_memory_mb();
  for (const auto& g : res.gpus()) r.resources.gpus.push_back({g.index(), g.type(), g.file()});
  r.version = req.version();
  r.os = req.os();
  r.arch = req.arch();
  r.hostname = req.hostname();
  r.boot_time = req.boot_time();
  r.start_time = req.start_time();
  return r;
}

class AgentControlService final : public v1::AgentControl::Service {
 public:
  AgentControlService(boost::asio::io_context& io, CtldState& state, JobService* jobs,
                      std::string munge_socket)
      : io_(io), state_(state), jobs_(jobs), munge_socket_(std::move(munge_socket)),
        own_uid_(getuid()) {}

  grpc::Status Register(grpc::ServerContext* ctx, const v1::RegisterRequest* req,
                        v1::RegisterReply* rep) override {
    unsigned caller_uid = 0;
    if (auto s = authorize(*ctx, *req, &caller_uid); !s.ok()) return s;
    Registration reg = fromProto(*req);
    std::vector<v1::StepId> running(req->running_steps().begin(), req->running_steps().end());
    return runOnLoop(io_, [&] {
      const DiagStats::Call call = state_.diag().rpcStarted(steadyMicros());
      auto r = state_.registerAgent(reg);
      if (r && jobs_ != nullptr) jobs_->reconcile(reg.node_name, running);
      state_.diag().rpcEnded(call, "Register", caller_uid, steadyMicros());
      if (!r) return grpc::Status(grpc::StatusCode::NOT_FOUND, r.error());
      rep->set_heartbeat_interval_s(state_.config().timeouts.heartbeat_interval_s);
      rep->set_cluster_name(state_.config().cluster_name);
      return grpc::Status::OK;
    });
  }

  grpc::Status Heartbeat(grpc::ServerContext* ctx, const v1::HeartbeatRequest* req,
                         v1::HeartbeatReply* rep) override {
    unsigned caller_uid = 0;
    if (auto s = authorize(*ctx, *req, &caller_uid); !s.ok()) return s;
    std::vector<v1::StepId> running(req->running_steps().begin(), req->running_steps().end());
    return runOnLoop(io_, [&] {
      const DiagStats::Call call = state_.diag().rpcStarted(steadyMicros());
      const bool known = state_.heartbeat(req->node_name(), req->cpu_load(), req->free_memory_mb());
      rep->set_reregister(!known);
      if (known && jobs_ != nullptr) jobs_->heartbeat(req->node_name(), running);
      state_.diag().rpcEnded(call, "Heartbeat", caller_uid, steadyMicros());
      return grpc::Status::OK;
    });
  }

  // Acknowledged only once the job table holds the step's end (the supervisor retries until
  // then).
  grpc::Status StepEvent(grpc::ServerContext* ctx, const v1::StepEventRequest* req,
                         v1::StepEventReply*) override {
    unsigned caller_uid = 0;
    if (auto s = authorize(*ctx, *req, &caller_uid); !s.ok()) return s;
    if (jobs_ == nullptr) return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no job table");
    auto answered = std::make_shared<std::promise<grpc::Status>>();
    auto result = answered->get_future();
    boost::asio::post(io_, [this, req, answered, caller_uid] {
      const DiagStats::Call call = state_.diag().rpcStarted(steadyMicros());
      jobs_->stepEvent(*req, [this, call, answered, caller_uid](Status s) {
        state_.diag().rpcEnded(call, "StepEvent", caller_uid, steadyMicros());
        answered->set_value(s ? grpc::Status::OK
                              : grpc::Status(grpc::StatusCode::UNAVAILABLE, s.error()));
      });
    });
    return result.get();
  }

 private:
  grpc::Status authorize(const grpc::ServerContext& ctx, const google::protobuf::Message& req,
                         unsigned* caller_uid) {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(ctx, req, munge_socket_, &caller); !s.ok()) return s;
    *caller_uid = caller.uid;
    if (auto refused = agentCallerRefusal(caller.uid, own_uid_); !refused.empty()) {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, refused);
    }
    return grpc::Status::OK;
  }

  boost::asio::io_context& io_;
  CtldState& state_;
  JobService* jobs_;
  const std::string munge_socket_;
  const unsigned own_uid_;
};

}  // namespace

void addAgentFrameMethods(wire::MethodTable& table, JobService* jobs, DiagStats* stats) {
  const unsigned own_uid = getuid();
  // The frame server runs on the state thread: the handler calls JobService directly and
  // answers from the commit that holds the step's end (the supervisor retries until then).
  std::function<void(const rpc::Caller&, const v1::StepEventRequest&,
                     wire::Reply_<v1::StepEventReply>)>
      step_event = [jobs, own_uid](const rpc::Caller& caller, const v1::StepEventRequest& req,
                                   wire::Reply_<v1::StepEventReply> done) {
        if (auto refused = agentCallerRefusal(caller.uid, own_uid); !refused.empty()) {
          done({7, refused}, {});
          return;
        }
        if (jobs == nullptr) {
          done({12, "no job table"}, {});
          return;
        }
        jobs->stepEvent(req, [done = std::move(done)](Status s) {
          if (s) {
            done(wire::Outcome::ok(), {});
          } else {
            done({14, s.error()}, {});
          }
        });
      };
  // Counted for sdiag as the Controller's RPCs are.
  if (stats != nullptr) step_event = countedHandler("StepEvent", std::move(step_event), *stats);
  table.add("/drover.v1.AgentControl/StepEvent", std::move(step_event));
}

std::unique_ptr<grpc::Service> makeAgentControlService(boost::asio::io_context& io,
                                                       CtldState& state, JobService* jobs,
                                                       std::string munge_socket) {
  return std::make_unique<AgentControlService>(io, state, jobs, std::move(munge_socket));
}

}  // namespace drover::ctld
