#pragma once
// The controller's job side, owned by the state thread: the JobManager with its durable job
// table, the accounting store, group commit, the coalesced scheduling pass and the RPCs to the
// agents (LaunchStep, SignalStep). Everything here runs on the io_context thread; agent RPCs
// run on a small pool and post their outcome back.
//
// Group commit (DESIGN decision 4): a submission is staged and its reply queued; one commit
// runs for everything queued when the loop next gets to it, then every queued reply is sent.
// Scheduling (decision 2): any change requests a pass, which runs coalesce_ms after the first
// request.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "acct/sqlite_store.h"
#include "ctld/ctld_state.h"
#include "ctld/job_notices.h"
#include "ctld/launch_call.h"
#include "ctld/node_events.h"
#include "drover/result.h"
#include "drover/v1/controller.pb.h"
#include "jobs/job_manager.h"
#include "jobs/job_store.h"
#include "rpc/caller.h"
#include "rpc/client.h"

namespace grpc {
class Channel;
}

namespace drover::ctld {

// "Batch job submission failed" as one message: the notes, one a line, then the message.
std::string submitFailureMessage(const jobs::SubmitFailure& failure);

// The scheduler's view of the registry's nodes: usable = up, responding and not drained.
std::vector<jobs::NodeView> nodeViews(const config::ClusterConfig& cfg, const NodeRegistry& reg);

// Sums the allocations of jobs that hold resources, per node.
std::map<std::string, NodeUsage> usageOf(const std::vector<v1::JobInfo>& running);

class JobService {
 public:
  // Opens <state_dir>/jobs.db and <state_dir>/accounting.db and recovers the job table.
  static Result<std::unique_ptr<JobService>> create(boost::asio::io_context& io, CtldState& state,
                                                    const Clock& clock);
  ~JobService();

  using Done = std::function<void(Status)>;

  // Stages the job; `done` runs after the commit that made it durable (or at once on refusal).
  void submit(const rpc::Caller& caller, const v1::JobSpec& spec,
              std::function<void(Result<v1::SubmitJobReply>)> done);
  std::vector<v1::JobInfo> query(const v1::GetJobsRequest& request) const;
  void query(const v1::GetJobsRequest& request,
             google::protobuf::RepeatedPtrField<v1::JobInfo>* out) const;
  void cancel(const rpc::Caller& caller, const v1::CancelJobsRequest& request,
              std::function<void(v1::CancelJobsReply)> done);
  void control(const rpc::Caller& caller, const v1::JobControlRequest& request,
               std::function<void(v1::JobControlReply)> done);
  void update(const rpc::Caller& caller, const v1::UpdateJobRequest& request,
              std::function<void(Result<v1::UpdateJobReply>)> done);
  // scontrol write batch_script: read from the job store on the loop (one row).
  Result<v1::GetJobScriptReply> jobScript(const rpc::Caller& caller,
                                          const v1::GetJobScriptRequest& request) const {
    return manager_->jobScript(jobCaller(caller), request.job_id());
  }
  // A step supervisor's report; acknowledged after it is durable.
  void stepEvent(const v1::StepEventRequest& event, Done done);
  // sacct: read on the pool from a reader of its own, answered on the loop.
  void queryAccounting(const rpc::Caller& caller, v1::QueryAccountingRequest request,
                       std::function<void(Result<v1::QueryAccountingReply>)> done);
  // sreport: the same jobs summed in the store (ctld/usage_query.h), the same way.
  void queryUsage(const rpc::Caller& caller, const v1::QueryUsageRequest& request,
                  std::function<void(Result<v1::QueryUsageReply>)> done);

  // sacctmgr show event: node and cluster events (ctld/event_query.h), read the same way.
  void queryEvents(const v1::QueryEventsRequest& request,
                   std::function<void(Result<v1::QueryEventsReply>)> done);

  // The registry reported a change (node up, down, drained, reconfigured...): the node's
  // accounting event opens or closes with the next accounting write.
  void nodeChanged(const StateChange& change);
  // An agent (re)registered listing the steps it runs: a job this controller holds as running
  // with its batch step on `node` that the agent does not run is lost. When the node lost all
  // of them (rebooted) that is a node failure (requeue or NODE_FAIL per the job); single
  // vanished jobs fail. Jobs started in the last few seconds are skipped (launch in flight).
  void reconcile(const std::string& node, const std::vector<v1::StepId>& running);
  // An agent's heartbeat listed the steps it runs: those of no job's current run there are
  // killed.
  void heartbeat(const std::string& node, const std::vector<v1::StepId>& running);
  // Anything that may let a job start.
  void requestPass();
  // The configuration was reloaded: the manager takes the new nodes and partitions, then a pass.
  void configChanged();

