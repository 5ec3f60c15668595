#include <pwd.h>
#include <unistd.h>

#include <vector>

#include "ctld/loop.h"
#include "ctld/services.h"
#include "drover/v1/controller.grpc.pb.h"
#include "rpc/server_auth.h"

namespace drover::ctld {

std::string userName(unsigned uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

namespace {

grpc::Status toGrpc(const Status& s, grpc::StatusCode code = grpc::StatusCode::INVALID_ARGUMENT) {
  return s ? grpc::Status::OK : grpc::Status(code, s.error());
}

grpc::Status denied(const rpc::Caller& caller, const char* what) {
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                      std::string(what) + " is for root and operators only; user " +
                          userName(caller.uid) + " (uid " + std::to_string(caller.uid) +
                          ") is neither");
}

class ControllerService final : public v1::Controller::Service {
 public:
  ControllerService(boost::asio::io_context& io, CtldState& state, std::string munge_socket)
      : io_(io), state_(state), munge_socket_(std::move(munge_socket)) {}

  grpc::Status Ping(grpc::ServerContext* ctx, const v1::PingRequest* req,
                    v1::PingReply* rep) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    return runOnLoop(io_, [&] {
      rep->set_cluster_name(state_.config().cluster_name);
      rep->set_controller_host(state_.config().controller.host);
      rep->set_start_time(state_.startTime());
      rep->set_caller_uid(caller.uid);
      rep->set_caller_gid(caller.gid);
      return grpc::Status::OK;
    });
  }

  grpc::Status GetNodes(grpc::ServerContext* ctx, const v1::GetNodesRequest* req,
                        v1::GetNodesReply* rep) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    std::vector<std::string> names(req->names().begin(), req->names().end());
    return runOnLoop(io_, [&] {
      return toGrpc(state_.fillNodes(names, rep), grpc::StatusCode::NOT_FOUND);
    });
  }

  grpc::Status GetPartitions(grpc::ServerContext* ctx, const v1::GetPartitionsRequest* req,
                             v1::GetPartitionsReply* rep) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    std::vector<std::string> names(req->names().begin(), req->names().end());
    return runOnLoop(io_, [&] {
      return toGrpc(state_.fillPartitions(names, rep), grpc::StatusCode::NOT_FOUND);
    });
  }

  grpc::Status UpdateNode(grpc::ServerContext* ctx, const v1::UpdateNodeRequest* req,
                          v1::UpdateNodeReply*) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    const std::string user = userName(caller.uid);
    return runOnLoop(io_, [&] {
      if (!rpc::isAdmin(caller, state_.config().operators)) return denied(caller, "UpdateNode");
      return toGrpc(state_.updateNode(req->nodes(), req->state(), req->reason(), user));
    });
  }

  grpc::Status Reconfigure(grpc::ServerContext* ctx, const v1::ReconfigureRequest* req,
                           v1::ReconfigureReply* rep) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    return runOnLoop(io_, [&] {
      if (!rpc::isAdmin(caller, state_.config().operators)) return denied(caller, "Reconfigure");
      auto r = state_.reconfigure("");
      if (!r) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, r.error());
      rep->set_summary(*r);
      return grpc::Status::OK;
    });
  }

 private:
  boost::asio::io_context& io_;
  CtldState& state_;
  const std::string munge_socket_;
};

}  // namespace

std::unique_ptr<grpc::Service> makeControllerService(boost::asio::io_context& io, CtldState& state,
                                                     std::string munge_socket) {
  return std::make_unique<ControllerService>(io, state, std::move(munge_socket));
}

}  // namespace drover::ctld
