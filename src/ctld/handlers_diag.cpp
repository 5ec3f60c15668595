// sdiag: GetStatistics, and the counting of every Controller RPC for its tables. Both run on
// the state thread (handlers.h), where DiagStats lives.
#include "ctld/counted_handler.h"
#include "ctld/handlers.h"
#include "ctld/services.h"

namespace drover::ctld {

void countCalls(ControllerHandlers& h, DiagStats& stats) {
  forEachHandler(h, [&stats](const char* name, auto& handler) {
    if (handler) handler = countedHandler(name, std::move(handler), stats);
  });
}

void addStatisticsHandler(ControllerHandlers& h, CtldState& state, JobService* jobs) {
  h.get_statistics = [&state, jobs](const rpc::Caller& caller,
                                    const v1::GetStatisticsRequest& req,
                                    wire::Reply_<v1::GetStatisticsReply> done) {
    v1::GetStatisticsReply rep;
    const jobs::LifecycleCounts counts =
        jobs != nullptr ? jobs->manager().lifecycleCounts() : jobs::LifecycleCounts{};
    if (req.reset()) {
      // Slurm: "Only supported for Slurm operators and administrators".
      if (!state.isOperator(caller.uid)) {
        done(wire::Outcome{kPermissionDenied,
                           "resetting statistics is for root and operators only; user " +
                               state.names().userName(caller.uid) + " (uid " + std::to_string(caller.uid) +
                               ") is neither"},
             rep);
        return;
      }
      state.diag().reset(state.now(), counts);
      done(wire::Outcome::ok(), rep);
      return;
    }
    const std::int64_t now = state.now();
    rep.set_time(now);
    // Every uid there has called, so its name was looked up for that call.
    state.diag().fill(counts, [&state](std::uint32_t uid) { return state.names().userName(uid); }, &rep);
    if (jobs != nullptr) {
      const auto states = jobs->manager().stateCounts();
      rep.set_jobs_pending(states.pending);
      rep.set_jobs_running(states.running);
      const auto agents = jobs->agentCalls();
      rep.set_agent_queue_size(agents.queued);
      rep.set_agent_count(agents.running);
      rep.set_agent_thread_count(agents.running);
    }
    rep.set_job_states_time(now);
    done(wire::Outcome::ok(), rep);
  };
}

}  // namespace drover::ctld