  // srun/salloc (job_service_steps.cpp). CreateStep: creates the step, commits, sends
  // LaunchStep to all its nodes in parallel, replies once every node answered (failures in
  // launch_errors). AwaitAllocation: answers when the job runs or ended, else after
  // timeout_ms with the job still pending. CompleteAllocation: ends an interactive allocation.
  void createStep(const rpc::Caller& caller, const v1::CreateStepRequest& request,
                  std::function<void(Result<v1::CreateStepReply>)> done);
  void awaitAllocation(const rpc::Caller& caller, const v1::AwaitAllocationRequest& request,
                       std::function<void(Result<v1::AwaitAllocationReply>)> done);
  void completeAllocation(const rpc::Caller& caller,
                          const v1::CompleteAllocationRequest& request, Done done);
  // scontrol notify: queues the message for the job's salloc or srun (its next
  // AwaitAllocation takes it; one waiting for its start is answered at once). Errors are
  // Slurm's texts.
  Status notify(const rpc::Caller& caller, const v1::NotifyJobRequest& request);

  // sstat (job_service_stats.cpp): asks the agents of the steps' nodes in parallel on the
  // agent RPC pool and answers once every node did (or failed). The job's owner, root and
  // operators see the figures; others get the steps marked permission_denied, as Slurm's
  // nodes refuse them.
  void stepStats(const rpc::Caller& caller, const v1::GetStepStatsRequest& request,
                 std::function<void(Result<v1::GetStepStatsReply>)> done);

  // scontrol listpids and pidinfo (job_service_pids.cpp): the processes of the steps running
  // on one node (of one job, or one step), from its agent in parallel per step, answered once
  // every step did. Everyone may ask, as Slurm's nodes answer everyone.
  void listPids(const v1::ListPidsRequest& request,
                std::function<void(Result<v1::ListPidsReply>)> done);

  // sbcast and srun --bcast (job_service_bcast.cpp): checks the caller and the job, then sends
  // the block to the agent of every node of the job (or step) in parallel on the agent RPC
  // pool (Agent.WriteFileBlock) and answers once every node did (failures in `failures`).
  void broadcastFile(const rpc::Caller& caller, const v1::BroadcastFileRequest& request,
                     std::function<void(Result<v1::BroadcastFileReply>)> done);

  std::map<std::string, NodeUsage> usage() const;
  // sdiag's agent figures: calls to agents (launch, signal, usage, file blocks) waiting for a
  // thread of the agent RPC pool, and in progress on one.
  struct AgentCalls {
    std::uint32_t queued = 0;
    std::uint32_t running = 0;
  };
  AgentCalls agentCalls() const { return {agent_queued_.load(), agent_running_.load()}; }
  jobs::JobManager& manager() { return *manager_; }
  // Transactions the job table has committed (group commit: one per burst).
  std::int64_t commits() const { return store_->commits(); }

  // Stops the agent RPC pool (before the loop goes away).
  void shutdown();

 private:
  JobService(boost::asio::io_context& io, CtldState& state, const Clock& clock);

  jobs::Caller jobCaller(const rpc::Caller& caller) const;
  // Queues `after` to run once the next commit succeeded (or failed: it gets the error).
  void afterCommit(Done after);
  void flush();
  void runPass();
  void sendLaunches(std::vector<jobs::Launch> launches);
  // One attempt (1, 2, ...) of one launch; a timed-out one is sent again while the job still
  // waits for it (common/launch_attempts.h).
  void sendLaunch(jobs::Launch launch, int attempt);
  // An attempt of `job`'s launch came back (launched, or failed: a retry counts anew).
  void launchSettled(jobs::JobId job);
  // Kills the steps in `running` (listed by `node`'s agent) that no job holds there in its
  // current run; with `named_runs_only`, only those that name their run.
  void killStrays(const std::string& node, const std::vector<v1::StepId>& running,
                  bool named_runs_only);
  void sendSignals();
  void sendSignalActions(std::vector<jobs::SignalAction> signals);
  std::shared_ptr<grpc::Channel> channelFor(const std::string& node);
  // The node's agent as it registered; nullopt without an address.
  std::optional<AgentEndpoint> endpointFor(const std::string& node) const;
  // How the controller calls agents: its MUNGE socket, the message timeout.
  rpc::ClientOptions agentCallOptions() const;

