// The sprio and sshare RPCs: read-only views of the job manager's priority factors and
// fair-share tree, for every user (as Slurm: sprio lists everyone's pending jobs; sshare shows
// the caller's own associations unless asked for all).
#include "ctld/handlers.h"
#include "ctld/services.h"
#include "ctld/user_lookup.h"

namespace drover::ctld {

void addPriorityHandlers(ControllerHandlers& h, JobService* jobs) {
  h.get_priorities = [jobs](const rpc::Caller&, const v1::GetPrioritiesRequest& req,
                            wire::Reply_<v1::GetPrioritiesReply> done) {
    if (jobs == nullptr) {
      done(wire::Outcome{kInternal, "this controller runs without a job table"}, {});
      return;
    }
    v1::GetPrioritiesReply reply = jobs->manager().priorities(req);
    addUnknownUsers(req.users(), reply.mutable_unknown_users());
    done(wire::Outcome::ok(), reply);
  };
  h.get_shares = [jobs](const rpc::Caller& caller, const v1::GetSharesRequest& req,
                        wire::Reply_<v1::GetSharesReply> done) {
    if (jobs == nullptr) {
      done(wire::Outcome{kInternal, "this controller runs without a job table"}, {});
      return;
    }
    jobs::Caller who{caller.uid, caller.gid, userName(caller.uid), ""};
    // As the reference's sshare -u: a uid stands for its user's name; a uid nobody has is an
    // error ("Invalid user id: N", exit 1); a name nobody has selects nothing, silently.
    v1::GetSharesRequest named = req;
    for (auto& u : *named.mutable_users()) {
      const auto uid = uidInText(u);
      if (!uid) continue;
      if (!uidNumberIsKnown(*uid)) {
        done(wire::Outcome{kInvalidArgument, "Invalid user id: " + u}, {});
        return;
      }
      u = userName(static_cast<unsigned>(*uid));
    }
    done(wire::Outcome::ok(), jobs->manager().shares(who, named));
  };
}

}  // namespace drover::ctld
