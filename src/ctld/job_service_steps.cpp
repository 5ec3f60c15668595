// JobService's srun/salloc side: step creation with a parallel LaunchStep fan-out, waiting for
// an interactive allocation without blocking the state thread, releasing it, and the timer
// that ends allocations at their time limit (no supervisor runs for them).
#include <grpcpp/grpcpp.h>

#include <boost/asio/post.hpp>
#include <chrono>

#include "common/launch_attempts.h"
#include "common/slurm_errors.h"
#include "common/log.h"
#include "ctld/job_service.h"
#include "ctld/launch_call.h"
#include "drover/v1/agent.grpc.pb.h"
#include "rpc/client.h"

namespace drover::ctld {

void JobService::createStep(const rpc::Caller& caller, const v1::CreateStepRequest& request,
                            std::function<void(Result<v1::CreateStepReply>)> done) {
  std::map<std::string, std::string> addresses;
  if (const jobs::Job* job = manager_->find(request.spec().job_id())) {
    for (const auto& node : jobs::nodesOf(*job)) {
      if (const NodeRecord* n = state_.registry().find(node)) addresses[node] = n->address;
    }
  }
  auto created = manager_->createStep(jobCaller(caller), request.spec(), addresses);
  if (!created) {
    drover::log::get("ctld")->info("job {}: step refused for uid {}: {}", request.spec().job_id(),
                                   caller.uid, created.error());
    done(makeError(created.error()));
    return;
  }
  // Launch only a step the job table holds on disk.
  afterCommit([this, created = std::move(*created), done = std::move(done)](Status s) mutable {
    if (!s) {
      done(makeError("the job table could not be written (" + s.error() + ")"));
      return;
    }
    launchStep(std::move(created), std::move(done));
  });
}

// One srun step's launches: CreateStep is answered once every node's launch has settled
// (launched, or failed for good) and the failures are committed.
struct JobService::StepFanOut {
  v1::CreateStepReply reply;
  std::size_t left = 0;
  std::function<void(Result<v1::CreateStepReply>)> done;
};

void JobService::launchStep(jobs::JobManager::CreatedStep created,
                            std::function<void(Result<v1::CreateStepReply>)> done) {
  auto fan = std::make_shared<StepFanOut>();
  fan->reply = std::move(created.reply);
  fan->left = created.launches.size();
  fan->done = std::move(done);
  drover::log::get("ctld")->info("job {} step {}: launching {} task(s) on {}",
                                 fan->reply.job_id(), fan->reply.step_id(), fan->reply.ntasks(),
                                 fan->reply.nodelist());
  for (auto& launch : created.launches) sendStepLaunch(fan, std::move(launch), 1);
}

void JobService::sendStepLaunch(std::shared_ptr<StepFanOut> fan, jobs::Launch launch,
                                int attempt) {
  auto agent = endpointFor(launch.node);
  if (!agent) {
    settleStepLaunch(fan, launch.node, "node has no agent address");
    return;
  }
  const rpc::ClientOptions base = agentCallOptions();
  // In parallel on the agent RPC pool: a step on many nodes costs about one round trip.
  postAgentCall([this, agent = *agent, base, fan, attempt, launch = std::move(launch)]() mutable {
    // Waits for an agent that refuses connections, as batch launches do: it may be back
    // already (registered again after a restart), and a call that failed at once would spend
    // every retry in the same instant. Each attempt is still bounded by the message timeout,
    // which srun's CreateStep deadline allows for (createStepTimeoutMs).
    LaunchCallResult result = callLaunchStep(agent, launch.request, base);
    boost::asio::post(io_, [this, fan, attempt, launch = std::move(launch),
                            result = std::move(result)]() mutable {
      // As for batch launches (sendLaunch): an agent that did not answer in time may be busy
      // and may have started the step after all, and a repeat of the same run and step is
      // answered with the running supervisor (or ALREADY_EXISTS), never a second start. Not
      // once the job or the step was cancelled or the node's part of it is over: its kill went
      // out already, and a launch sent after it would start what it was to stop.
      if (!result.why.empty() && result.unreachable && attempt < kLaunchAttempts &&
          manager_->stepLaunchWanted(launch.request.step(), launch.node)) {
        drover::log::get("ctld")->info(
            "job {} step {}: launch on {} failed ({}); sending it again (attempt {} of {})",
            launch.job_id, launch.request.step().step_id(), launch.node, result.why, attempt + 1,
            kLaunchAttempts);
        sendStepLaunch(std::move(fan), std::move(launch), attempt + 1);
        return;
      }
      settleStepLaunch(fan, launch.node, result.why);
    });
  });
}

// Runs on the state thread once per node; the last one replies after the failures committed.
void JobService::settleStepLaunch(const std::shared_ptr<StepFanOut>& fan,
                                  const std::string& node, const std::string& why) {
  const jobs::JobId job_id = fan->reply.job_id();
  const std::int64_t step_id = fan->reply.step_id();
  if (!why.empty()) {
    drover::log::get("ctld")->warn("job {} step {}: launch on {} failed: {}", job_id, step_id,
                                   node, why);
    fan->reply.add_launch_errors(node + ": " + why);
    manager_->stepLaunchFailed(job_id, step_id, node, why);
  }
  if (--fan->left > 0) return;
  afterCommit([fan](Status) { fan->done(fan->reply); });
}

Result<v1::AwaitAllocationReply> JobService::allocationReply(jobs::JobId id, unsigned caller_uid) {
  v1::GetJobsRequest q;
  q.add_job_ids(std::to_string(id));
  q.set_include_finished(true);
  auto found = manager_->query(q);
  for (auto& job : found) {
    if (job.job_id() != id) continue;
    v1::AwaitAllocationReply reply;
    // Only the allocation's own user takes its messages: anyone may watch a job start.
    if (job.uid() == caller_uid) {
      for (auto& m : notices_.take(id)) reply.add_messages(std::move(m));
    }
    *reply.mutable_job() = std::move(job);
    return reply;
  }
  return makeError(kInvalidJobId);
}

void JobService::awaitAllocation(const rpc::Caller& caller, const v1::AwaitAllocationRequest& request,
                                 std::function<void(Result<v1::AwaitAllocationReply>)> done) {
  const jobs::Job* job = manager_->find(request.job_id());
  if (job == nullptr) {
    done(makeError(kInvalidJobId));
    return;
  }
  const bool waiting = job->state() == v1::JOB_PENDING || job->state() == v1::JOB_REQUEUED;
  const bool told = job->info.uid() == caller.uid && notices_.has(job->id());
  if (!waiting || request.timeout_ms() == 0 || told) {
    done(allocationReply(job->id(), caller.uid));
    return;
  }
  const std::uint64_t token = next_waiter_++;
  AllocationWaiter w;
  w.job_id = job->id();
  w.uid = caller.uid;
  w.done = std::move(done);
  w.timer = std::make_unique<boost::asio::steady_timer>(io_);
  w.timer->expires_after(std::chrono::milliseconds(request.timeout_ms()));
  w.timer->async_wait([this, token](const boost::system::error_code& ec) {
    if (ec) return;
    auto it = waiters_.find(token);
    if (it == waiters_.end()) return;
    AllocationWaiter w = std::move(it->second);
    waiters_.erase(it);
    w.done(allocationReply(w.job_id, w.uid));
  });
  waiters_.emplace(token, std::move(w));
}

void JobService::answerWaiters(std::optional<jobs::JobId> notified) {
  if (waiters_.empty()) return;
  std::vector<AllocationWaiter> ready;
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    const jobs::Job* job = manager_->find(it->second.job_id);
    const bool waiting =
        job != nullptr && (job->state() == v1::JOB_PENDING || job->state() == v1::JOB_REQUEUED);
    if (waiting && it->second.job_id != notified) {
      ++it;
      continue;
    }
    ready.push_back(std::move(it->second));
    it = waiters_.erase(it);  // the timer goes with it (its wait ends as cancelled)
  }
  for (auto& w : ready) w.done(allocationReply(w.job_id, w.uid));
}

