#pragma once
// sdiag's RPC tables: a handler wrapped so each call is counted and timed in DiagStats from
// the call to its answer (so a submission's time includes its commit, as Slurm's includes its
// locks and state save). Used for the Controller's handler table (handlers_diag.cpp) and the
// frame transport's StepEvent (agent_control_service.cpp). At debug level (scontrol setdebug
// debug) each call is also logged with its caller, outcome and time, as slurmctld logs its RPCs.
#include <functional>
#include <memory>
#include <utility>

#include "common/log.h"
#include "ctld/diag_stats.h"
#include "rpc/caller.h"
#include "wire/method_table.h"

namespace drover::ctld {

template <typename Request, typename Reply>
std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)> countedHandler(
    const char* method,
    std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)> inner,
    DiagStats& stats) {
  return [method, &stats, inner = std::move(inner), logger = log::get("rpc")](
             const rpc::Caller& caller, const Request& request, wire::Reply_<Reply> done) {
    const DiagStats::Call call = stats.rpcStarted(steadyMicros());
    inner(caller, request,
          [method, &stats, call, uid = caller.uid, logger, done = std::move(done)](
              wire::Outcome outcome, const Reply& reply) {
            const std::int64_t now = steadyMicros();
            stats.rpcEnded(call, method, uid, now);
            if (logger->should_log(spdlog::level::debug)) {
              logger->debug("{} from uid {}: {} ({} us)", method, uid,
                            outcome.code == 0 ? std::string("ok") : outcome.message,
                            now - call.start_us);
            }
            done(std::move(outcome), reply);
          });
  };
}

}  // namespace drover::ctld
