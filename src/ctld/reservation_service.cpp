#include "ctld/reservation_service.h"


#include <algorithm>
#include <chrono>
#include <vector>

#include "common/log.h"
#include "ctld/services.h"

namespace drover::ctld {
namespace {

wire::Outcome fail(int code, std::string message) {
  return wire::Outcome{code, std::move(message)};
}

// Slurm's refusal for a non-admin; the detail says who asked.
wire::Outcome denied(const CtldState& state, const rpc::Caller& caller) {
  return fail(kPermissionDenied, "Access/permission denied: reservations are changed by root "
                                 "and operators only; user " +
                                     state.names().userName(caller.uid) + " is neither");
}

}  // namespace

Result<std::unique_ptr<ReservationService>> ReservationService::create(
    boost::asio::io_context& io, const Clock& clock, CtldState& state, JobService& jobs,
    StateStore& store) {
  auto opened = ReservationStore::open(store.handle(), store.path());
  if (!opened) return makeError(opened.error());
  auto loaded = opened->load();
  if (!loaded) return makeError(loaded.error());
  std::unique_ptr<ReservationService> svc(
      new ReservationService(io, clock, state, jobs, std::move(opened).value()));
  auto& book = jobs.manager().reservations();
  for (auto& info : *loaded) book.restore(std::move(info));
  svc->tick();  // what ended while the controller was down
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
  // The Users= names of the request were looked up before its handler ran (request_names.h).
  ctx.user_exists = [&names = state_.names()](const std::string& name) {
    return names.userNamed(name).has_value();
  };
  return ctx;
}

void ReservationService::tick() {
  const std::int64_t over_run = state_.config().scheduler.resv_over_run_s;
  auto& book = jobs_.manager().reservations();
  auto log = drover::log::get("ctld");
  // Jobs first: they find their reservation's times in the book before it moves on.
  const std::int64_t next_job = jobs_.manager().endReservationJobs(over_run);
  const auto expired = book.expire(state_.now(), over_run);
  for (const auto& info : expired.moved) {
    if (auto s = store_.save(info); !s) log->warn("reservation {} moved on: {}", info.name(), s.error());
    log->info("reservation {}: next occurrence starts at {}", info.name(), info.start_time());
  }
  for (const auto& name : expired.dropped) {
    if (auto s = store_.remove(name); !s) {
      log->warn("reservation {} ended: {}", name, s.error());
    } else {
      log->info("reservation {} ended", name);
    }
  }
  std::int64_t next = book.nextExpiry(over_run);
  if (next_job != 0 && (next == 0 || next_job < next)) next = next_job;
  arm(next);
  // Ended jobs are committed and their kills sent by the pass's flush; freed nodes are used.
  if (!expired.moved.empty() || !expired.dropped.empty() || jobs_.manager().takeScheduleRequest()) {
    jobs_.requestPass();
  }
}

void ReservationService::arm(std::int64_t at) {
  if (at == 0 || at == armed_for_) return;
  armed_for_ = at;
  const std::int64_t wait_ms = std::max<std::int64_t>(0, at * 1000 - clock_.nowMs());
  timer_.expires_after(std::chrono::milliseconds(wait_ms));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    armed_for_ = 0;
    tick();
  });
}

void ReservationService::install(ControllerHandlers& h) {
  auto& book = jobs_.manager().reservations();
  h.create_reservation = [this, &book](const rpc::Caller& caller,
                                                   const v1::CreateReservationRequest& req,
                                                   wire::Reply_<v1::CreateReservationReply> done) {
    v1::CreateReservationReply rep;
    if (!state_.isOperator(caller.uid)) return done(denied(state_, caller), rep);
    tick();
    auto made = book.create(req.spec(), context());
    if (!made) return done(fail(kInvalidArgument, made.error()), rep);
    if (auto s = store_.save(*made); !s) {
      (void)book.remove(made->name());
      return done(fail(kInternal, s.error()), rep);
    }
    drover::log::get("ctld")->info("reservation {} created by {}", made->name(),
                                   state_.names().userName(caller.uid));
    tick();
    jobs_.requestPass();
    rep.set_name(made->name());
    done(wire::Outcome::ok(), rep);
  };
  h.update_reservation = [this, &book](const rpc::Caller& caller,
                                                   const v1::UpdateReservationRequest& req,
                                                   wire::Reply_<v1::UpdateReservationReply> done) {
    v1::UpdateReservationReply rep;
    if (!state_.isOperator(caller.uid)) return done(denied(state_, caller), rep);
    tick();
    const v1::ReservationInfo* current = book.find(req.spec().name());
    v1::ReservationInfo before = current != nullptr ? *current : v1::ReservationInfo{};
    auto updated = book.update(req.spec(), context());
    if (!updated) return done(fail(kInvalidArgument, updated.error()), rep);
    if (auto s = store_.save(*updated); !s) {
      book.restore(before);
      return done(fail(kInternal, s.error()), rep);
    }
    drover::log::get("ctld")->info("reservation {} updated by {}", updated->name(),
                                   state_.names().userName(caller.uid));
    tick();
    jobs_.requestPass();
    done(wire::Outcome::ok(), rep);
  };
  h.delete_reservation = [this, &book](const rpc::Caller& caller,
                                                   const v1::DeleteReservationRequest& req,
                                                   wire::Reply_<v1::DeleteReservationReply> done) {
    v1::DeleteReservationReply rep;
    if (!state_.isOperator(caller.uid)) return done(denied(state_, caller), rep);
    tick();
    const v1::ReservationInfo* current = book.find(req.name());
    if (current == nullptr) {
      return done(fail(kNotFound, std::string(jobs::kResvInvalid) + ": " + req.name()), rep);
    }
    if (auto s = store_.remove(req.name()); !s) return done(fail(kInternal, s.error()), rep);
    (void)book.remove(req.name());
    drover::log::get("ctld")->info("reservation {} deleted by {}", req.name(),
                                   state_.names().userName(caller.uid));
    jobs_.requestPass();
    done(wire::Outcome::ok(), rep);
  };
  h.get_reservations = [this, &book](const rpc::Caller&, const v1::GetReservationsRequest& req,
                                     wire::Reply_<v1::GetReservationsReply> done) {
    v1::GetReservationsReply rep;
    tick();
    const std::int64_t now = state_.now();
    rep.set_time(now);
    auto list = book.list({req.names().begin(), req.names().end()}, now);
    if (!list) return done(fail(kNotFound, list.error()), rep);
    for (auto& r : *list) *rep.add_reservations() = std::move(r);
    done(wire::Outcome::ok(), rep);
  };
}

}  // namespace drover::ctld
