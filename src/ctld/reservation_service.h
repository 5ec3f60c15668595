#pragma once
// The reservation RPCs (CreateReservation, UpdateReservation, DeleteReservation,
// GetReservations): root and operators change reservations, everyone lists them. The book
// lives in the JobManager (submissions and passes read it); this service checks the caller,
// tells the book which nodes run jobs until when, makes each accepted change durable in
// ctld.db before answering, and asks for a scheduling pass. A timer follows the reservations'
// ends: running jobs of an ended reservation are ended (after ResvOverRun), recurring ones
// (HOURLY, DAILY, WEEKLY) move on to their next occurrence, one-off ones are forgotten.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
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
  static Result<std::unique_ptr<ReservationService>> create(boost::asio::io_context& io,
                                                            const Clock& clock, CtldState& state,
                                                            JobService& jobs, StateStore& store);

  // Fills the four reservation rows of `handlers`; this service must outlive them.
  void install(ControllerHandlers& handlers);

 private:
  ReservationService(boost::asio::io_context& io, const Clock& clock, CtldState& state,
                     JobService& jobs, ReservationStore store)
      : clock_(clock), state_(state), jobs_(jobs), store_(std::move(store)), timer_(io) {}

  jobs::ReservationContext context() const;
  // Ends the jobs of ended reservations, moves recurring ones on and forgets ended one-off ones
  // (in memory and on disk), then arms the timer for the next of these.
  void tick();
  void arm(std::int64_t at);

  const Clock& clock_;
  CtldState& state_;
  JobService& jobs_;
  ReservationStore store_;
  boost::asio::steady_timer timer_;
  std::int64_t armed_for_ = 0;
};

}  // namespace drover::ctld
