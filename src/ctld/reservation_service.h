#pragma once
// The reservation RPCs (CreateReservation, UpdateReservation, DeleteReservation,
// GetReservations): root and operators change reservations, everyone lists them. The book
// lives in the JobManager (submissions and passes read it); this service checks the caller,
// tells the book which nodes run jobs until when, makes each accepted change durable in
// ctld.db before answering, and asks for a scheduling pass.
#include <memory>
#include <string>

#include "ctld/ctld_state.h"
#include "ctld/handlers.h"
#include "ctld/job_service.h"
#include "ctld/reservation_store.h"
#include "ctld/state_store.h"

namespace drover::ctld {

class ReservationService {
 public:
  // Loads the stored reservations into the job manager's book (ended ones are dropped).
  static Result<std::unique_ptr<ReservationService>> create(CtldState& state, JobService& jobs,
                                                            StateStore& store);

  // Fills the four reservation rows of `handlers`; this service must outlive them.
  void install(ControllerHandlers& handlers);

 private:
  ReservationService(CtldState& state, JobService& jobs, ReservationStore store)
      : state_(state), jobs_(jobs), store_(std::move(store)) {}

  jobs::ReservationContext context() const;
  // Forgets ended reservations, in memory and on disk.
  void dropExpired();

  CtldState& state_;
  JobService& jobs_;
  ReservationStore store_;
};

}  // namespace drover::ctld
