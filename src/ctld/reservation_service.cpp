#include "ctld/reservation_service.h"

#include <pwd.h>

#include <vector>

#include "common/log.h"
#include "ctld/services.h"
#include "rpc/server_auth.h"

namespace drover::ctld {
namespace {

bool userExists(const std::string& name) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  return getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr;
}

wire::Outcome fail(int code, std::string message) {
  return wire::Outcome{code, std::move(message)};
}

// Slurm's refusal for a non-admin; the detail says who asked.
wire::Outcome denied(const rpc::Caller& caller) {
  return fail(kPermissionDenied, "Access/permission denied: reservations are changed by root "
                                 "and operators only; user " +
                                     userName(caller.uid) + " is neither");
}

}  // namespace

Result<std::unique_ptr<ReservationService>> ReservationService::create(CtldState& state,
                                                                        JobService& jobs,
                                                                        StateStore& store) {
  auto opened = ReservationStore::open(store.handle(), store.path());
  if (!opened) return makeError(opened.error());
  auto loaded = opened->load();
  if (!loaded) return makeError(loaded.error());
  std::unique_ptr<ReservationService> svc(
      new ReservationService(state, jobs, std::move(opened).value()));
  auto& book = jobs.manager().reservations();
  for (auto& info : *loaded) book.restore(std::move(info));
  svc->dropExpired();
  drover::log::get("ctld")->info("{} advance reservation(s) restored", book.size());
  if (book.size() > 0) jobs.requestPass();
  return svc;
}

jobs::ReservationContext ReservationService::context() const {
  jobs::ReservationContext ctx;
  ctx.now = state_.now();
  for (const auto& job : jobs_.query(v1::GetJobsRequest{})) {
    if (!jobs::holdsResources(job.state())) continue;
    for (const auto& a : job.allocation()) ctx.busy.push_back({a.node(), job.end_time()});
  }
  ctx.user_exists = userExists;
  return ctx;
}

void ReservationService::dropExpired() {
  for (const auto& name : jobs_.manager().reservations().dropExpired(state_.now())) {
    if (auto s = store_.remove(name); !s) {
      drover::log::get("ctld")->warn("reservation {} ended: {}", name, s.error());
    } else {
      drover::log::get("ctld")->info("reservation {} ended", name);
    }
  }
}

void ReservationService::install(ControllerHandlers& h) {
  auto& book = jobs_.manager().reservations();
  h.create_reservation = [this, &book](const rpc::Caller& caller,
                                                   const v1::CreateReservationRequest& req,
                                                   wire::Reply_<v1::CreateReservationReply> done) {
    v1::CreateReservationReply rep;
    if (!rpc::isAdmin(caller, state_.config().operators)) return done(denied(caller), rep);
    dropExpired();
    auto made = book.create(req.spec(), context());
    if (!made) return done(fail(kInvalidArgument, made.error()), rep);
    if (auto s = store_.save(*made); !s) {
      (void)book.remove(made->name());
      return done(fail(kInternal, s.error()), rep);
    }
    drover::log::get("ctld")->info("reservation {} created by {}", made->name(),
                                   userName(caller.uid));
    jobs_.requestPass();
    rep.set_name(made->name());
    done(wire::Outcome::ok(), rep);
  };
  h.update_reservation = [this, &book](const rpc::Caller& caller,
                                                   const v1::UpdateReservationRequest& req,
                                                   wire::Reply_<v1::UpdateReservationReply> done) {
    v1::UpdateReservationReply rep;
    if (!rpc::isAdmin(caller, state_.config().operators)) return done(denied(caller), rep);
    dropExpired();
    const v1::ReservationInfo* current = book.find(req.spec().name());
    v1::ReservationInfo before = current != nullptr ? *current : v1::ReservationInfo{};
    auto updated = book.update(req.spec(), context());
    if (!updated) return done(fail(kInvalidArgument, updated.error()), rep);
    if (auto s = store_.save(*updated); !s) {
      book.restore(before);
      return done(fail(kInternal, s.error()), rep);
    }
    drover::log::get("ctld")->info("reservation {} updated by {}", updated->name(),
                                   userName(caller.uid));
    jobs_.requestPass();
    done(wire::Outcome::ok(), rep);
  };
  h.delete_reservation = [this, &book](const rpc::Caller& caller,
                                                   const v1::DeleteReservationRequest& req,
                                                   wire::Reply_<v1::DeleteReservationReply> done) {
    v1::DeleteReservationReply rep;
    if (!rpc::isAdmin(caller, state_.config().operators)) return done(denied(caller), rep);
    dropExpired();
    const v1::ReservationInfo* current = book.find(req.name());
    if (current == nullptr) {
      return done(fail(kNotFound, std::string(jobs::kResvInvalid) + ": " + req.name()), rep);
    }
    if (auto s = store_.remove(req.name()); !s) return done(fail(kInternal, s.error()), rep);
    (void)book.remove(req.name());
    drover::log::get("ctld")->info("reservation {} deleted by {}", req.name(),
                                   userName(caller.uid));
    jobs_.requestPass();
    done(wire::Outcome::ok(), rep);
  };
  h.get_reservations = [this, &book](const rpc::Caller&, const v1::GetReservationsRequest& req,
                                     wire::Reply_<v1::GetReservationsReply> done) {
    v1::GetReservationsReply rep;
    dropExpired();
    const std::int64_t now = state_.now();
    rep.set_time(now);
    auto list = book.list({req.names().begin(), req.names().end()}, now);
    if (!list) return done(fail(kNotFound, list.error()), rep);
    for (auto& r : *list) *rep.add_reservations() = std::move(r);
    done(wire::Outcome::ok(), rep);
  };
}

}  // namespace drover::ctld