  boost::asio::io_context& io_;
  CtldState& state_;
  const Clock& clock_;
  std::string accounting_path_;
  std::unique_ptr<jobs::JobStore> store_;
  std::unique_ptr<acct::SqliteAccountingStore> accounting_;
  std::unique_ptr<jobs::JobManager> manager_;
  // Node and cluster events (node_events.h) and the changes waiting for the next accounting
  // write (flush).
  std::unique_ptr<NodeEventTracker> events_;
  std::vector<acct::EventChange> pending_events_;
  // Every node's state and the configuration, into pending_events_ (start-up, reconfigure).
  void observeAllNodes();
  // One node's events, given what jobs hold on the nodes (usage()).
  void observeNode(const NodeRecord& node, const std::map<std::string, NodeUsage>& used);
  // The nodes seen draining, again: those whose jobs are done are drained.
  void observeDraining();
  std::vector<Done> waiting_commit_;
  bool flush_posted_ = false;
  boost::asio::steady_timer pass_timer_;
  // A pass at least this often: begin times arrive and array throttles free up without an event.
  boost::asio::steady_timer periodic_timer_;
  // Fires at the earliest future --begin time, so such a job starts on time, not at the next
  // periodic pass.
  boost::asio::steady_timer begin_timer_;
  std::int64_t begin_armed_for_ = 0;
  void armPeriodic();
  void armBeginTimer(std::int64_t now);
  bool pass_armed_ = false;
  std::int64_t last_purge_ = 0;
  // Nodes that registered with this controller process: a launch of ours may be in flight to
  // them. At a node's first registration none can be (nothing is launched on a node before it
  // registers), so a running job it lacks lost its launch (sent by no one: the previous process
  // died between committing the start and sending it) and is handled at once, with no grace.
  std::set<std::string> registered_;
  // Batch launches sent and not yet answered, by job: a node that registers again meanwhile
  // (its agent restarted while the launch waited for it) does not list the step yet, and the
  // launch's own outcome, not the registration, decides about the job. The time grace alone
  // (kLaunchGraceS) is shorter than a launch retried up to kLaunchAttempts message timeouts.
  std::map<jobs::JobId, int> launches_in_flight_;
  std::map<std::string, std::pair<std::string, std::shared_ptr<grpc::Channel>>> channels_;
  std::unique_ptr<boost::asio::thread_pool> pool_;
  // A call to an agent onto pool_, counted for agentCalls().
  template <typename F>
  void postAgentCall(F&& call) {
    ++agent_queued_;
    boost::asio::post(*pool_, [this, call = std::forward<F>(call)]() mutable {
      --agent_queued_;
      ++agent_running_;
      call();
      --agent_running_;
    });
  }
  std::atomic<std::uint32_t> agent_queued_{0};
  std::atomic<std::uint32_t> agent_running_{0};

  // srun/salloc (job_service_steps.cpp).
  struct AllocationWaiter {
    jobs::JobId job_id = 0;
    unsigned uid = 0;         // the caller: takes the job's notices when it is the job's user
    std::function<void(Result<v1::AwaitAllocationReply>)> done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };
  Result<v1::AwaitAllocationReply> allocationReply(jobs::JobId id, unsigned caller_uid);
  // Answers the waiters whose job no longer waits, and those of `notified`.
  void answerWaiters(std::optional<jobs::JobId> notified = std::nullopt);
  JobNotices notices_;
  struct StepFanOut;
  void launchStep(jobs::JobManager::CreatedStep created,
                  std::function<void(Result<v1::CreateStepReply>)> done);
  // One attempt (1, 2, ...) of one node's launch of a step; a timed-out one is sent again while
  // the step still wants it (common/launch_attempts.h).
  void sendStepLaunch(std::shared_ptr<StepFanOut> fan, jobs::Launch launch, int attempt);
  void settleStepLaunch(const std::shared_ptr<StepFanOut>& fan, const std::string& node,
                        const std::string& why);
  std::map<std::uint64_t, AllocationWaiter> waiters_;  // by token
  std::uint64_t next_waiter_ = 1;
  // enforceTimeBounds' next due time (an allocation's end, a pending job's deadline).
  void armTimeBoundsTimer(std::int64_t next);
  std::unique_ptr<boost::asio::steady_timer> time_bounds_timer_;
  std::int64_t time_bounds_armed_for_ = 0;
};

}  // namespace drover::ctld
