#pragma once
// sdiag's RPC tables: a handler wrapped so each call is counted and timed in DiagStats from
// the call to its answer (so a submission's time includes its commit, as Slurm's includes its
// locks and state save). Used for the Controller's handler table (handlers_diag.cpp) and the
// frame transport's StepEvent (agent_control_service.cpp).
#include <functional>
#include <utility>

#include "ctld/diag_stats.h"
#include "rpc/caller.h"
#include "wire/method_table.h"

namespace drover::ctld {

template <typename Request, typename Reply>
std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)> countedHandler(
    const char* method,
    std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)> inner,
    DiagStats& stats) {
  return [method, &stats, inner = std::move(inner)](const rpc::Caller& caller,
                                                    const Request& request,
                                                    wire::Reply_<Reply> done) {
    const DiagStats::Call call = stats.rpcStarted(steadyMicros());
    inner(caller, request,
          [method, &stats, call, uid = caller.uid, done = std::move(done)](
              wire::Outcome outcome, const Reply& reply) {
            stats.rpcEnded(call, method, uid, steadyMicros());
            done(std::move(outcome), reply);
          });
  };
}

}  // namespace drover::ctld
