// JobService's scontrol listpids and pidinfo side: the running steps with tasks on the node
// (ctld/node_pids.h), each asked of the node's agent (Agent.GetStepUsage, answered by the
// step's supervisor) in parallel on the agent RPC pool; the reply goes once every step
// answered.
#include <boost/asio/post.hpp>

#include "common/log.h"
#include "ctld/agent_step_usage.h"
#include "ctld/job_service.h"
#include "ctld/node_pids.h"

namespace drover::ctld {

void JobService::listPids(const v1::ListPidsRequest& request,
                          std::function<void(Result<v1::ListPidsReply>)> done) {
  struct FanOut {
    v1::ListPidsReply reply;
    std::size_t left = 0;
    std::function<void(Result<v1::ListPidsReply>)> done;
  };
  auto fan = std::make_shared<FanOut>();
  fan->done = std::move(done);
  fan->reply.set_node_known(state_.registry().find(request.node()) != nullptr);
  v1::GetJobsRequest running;
  running.set_nodes(request.node());
  running.add_states("RUNNING");
  running.add_states("SUSPENDED");
  if (request.job_id() != 0) running.add_job_ids(std::to_string(request.job_id()));
  const std::vector<NodeStep> steps =
      fan->reply.node_known() ? stepsOnNode(manager_->query(running), request.node(), request)
                              : std::vector<NodeStep>{};
  fan->left = steps.size();
  for (std::size_t i = 0; i < steps.size(); ++i) fan->reply.add_steps();
  if (fan->left == 0) {
    fan->done(std::move(fan->reply));
    return;
  }
  auto channel = channelFor(request.node());
  const rpc::ClientOptions options = agentCallOptions();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const NodeStep step = steps[i];
    auto settle = [this, fan, i, step](NodeAnswer answer) {
      boost::asio::post(io_, [fan, i, step, answer = std::move(answer)]() {
        *fan->reply.mutable_steps(static_cast<int>(i)) = stepPids(step, answer.usage, answer.error);
        if (--fan->left == 0) fan->done(std::move(fan->reply));
      });
    };
    if (!channel) {
      settle(NodeAnswer{request.node(), "node has no agent address", {}});
      continue;
    }
    v1::GetStepUsageRequest ask;
    ask.mutable_step()->set_job_id(step.job_id);
    ask.mutable_step()->set_step_id(step.step_id);
    ask.mutable_step()->set_restart_count(step.restart_count);
    postAgentCall([channel, node = request.node(), ask, options, settle]() {
      NodeAnswer answer = askStepUsage(channel, node, ask, options);
      if (!answer.error.empty()) {
        drover::log::get("ctld")->info("job {} step {}: no pids from {}: {}", ask.step().job_id(),
                                       ask.step().step_id(), node, answer.error);
      }
      settle(std::move(answer));
    });
  }
}

}  // namespace drover::ctld
