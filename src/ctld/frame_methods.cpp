#include "ctld/frame_methods.h"

#include "ctld/services.h"
#include "rpc/server_auth.h"

namespace drover::ctld {
namespace {

constexpr int kInvalidArgument = 3;
constexpr int kNotFound = 5;
constexpr int kPermissionDenied = 7;

wire::Outcome fail(int code, std::string message) { return wire::Outcome{code, std::move(message)}; }

wire::Outcome deniedOutcome(const rpc::Caller& caller, const char* what) {
  return fail(kPermissionDenied, std::string(what) + " is for root and operators only; user " +
                                     userName(caller.uid) + " (uid " +
                                     std::to_string(caller.uid) + ") is neither");
}

}  // namespace

void addFrameMethods(wire::MethodTable& table, CtldState& state) {
  const std::string prefix = "/drover.v1.Controller/";
  table.add<v1::PingRequest, v1::PingReply>(
      prefix + "Ping",
      [&state](const rpc::Caller& caller, const v1::PingRequest&,
               wire::Reply_<v1::PingReply> done) {
        v1::PingReply rep;
        rep.set_cluster_name(state.config().cluster_name);
        rep.set_controller_host(state.config().controller.host);
        rep.set_start_time(state.startTime());
        rep.set_caller_uid(caller.uid);
        rep.set_caller_gid(caller.gid);
        done(wire::Outcome::ok(), rep);
      });
  table.add<v1::GetNodesRequest, v1::GetNodesReply>(
      prefix + "GetNodes",
      [&state](const rpc::Caller&, const v1::GetNodesRequest& req,
               wire::Reply_<v1::GetNodesReply> done) {
        v1::GetNodesReply rep;
        auto s = state.fillNodes({req.names().begin(), req.names().end()}, &rep);
        done(s ? wire::Outcome::ok() : fail(kNotFound, s.error()), rep);
      });
  table.add<v1::GetPartitionsRequest, v1::GetPartitionsReply>(
      prefix + "GetPartitions",
      [&state](const rpc::Caller&, const v1::GetPartitionsRequest& req,
               wire::Reply_<v1::GetPartitionsReply> done) {
        v1::GetPartitionsReply rep;
        auto s = state.fillPartitions({req.names().begin(), req.names().end()}, &rep);
        done(s ? wire::Outcome::ok() : fail(kNotFound, s.error()), rep);
      });
  table.add<v1::UpdateNodeRequest, v1::UpdateNodeReply>(
      prefix + "UpdateNode",
      [&state](const rpc::Caller& caller, const v1::UpdateNodeRequest& req,
               wire::Reply_<v1::UpdateNodeReply> done) {
        v1::UpdateNodeReply rep;
        if (!rpc::isAdmin(caller, state.config().operators)) {
          done(deniedOutcome(caller, "UpdateNode"), rep);
          return;
        }
        auto s = state.updateNode(req.nodes(), req.state(), req.reason(), userName(caller.uid));
        done(s ? wire::Outcome::ok() : fail(kInvalidArgument, s.error()), rep);
      });
  table.add<v1::ReconfigureRequest, v1::ReconfigureReply>(
      prefix + "Reconfigure",
      [&state](const rpc::Caller& caller, const v1::ReconfigureRequest&,
               wire::Reply_<v1::ReconfigureReply> done) {
        v1::ReconfigureReply rep;
        if (!rpc::isAdmin(caller, state.config().operators)) {
          done(deniedOutcome(caller, "Reconfigure"), rep);
          return;
        }
        auto r = state.reconfigure("");
        if (!r) {
          done(fail(kInvalidArgument, r.error()), rep);
          return;
        }
        rep.set_summary(*r);
        done(wire::Outcome::ok(), rep);
      });
}

}  // namespace drover::ctld
