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
    // sprio -u of a user nobody is: the reference said "Invalid user: X" and listed the others.
    for (const auto& u : req.users())
      if (!userIsKnown(u)) reply.add_unknown_users(u);
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
      if (u.empty() || u.find_first_not_of("0123456789") != std::string::npos) continue;
      if (u.size() > 10 || !userIsKnown(u)) {
        done(wire::Outcome{kInvalidArgument, "Invalid user id: " + u}, {});
        return;
      }
      u = userName(static_cast<unsigned>(std::stoul(u)));
    }
    done(wire::Outcome::ok(), jobs->manager().shares(who, named));
  };
}

}  // namespace drover::ctld