namespace {
// A job whose salloc or srun may still be there to hear a message.
bool mayHear(v1::JobState state) {
  return !jobs::isFinal(state) && state != v1::JOB_COMPLETING;
}
}  // namespace

// scontrol notify, checked as the reference's controller did: the job's user, root and
// operators may; a batch job has no client to tell ("presently disabled", as there).
Status JobService::notify(const rpc::Caller& caller, const v1::NotifyJobRequest& request) {
  const jobs::Job* job = manager_->find(request.job_id());
  if (job == nullptr) return makeError(kInvalidJobId);
  if (job->info.uid() != caller.uid && !manager_->isAdmin(jobCaller(caller))) {
    return makeError("Invalid user id");
  }
  if (!mayHear(job->state())) return makeError(kAlreadyDone);
  if (job->info.batch()) return makeError("Requested operation is presently disabled");
  notices_.add(job->id(), request.message(), [this](std::uint64_t id) {
    const jobs::Job* j = manager_->find(id);
    return j != nullptr && mayHear(j->state());
  });
  answerWaiters(job->id());  // a salloc waiting for its start hears it now
  return okStatus();
}

void JobService::completeAllocation(const rpc::Caller& caller,
                                    const v1::CompleteAllocationRequest& request, Done done) {
  Status s = manager_->completeAllocation(jobCaller(caller), request);
  if (!s) {
    done(s);
    return;
  }
  drover::log::get("ctld")->info("job {}: allocation released by uid {} (exit {}:{})",
                                 request.job_id(), caller.uid, request.exit_code(),
                                 request.exit_signal());
  afterCommit(std::move(done));
}

}  // namespace drover::ctld
