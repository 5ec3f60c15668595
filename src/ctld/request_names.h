#pragma once
// The names and ids each Controller RPC carries, which the name stage (name_stage.h) looks up
// before the handler runs: for every call its caller's uid and gid (who asks: a name in messages
// and logs, operator rights, a job's owner), and for some requests the users and groups they
// name. Handlers then read the answers from the NameDirectory without waiting on NSS.
#include "ctld/name_directory.h"
#include "drover/result.h"
#include "drover/v1/accounting.pb.h"
#include "drover/v1/jobs.pb.h"
#include "drover/v1/priority.pb.h"
#include "drover/v1/reservations.pb.h"
#include "rpc/caller.h"

namespace drover::ctld {

// What a request names besides its caller: nothing, unless an overload below says otherwise.
template <typename Request>
void addNamesOf(const Request&, NameQuery*) {}
void addNamesOf(const v1::SubmitJobRequest& request, NameQuery* query);           // --uid, --gid
void addNamesOf(const v1::GetJobsRequest& request, NameQuery* query);             // squeue -u
void addNamesOf(const v1::CancelJobsRequest& request, NameQuery* query);          // scancel -u
void addNamesOf(const v1::QueryAccountingRequest& request, NameQuery* query);     // sacct -u, -g
void addNamesOf(const v1::GetPrioritiesRequest& request, NameQuery* query);       // sprio -u
void addNamesOf(const v1::GetSharesRequest& request, NameQuery* query);           // sshare -u
void addNamesOf(const v1::CreateReservationRequest& request, NameQuery* query);   // Users=
void addNamesOf(const v1::UpdateReservationRequest& request, NameQuery* query);   // Users=

template <typename Request>
NameQuery namesIn(const rpc::Caller& caller, const Request& request) {
  NameQuery query;
  query.uids.push_back(caller.uid);
  query.gids.push_back(caller.gid);
  addNamesOf(request, &query);
  return query;
}

// squeue's and sprio's -u of users nobody is: the reference named each ("Invalid user: X") and
// listed the other users' jobs (an unknown user's filter matches no job here either).
template <class Users, class Out>
void addUnknownUsers(const Users& users, const NameDirectory& names, Out* unknown) {
  for (const auto& user : users)
    if (!names.uidOf(std::string(user))) unknown->Add(std::string(user));
}

// sacct's -u names checked and its -g names (`groups`) turned into gids, here because a static
// sacct cannot use NSS: "Invalid user id: X" or "Invalid group id: X" for a name nobody has, as
// the reference's sacct refused them.
Result<v1::QueryAccountingRequest> resolveAccountingNames(v1::QueryAccountingRequest request,
                                                          const NameDirectory& names);

}  // namespace drover::ctld
