#include "ctld/request_names.h"

#include "common/comma_list.h"

namespace drover::ctld {
namespace {

template <typename Names>
void addUsers(const Names& users, NameQuery* query) {
  for (const auto& user : users) query->addUser(user);
}

// Users= of a reservation: a comma list whose entries may carry a '+' or '-' (reservations.cpp).
void addReservationUsers(const v1::ReservationSpec& spec, NameQuery* query) {
  if (!spec.has_users()) return;
  for (std::string user : splitCommas(spec.users())) {
    if (!user.empty() && (user[0] == '+' || user[0] == '-')) user.erase(0, 1);
    if (!user.empty()) query->user_names.push_back(user);
  }
}

}  // namespace

void addNamesOf(const v1::SubmitJobRequest& request, NameQuery* query) {
  query->addUser(request.spec().run_as_user());
  query->addGroup(request.spec().run_as_group());
}

void addNamesOf(const v1::GetJobsRequest& request, NameQuery* query) { addUsers(request.users(), query); }

void addNamesOf(const v1::CancelJobsRequest& request, NameQuery* query) { query->addUser(request.user()); }

void addNamesOf(const v1::QueryAccountingRequest& request, NameQuery* query) {
  for (const auto& user : request.users()) query->user_names.push_back(user);
  for (const auto& group : request.groups()) query->addGroup(group);
}

void addNamesOf(const v1::GetPrioritiesRequest& request, NameQuery* query) { addUsers(request.users(), query); }

void addNamesOf(const v1::GetSharesRequest& request, NameQuery* query) { addUsers(request.users(), query); }

void addNamesOf(const v1::CreateReservationRequest& request, NameQuery* query) {
  addReservationUsers(request.spec(), query);
}

void addNamesOf(const v1::UpdateReservationRequest& request, NameQuery* query) {
  addReservationUsers(request.spec(), query);
}

Result<v1::QueryAccountingRequest> resolveAccountingNames(v1::QueryAccountingRequest request,
                                                          const NameDirectory& names) {
  // sacct sends names here and ids as uids/gids (its static binary cannot use NSS).
  for (const std::string& user : request.users()) {
    if (!names.userNamed(user)) return makeError("Invalid user id: " + user);
  }
  for (const std::string& group : request.groups()) {
    const auto gid = names.gidOf(group);
    if (!gid) return makeError("Invalid group id: " + group);
    request.add_gids(*gid);
  }
  request.clear_groups();
  return request;
}

}  // namespace drover::ctld
