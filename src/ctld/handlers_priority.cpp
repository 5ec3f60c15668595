// The sprio and sshare RPCs: read-only views of the job manager's priority factors and
// fair-share tree, for every user (as Slurm: sprio lists everyone's pending jobs; sshare shows
// the caller's own associations unless asked for all).
#include "ctld/handlers.h"
#include "ctld/services.h"
#include "ctld/request_names.h"

namespace drover::ctld {

void addPriorityHandlers(ControllerHandlers& h, const CtldState& state, JobService* jobs) {
  h.get_priorities = [&state, jobs](const rpc::Caller&, const v1::GetPrioritiesRequest& req,
                            wire::Reply_<v1::GetPrioritiesReply> done) {
    if (jobs == nullptr) {
      done(wire::Outcome{kInternal, "this controller runs without a job table"}, {});
      return;
    }
    v1::GetPrioritiesReply reply = jobs->manager().priorities(req);
    addUnknownUsers(req.users(), state.names(), reply.mutable_unknown_users());
    done(wire::Outcome::ok(), reply);
  };
  h.get_shares = [&state, jobs](const rpc::Caller& caller, const v1::GetSharesRequest& req,
                        wire::Reply_<v1::GetSharesReply> done) {
    if (jobs == nullptr) {
      done(wire::Outcome{kInternal, "this controller runs without a job table"}, {});
      return;
    }
    jobs::Caller who{caller.uid, caller.gid, state.names().userName(caller.uid), ""};
    // As the reference's sshare -u: a uid stands for its user's name; a uid nobody has is an
    // error ("Invalid user id: N", exit 1); a name nobody has selects nothing, silently.
    v1::GetSharesRequest named = req;
    for (auto& u : *named.mutable_users()) {
      if (!idInText(u)) continue;
      const auto uid = state.names().uidOf(u);
      if (!uid) {
        done(wire::Outcome{kInvalidArgument, "Invalid user id: " + u}, {});
        return;
      }
      u = state.names().userName(*uid);
    }
    done(wire::Outcome::ok(), jobs->manager().shares(who, named));
  };
}

}  // namespace drover::ctld
