// JobService's sstat side: GetStepStats asks the agent of every node of the chosen steps for
// the step's usage so far (Agent.GetStepUsage, answered by the step's supervisor), in parallel
// on the agent RPC pool, and answers once all of them did.
#include <boost/asio/post.hpp>

#include "common/log.h"
#include "ctld/agent_step_usage.h"
#include "ctld/job_service.h"
#include "ctld/step_stats.h"

namespace drover::ctld {

// The answers still awaited for one GetStepStats.
struct StatsFanOut {
  std::uint64_t job_id = 0;
  std::vector<StatStep> steps;
  std::vector<std::vector<NodeAnswer>> answers;   // per step, in node order
  std::size_t left = 0;
  std::function<void(Result<v1::GetStepStatsReply>)> done;

  void finish() {
    v1::GetStepStatsReply reply;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      *reply.add_steps() = foldStepStats(job_id, steps[i], answers[i]);
    }
    done(std::move(reply));
  }
};

void JobService::stepStats(const rpc::Caller& caller, const v1::GetStepStatsRequest& request,
                           std::function<void(Result<v1::GetStepStatsReply>)> done) {
  const jobs::Job* job = manager_->find(request.job_id());
  if (job == nullptr || job->unsplit()) {
    done(makeError(unknownJobText(request.job_id())));
    return;
  }
  auto steps = selectStatSteps(job->info, request);
  if (!steps) {
    done(makeError(steps.error()));
    return;
  }
  if (job->info.uid() != caller.uid && !manager_->isAdmin(jobCaller(caller))) {
    v1::GetStepStatsReply reply;
    for (const auto& s : *steps) *reply.add_steps() = deniedStepStats(job->info.job_id(), s);
    done(std::move(reply));
    return;
  }
  auto fan = std::make_shared<StatsFanOut>();
  fan->job_id = job->info.job_id();
  fan->done = std::move(done);
  fan->answers.resize(steps->size());
  for (std::size_t i = 0; i < steps->size(); ++i) {
    fan->answers[i].resize((*steps)[i].nodes.size());
    fan->left += (*steps)[i].nodes.size();
  }
  fan->steps = std::move(*steps);
  if (fan->left == 0) {
    fan->finish();
    return;
  }
  const rpc::ClientOptions options = agentCallOptions();
  for (std::size_t i = 0; i < fan->steps.size(); ++i) {
    for (std::size_t n = 0; n < fan->steps[i].nodes.size(); ++n) {
      const std::string& node = fan->steps[i].nodes[n];
      v1::GetStepUsageRequest ask;
      jobs::nameStep(ask.mutable_step(), *job, fan->steps[i].step_id);
      auto settle = [this, fan, i, n](NodeAnswer answer) {
        boost::asio::post(io_, [fan, i, n, answer = std::move(answer)]() mutable {
          fan->answers[i][n] = std::move(answer);
          if (--fan->left == 0) fan->finish();
        });
      };
      auto channel = channelFor(node);
      if (!channel) {
        settle(NodeAnswer{node, "node has no agent address", {}});
        continue;
      }
      postAgentCall([channel, node, ask, options, settle]() {
        NodeAnswer answer = askStepUsage(channel, node, ask, options);
        if (!answer.error.empty()) {
          drover::log::get("ctld")->info("job {} step {}: no usage from {}: {}",
                                         ask.step().job_id(), ask.step().step_id(), node,
                                         answer.error);
        }
        settle(std::move(answer));
      });
    }
  }
}

}  // namespace drover::ctld
