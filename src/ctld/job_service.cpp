#include "ctld/job_service.h"

#include <chrono>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <csignal>
#include <ctime>
#include <optional>
#include <limits>
#include <set>

#include "common/launch_attempts.h"
#include "common/log.h"
#include "config/association_tree.h"
#include "ctld/accounting_query.h"
#include "ctld/event_query.h"
#include "ctld/usage_query.h"
#include "ctld/launch_call.h"
#include "ctld/services.h"
#include "drover/v1/agent.grpc.pb.h"
#include "jobs/usage_store.h"
#include "rpc/client.h"
#include "sched/scheduler.h"

namespace drover::ctld {
namespace {

// Finished jobs are dropped from memory at most this often (they stay in accounting).
constexpr std::int64_t kPurgeEveryS = 30;
// A job started this recently may not have sent its launch yet (it goes out after the commit),
// or its step may be missing from a registration the agent sent just before the launch reached
// it. (A launch sent and not yet answered is known exactly: launches_in_flight_.)
constexpr std::int64_t kLaunchGraceS = 3;
constexpr int kPeriodicPassS = 10;

}  // namespace

std::string submitFailureMessage(const jobs::SubmitFailure& failure) {
  std::string out;
  for (const auto& note : failure.notes) out += note + "\n";
  return out + failure.message;
}

std::vector<jobs::NodeView> nodeViews(const config::ClusterConfig& cfg, const NodeRegistry& reg) {
  std::vector<jobs::NodeView> views;
  for (const auto& name : reg.order()) {
    const NodeRecord* n = reg.find(name);
    if (n == nullptr) continue;
    jobs::NodeView v;
    v.name = name;
    v.cpus = n->config.cpus;
    v.memory_mb = n->config.real_memory_mb;
    std::uint32_t gpus = n->config.gpus.count;
    std::string type = n->config.gpus.type;
    if (gpus == 0 && n->config.gpus.autodetect_nvidia && n->reported) {
      for (const auto& g : n->reported->gpus) v.gpu_types.push_back(g.type);
    } else {
      v.gpu_types.assign(gpus, type);
    }
    v.features = n->config.features;
    v.weight = n->config.weight;
    for (const auto& p : cfg.partitions) {
      for (const auto& pn : p.nodes) {
        if (pn == name) {
          v.partitions.push_back(p.name);
          break;
        }
      }
    }
    v.usable = n->registered && !n->not_responding && !n->drain && n->base != BaseState::kDown &&
               n->base != BaseState::kUnknown;
    views.push_back(std::move(v));
  }
  return views;
}

std::map<std::string, NodeUsage> usageOf(const std::vector<v1::JobInfo>& running) {
  std::map<std::string, NodeUsage> out;
  for (const auto& job : running) {
    if (!jobs::holdsResources(job.state())) continue;
    for (const auto& a : job.allocation()) {
      NodeUsage& u = out[a.node()];
      u.cpus += a.cpus();
      u.memory_mb += a.memory_mb();
      u.gpus += static_cast<std::uint32_t>(a.gpu_indices_size());
      u.gpu_indices.insert(u.gpu_indices.end(), a.gpu_indices().begin(), a.gpu_indices().end());
    }
  }
  return out;
}

JobService::JobService(boost::asio::io_context& io, CtldState& state, const Clock& clock)
    : io_(io),
      state_(state),
      clock_(clock),
      pass_timer_(io),
      periodic_timer_(io),
      begin_timer_(io),
      pool_(std::make_unique<boost::asio::thread_pool>(8)) {}

JobService::~JobService() { shutdown(); }

void JobService::shutdown() {
  if (pool_) {
    pool_->join();
    pool_.reset();
  }
}

Result<std::unique_ptr<JobService>> JobService::create(boost::asio::io_context& io,
                                                        CtldState& state, const Clock& clock) {
  std::unique_ptr<JobService> js(new JobService(io, state, clock));
  const std::string dir = state.config().controller.state_dir;
  auto store = jobs::JobStore::open(dir + "/jobs.db");
  if (!store) return makeError("job table " + dir + "/jobs.db: " + store.error());
  js->store_ = std::move(store).value();
  js->accounting_path_ = dir + "/accounting.db";
  auto acct = acct::SqliteAccountingStore::open(js->accounting_path_);
  if (!acct) return makeError("accounting store " + js->accounting_path_ + ": " + acct.error());
  js->accounting_ = std::move(acct).value();
  js->manager_ = std::make_unique<jobs::JobManager>(clock, state.config(), *js->store_);
  // Fair-share usage survives restarts in <state_dir>/usage.db.
  auto usage = jobs::UsageStore::open(dir + "/usage.db");
  if (!usage) return makeError("fair-share usage " + dir + "/usage.db: " + usage.error());
  if (auto s = js->manager_->attachUsageStore(std::move(usage).value()); !s) {
    return makeError("fair-share usage " + dir + "/usage.db: " + s.error());
  }
  if (auto s = js->manager_->recover(); !s) return makeError("recovering jobs: " + s.error());
  if (auto s = js->manager_->commit(); !s) return makeError("recovering jobs: " + s.error());
  auto batch = js->manager_->takeAccounting();
  // Events open before this start are carried on: kept while their nodes' states say the same
  // (restored admin states included), closed once a node is known to be back.
  auto open_events = js->accounting_->openEvents();
  if (!open_events) return makeError("accounting store " + js->accounting_path_ + ": " + open_events.error());
  // Who set a node's reason, as a uid for its event (0 when the name is unknown): names of
  // callers, and of reasons restored at start, which the server looked up then (server.cpp).
  auto uid_of = [&names = state.names()](const std::string& name) -> std::uint32_t {
    const auto user = names.userNamed(name);
    return user ? user->uid : 0;
  };
  js->events_ = std::make_unique<NodeEventTracker>(state.config().cluster_name, uid_of,
                                                   state.registry().systemUser());
  js->events_->restore(*open_events);
  js->observeAllNodes();
  batch.events = std::move(js->pending_events_);
  js->pending_events_.clear();
  if (!batch.empty()) {
    auto applied = js->accounting_->apply(batch);
    if (!applied) drover::log::get("ctld")->error("accounting write failed: {}", applied.error());
  }
  drover::log::get("ctld")->info("job table {}/jobs.db: {} jobs recovered", dir,
                                 js->manager_->size());
  js->requestPass();
  js->armPeriodic();
  return js;
}

jobs::Caller JobService::jobCaller(const rpc::Caller& caller) const {
  // The caller's names were looked up before its handler ran (name_stage.h).
  const NameDirectory& names = state_.names();
  return jobs::Caller{caller.uid, caller.gid, names.userName(caller.uid),
                      names.groupName(caller.gid).value_or(std::to_string(caller.gid))};
}

void JobService::afterCommit(Done after) {
  waiting_commit_.push_back(std::move(after));
  if (flush_posted_) return;
  flush_posted_ = true;
  boost::asio::post(io_, [this] { flush(); });
}

void JobService::flush() {
  flush_posted_ = false;
  // Interactive allocations past their limit, and pending jobs past their --deadline, end in
  // this same commit.
  armTimeBoundsTimer(manager_->enforceTimeBounds());
  auto waiting = std::move(waiting_commit_);
  waiting_commit_.clear();
  Status committed = manager_->commit();
  if (!committed) drover::log::get("ctld")->error("job table commit failed: {}", committed.error());
  // Exactly what this commit holds (the answers below may stage more for the next one).
  acct::AcctBatch batch = committed ? manager_->takeAccounting() : acct::AcctBatch{};
  // A draining node whose last job just ended is drained now: its event opens.
  observeDraining();
  // Node events do not depend on the job table's commit.
  batch.events = std::move(pending_events_);
  pending_events_.clear();
  // Answered once the job table holds what they asked for (an acknowledged job is durable),
  // before the accounting write: nobody waits on it. Accounting queries still see it, since
  // this thread takes their requests only after this flush.
  for (auto& done : waiting) {
    if (done) done(committed);
  }
  if (!batch.empty()) {
    auto applied = accounting_->apply(batch);
    if (!applied) drover::log::get("ctld")->error("accounting write failed: {}", applied.error());
  }
  sendSignals();
  if (committed) answerWaiters();  // job_service_steps.cpp
  if (manager_->takeScheduleRequest()) requestPass();
}

void JobService::observeAllNodes() {
  const std::int64_t now = clock_.now();
  events_->configured(state_.config().nodes, now, &pending_events_);
  const auto used = usage();
  for (const auto& name : state_.registry().order()) {
    if (const NodeRecord* n = state_.registry().find(name)) observeNode(*n, used);
  }
}

void JobService::observeNode(const NodeRecord& node, const std::map<std::string, NodeUsage>& used) {
  const auto it = used.find(node.config.name);
  const bool busy = it != used.end() && it->second.cpus > 0;
  events_->observe(node, clock_.now(), &pending_events_, busy);
}

void JobService::observeDraining() {
  if (!events_ || events_->draining().empty()) return;   // the usual case: nothing to scan
  const auto used = usage();
  const std::set<std::string> names = events_->draining();
  for (const auto& name : names) {
    if (const NodeRecord* n = state_.registry().find(name)) observeNode(*n, used);
  }
}

void JobService::configChanged() {
  observeAllNodes();
  if (!pending_events_.empty()) afterCommit({});
  manager_->configChanged();
  requestPass();
}

void JobService::requestPass() {
  if (pass_armed_) return;
  pass_armed_ = true;
  pass_timer_.expires_after(std::chrono::milliseconds(state_.config().scheduler.coalesce_ms));
  pass_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    runPass();
  });
}

void JobService::armPeriodic() {
  periodic_timer_.expires_after(std::chrono::seconds(kPeriodicPassS));
  periodic_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    requestPass();
    armPeriodic();
  });
}

void JobService::armBeginTimer(std::int64_t now) {
  // The job manager keeps the begin times ahead in order (no walk of the pending jobs), and
  // the next `after:ID+minutes` delay end from its last dependency evaluation.
  std::int64_t next = manager_->nextBeginTime();
  if (const std::int64_t dep = manager_->nextDependencyTime(); dep > 0 && (next == 0 || dep < next))
    next = dep;
  if (next <= now || next == begin_armed_for_) return;
  begin_armed_for_ = next;
  begin_timer_.expires_after(std::chrono::seconds(next - now));
  begin_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    begin_armed_for_ = 0;
    requestPass();
  });
}

void JobService::armTimeBoundsTimer(std::int64_t next) {
  if (next == 0 || next == time_bounds_armed_for_) return;
  if (!time_bounds_timer_) time_bounds_timer_ = std::make_unique<boost::asio::steady_timer>(io_);
  time_bounds_armed_for_ = next;
  const std::int64_t wait_ms = std::max<std::int64_t>(0, next * 1000 - clock_.nowMs());
  time_bounds_timer_->expires_after(std::chrono::milliseconds(wait_ms));
  time_bounds_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    time_bounds_armed_for_ = 0;
    afterCommit({});  // the flush ends what is due and re-arms for the next
  });
}

void JobService::runPass() {
  pass_armed_ = false;
  const std::int64_t now = clock_.now();
  if (now - last_purge_ >= kPurgeEveryS) {
    last_purge_ = now;
    manager_->purgeFinished();
  }
  // The maintained scheduler hears only what changed since the last pass (a submission is an
  // incremental pass); JobManager rebuilds it after recovery and every priority calc period.
  const auto pass_start = std::chrono::steady_clock::now();
  auto launches = manager_->schedulePass(nodeViews(state_.config(), state_.registry()));
  const auto pass_us = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - pass_start);
  const auto us = static_cast<std::uint64_t>(pass_us.count());
  state_.diag().passRan(us, manager_->lastPlanSize(), manager_->lastPlanSize());
  if (const auto& bf = manager_->lastBackfill(); bf.ran) {
    state_.diag().backfillRan({now, us, bf.started, bf.depth, bf.tried, manager_->lastPlanSize()});
  }
  armBeginTimer(now);
  (void)manager_->takeScheduleRequest();  // the pass itself is not a new reason for a pass...
  if (manager_->takeReleasedByStarts()) requestPass();  // ...but jobs its starts released are
  // Launch only what the job table holds as RUNNING on disk.
  afterCommit([this, launches = std::move(launches)](Status s) mutable {
    if (s) sendLaunches(std::move(launches));
  });
}

rpc::ClientOptions JobService::agentCallOptions() const {
  rpc::ClientOptions options;
  options.munge_socket = state_.config().munge_socket;
  options.timeout_ms = static_cast<int>(state_.config().timeouts.message_s) * 1000;
  return options;
}

std::optional<AgentEndpoint> JobService::endpointFor(const std::string& node) const {
  const NodeRecord* n = state_.registry().find(node);
  if (n == nullptr || n->address.empty() || n->port == 0) return std::nullopt;
  return AgentEndpoint{n->address, static_cast<std::uint16_t>(n->port)};
}

std::shared_ptr<grpc::Channel> JobService::channelFor(const std::string& node) {
  const NodeRecord* n = state_.registry().find(node);
  if (n == nullptr || n->address.empty() || n->port == 0) return nullptr;
  const std::string target = n->address + ":" + std::to_string(n->port);
  auto& slot = channels_[node];
  if (slot.first != target || !slot.second) slot = {target, rpc::makeChannel(target)};
  return slot.second;
}

void JobService::sendLaunches(std::vector<jobs::Launch> launches) {
  for (auto& launch : launches) sendLaunch(std::move(launch), 1);
}

void JobService::sendLaunch(jobs::Launch launch, int attempt) {
  auto agent = endpointFor(launch.node);
  if (!agent) {
    manager_->launchFailed(launch.job_id, "node " + launch.node + " has no agent address");
    afterCommit({});
    return;
  }
  if (attempt == 1) drover::log::get("ctld")->info("job {} starting on {}", launch.job_id, launch.node);
  const rpc::ClientOptions base = agentCallOptions();
  ++launches_in_flight_[launch.job_id];
  postAgentCall([this, agent = *agent, base, attempt, launch = std::move(launch)]() mutable {
    LaunchCallResult result = callLaunchStep(agent, launch.request, base);
    if (result.why.empty()) {
      boost::asio::post(io_, [this, id = launch.job_id] { launchSettled(id); });
      return;
    }
    boost::asio::post(io_, [this, attempt, launch = std::move(launch),
                            result = std::move(result)]() mutable {
      const std::string& why = result.why;
      const jobs::JobId id = launch.job_id;
      launchSettled(id);
      const std::string node = launch.node;
      const v1::StepId step = launch.request.step();
      drover::log::get("ctld")->warn("job {}: launch on {} failed: {}", id, node, why);
      // The job was requeued while this launch was out (its node failed, say): the failure
      // is the run's that ended, not the one the job runs or waits to run now.
      if (manager_->ofOtherRun(step)) {
        drover::log::get("ctld")->info("job {}: that launch was for run {}, not the job's "
                                       "current run: ignored",
                                       id, step.restart_count());
        return;
      }
      const jobs::Job* job = manager_->find(id);
      if (job == nullptr || !jobs::holdsResources(job->state())) return;
      // An agent that did not answer in time may be busy rather than gone, and may have
      // started the step after all: LaunchStep of one run is idempotent there (a retry gets
      // the running supervisor, or ALREADY_EXISTS once it ended), so the launch is sent again
      // before the job is failed for it. Not for a job cancelled or requeued meanwhile: its
      // kill went out already, and a launch sent after it would start what it was to stop.
      if (result.unreachable && attempt < kLaunchAttempts &&
          job->pending_end == jobs::PendingEnd::kNone) {
        drover::log::get("ctld")->info("job {}: sending its launch to {} again (attempt {} of {})",
                                       id, node, attempt + 1, kLaunchAttempts);
        sendLaunch(std::move(launch), attempt + 1);
        return;
      }
      // A node that does not answer has failed, as Slurm sees it: a job that may not be
      // requeued ends NODE_FAIL. A requeueable one ends FAILED here: requeued, it would be
      // sent straight back to the node, which stays up until its heartbeats time out. An
      // agent that answered with an error failed the launch itself.
      if (result.unreachable && !(job->info.requeue() && job->info.batch())) {
        manager_->jobLost(id, "node " + node + " not responding to the launch: " + why);
      } else {
        manager_->launchFailed(id, "launch on " + node + " failed: " + why);
      }
      afterCommit({});
    });
  });
}

void JobService::launchSettled(jobs::JobId job) {
  auto it = launches_in_flight_.find(job);
  if (it != launches_in_flight_.end() && --it->second <= 0) launches_in_flight_.erase(it);
}

void JobService::sendSignals() {
  auto signals = manager_->takeSignals();
  if (!signals.empty()) sendSignalActions(std::move(signals));
}

void JobService::sendSignalActions(std::vector<jobs::SignalAction> signals) {
  const rpc::ClientOptions base = agentCallOptions();
  for (auto& action : signals) {
    for (const auto& node : action.nodes) {
      auto agent = endpointFor(node);
      if (!agent) continue;
      postAgentCall([agent = *agent, base, node, request = action.request]() {
        const std::string why = callSignalStep(agent, request, base);
        if (!why.empty()) {
          drover::log::get("ctld")->warn("signal to job {} on {} failed: {}",
                                         request.step().job_id(), node, why);
        }
      });
    }
  }
}

void JobService::submit(const rpc::Caller& caller, const v1::JobSpec& spec,
                        std::function<void(Result<v1::SubmitJobReply>)> done) {
  // --uid/--gid: root submits for another user; the job is that user's in every respect.
  // Without --gid the group is the user's primary one (the reference kept root's gid 0).
  rpc::Caller owner = caller;
  if (!spec.run_as_user().empty() || !spec.run_as_group().empty()) {
    if (caller.uid != 0) {
      done(makeError("Access/permission denied"));
      return;
    }
    const NameDirectory& names = state_.names();
    if (!spec.run_as_user().empty()) {
      const auto uid = names.uidOf(spec.run_as_user());
      const auto user = uid ? names.user(*uid) : std::nullopt;
      if (!user) {
        done(makeError("Invalid user id"));
        return;
      }
      owner.uid = user->uid;
      owner.gid = user->gid;
    }
    if (!spec.run_as_group().empty()) {
      const auto gid = names.gidOf(spec.run_as_group());
      if (!gid) {
        done(makeError("Invalid group id"));
        return;
      }
      owner.gid = *gid;
    }
  }
  auto result = manager_->submit(jobCaller(owner), spec);
  if (!result) {
    drover::log::get("ctld")->info("submission by uid {} refused: {} {}", caller.uid,
                                   result.failure.message, result.failure.detail);
    done(makeError(submitFailureMessage(result.failure)));
    return;
  }
  v1::SubmitJobReply reply;
  reply.set_job_id(result.ok->job_id);
  reply.set_cluster_name(state_.config().cluster_name);
  reply.set_expected_start(result.ok->expected_start);
  reply.set_test_only_nodes(result.ok->test_only_nodes);
  reply.set_test_only_cpus(result.ok->test_only_cpus);
  reply.set_test_only_partition(result.ok->test_only_partition);
  for (const auto& w : result.ok->warnings) reply.add_warnings(w);
  if (spec.test_only()) {
    done(reply);
    return;
  }
  afterCommit([done = std::move(done), reply = std::move(reply)](Status s) {
    if (!s) {
      done(makeError("Batch job submission failed: the job table could not be written (" +
                     s.error() + ")"));
      return;
    }
    done(reply);
  });
}

std::vector<v1::JobInfo> JobService::query(const v1::GetJobsRequest& request) const {
  return manager_->query(request);
}

void JobService::query(const v1::GetJobsRequest& request,
                       google::protobuf::RepeatedPtrField<v1::JobInfo>* out) const {
  manager_->query(request, out);
}

void JobService::cancel(const rpc::Caller& caller, const v1::CancelJobsRequest& request,
                        std::function<void(v1::CancelJobsReply)> done) {
  v1::CancelJobsReply reply;
  for (auto& r : manager_->cancel(jobCaller(caller), request)) *reply.add_results() = std::move(r);
  afterCommit([done = std::move(done), reply = std::move(reply)](Status) { done(reply); });
}

void JobService::control(const rpc::Caller& caller, const v1::JobControlRequest& request,
                         std::function<void(v1::JobControlReply)> done) {
  v1::JobControlReply reply;
  for (auto& r : manager_->control(jobCaller(caller), request)) *reply.add_results() = std::move(r);
  afterCommit([done = std::move(done), reply = std::move(reply)](Status) { done(reply); });
}

void JobService::update(const rpc::Caller& caller, const v1::UpdateJobRequest& request,
                        std::function<void(Result<v1::UpdateJobReply>)> done) {
  auto reply = manager_->update(jobCaller(caller), request);
  if (!reply) {
    done(makeError(reply.error()));
    return;
  }
  afterCommit([done = std::move(done), reply = std::move(*reply)](Status s) {
    if (!s) {
      done(makeError(s.error()));
      return;
    }
    done(reply);
  });
}

void JobService::stepEvent(const v1::StepEventRequest& event, Done done) {
  drover::log::get("ctld")->info("job {} step {} on {}: kind {} exit {}:{}", event.step().job_id(),
                                 event.step().step_id(), event.node(), static_cast<int>(event.kind()),
                                 event.exit_code(), event.exit_signal());
  // A supervisor left over from an earlier run of a requeued job must not end the new run:
  // its report names its run (a late FINISHED of the run before a requeue, arriving after the
  // next run started, would otherwise end that one with the old run's result).
  const jobs::Job* job = manager_->find(event.step().job_id());
  if (manager_->ofOtherRun(event.step())) {
    drover::log::get("ctld")->warn(
        "job {}: ignoring a report of step {} from {} for run {}: the job runs run {}",
        event.step().job_id(), event.step().step_id(), event.node(),
        event.step().restart_count(), job->info.restart_count());
    done(okStatus());   // acknowledged, so the old supervisor stops retrying it
    return;
  }
  // Reports that name no run (a supervisor older than the run number) fall back on the node.
  if (job != nullptr && !event.node().empty() && event.step().step_id() == acct::kBatchStep &&
      jobs::holdsResources(job->state())) {
    const std::string& batch_host = job->info.batch_host();
    if (!batch_host.empty() && batch_host != event.node()) {
      drover::log::get("ctld")->warn("job {}: ignoring a batch step report from {} (runs on {})",
                                     event.step().job_id(), event.node(), batch_host);
      done(okStatus());
      return;
    }
  }
  manager_->stepEvent(event);
  afterCommit(std::move(done));
}

namespace {

// Each association's id (config::AssociationNode::id), by account and user.
AssociationIds associationIds(const config::ClusterConfig& config) {
  AssociationIds ids;
  for (const auto& node : config::associationTree(config)) ids.emplace(std::make_pair(node.account, node.user), node.id);
  return ids;
}

// Runs `query` against a reader of its own on the accounting store, on `pool` (a read of months
// of records must never hold up the state thread), and answers on `io`.
template <typename Reply, typename Query>
void readAccounting(boost::asio::thread_pool& pool, boost::asio::io_context& io, std::string path,
                    Query query, std::function<void(Result<Reply>)> done) {
  boost::asio::post(pool, [&io, path = std::move(path), query = std::move(query),
                           done = std::move(done)]() mutable {
    Result<Reply> result = makeError("accounting store unavailable");
    auto reader = acct::SqliteAccountingStore::open(path);
    if (!reader) {
      result = makeError("accounting store " + path + ": " + reader.error());
    } else {
      result = query(**reader);
    }
    boost::asio::post(io, [done = std::move(done), result = std::move(result)]() mutable {
      done(std::move(result));
    });
  });
}

}  // namespace

void JobService::queryAccounting(const rpc::Caller& caller, v1::QueryAccountingRequest request,
                                 std::function<void(Result<v1::QueryAccountingReply>)> done) {
  readAccounting<v1::QueryAccountingReply>(
      *pool_, io_, accounting_path_,
      [caller, request = std::move(request), cluster = state_.config().cluster_name,
       assoc_ids = associationIds(state_.config())](acct::SqliteAccountingStore& store) {
        return ctld::queryAccounting(store, caller, request, cluster, assoc_ids);
      },
      std::move(done));
}

void JobService::queryUsage(const rpc::Caller& caller, const v1::QueryUsageRequest& request,
                            std::function<void(Result<v1::QueryUsageReply>)> done) {
  readAccounting<v1::QueryUsageReply>(
      *pool_, io_, accounting_path_,
      [caller, request, cluster = state_.config().cluster_name](acct::SqliteAccountingStore& store) {
        return ctld::queryUsage(store, caller, request, cluster,
                                static_cast<std::int64_t>(std::time(nullptr)));
      },
      std::move(done));
}

void JobService::queryEvents(const v1::QueryEventsRequest& request,
                             std::function<void(Result<v1::QueryEventsReply>)> done) {
  readAccounting<v1::QueryEventsReply>(
      *pool_, io_, accounting_path_,
      [request, cluster = state_.config().cluster_name](acct::SqliteAccountingStore& store) {
        return ctld::queryEvents(store, request, cluster, static_cast<std::int64_t>(std::time(nullptr)));
      },
      std::move(done));
}

void JobService::nodeChanged(const StateChange& change) {
  if (const NodeRecord* n = state_.registry().find(change.node)) {
    const std::size_t before = pending_events_.size();
    // Only a drain asks whether jobs run there (usage() scans the job table).
    const bool draining = n->drain && n->base != BaseState::kDown;
    observeNode(*n, draining ? usage() : std::map<std::string, NodeUsage>{});
    if (pending_events_.size() != before) afterCommit({});
  }
  if (change.to.rfind("DOWN", 0) == 0 && change.from.rfind("DOWN", 0) != 0) {
    manager_->nodeFailed(change.node);
    afterCommit({});
  }
  requestPass();
}

void JobService::killStrays(const std::string& node, const std::vector<v1::StepId>& running,
                            bool named_runs_only) {
  // Steps the agent runs that this controller does not hold there (a job that ended, was
  // cancelled or requeued elsewhere while the node was away, or a run before the job's
  // current one) are killed. The kill names the step's own run, so it cannot reach a newer
  // run that the agent starts meanwhile.
  std::vector<jobs::SignalAction> strays;
  for (const auto& step : running) {
    if (named_runs_only && !step.has_restart_count()) continue;
    const jobs::Job* job = manager_->find(step.job_id());
    if (job != nullptr && jobs::holdsResources(job->state()) && !manager_->ofOtherRun(step) &&
        std::any_of(job->info.allocation().begin(), job->info.allocation().end(),
                    [&node](const auto& a) { return a.node() == node; })) {
      continue;
    }
    jobs::SignalAction kill;
    kill.job_id = step.job_id();
    kill.nodes = {node};
    *kill.request.mutable_step() = step;
    kill.request.set_signal(SIGKILL);
    kill.request.set_kill(true);
    strays.push_back(std::move(kill));
  }
  if (strays.empty()) return;
  drover::log::get("ctld")->warn("node {} runs {} step(s) of jobs not running there: killing",
                                 node, strays.size());
  sendSignalActions(std::move(strays));
}

void JobService::heartbeat(const std::string& node, const std::vector<v1::StepId>& running) {
  // A run nobody holds any more keeps running until killed: an old run whose launch reached
  // its node only after the job was requeued elsewhere, a step whose end this controller
  // recorded without it (its kill lost while the agent was away). Every heartbeat lists the
  // node's steps, so such a step is killed within a heartbeat, as Slurm kills the orphan
  // steps a node reports. Only steps that name their run: a step from an agent older than the
  // run number could be a newer run the kill would reach (registration handles those).
  killStrays(node, running, /*named_runs_only=*/true);
}

void JobService::reconcile(const std::string& node, const std::vector<v1::StepId>& running) {
  // A step of an earlier run of a job (its supervisor outlived a requeue) is not the job's:
  // the run the controller holds as current is not there.
  std::set<jobs::JobId> listed;
  for (const auto& step : running) {
    if (!manager_->ofOtherRun(step)) listed.insert(step.job_id());
  }
  v1::GetJobsRequest on_node;
  on_node.set_nodes(node);
  const bool first = registered_.insert(node).second;
  const std::int64_t settled =
      first ? std::numeric_limits<std::int64_t>::max() : clock_.now() - kLaunchGraceS;
  std::vector<jobs::JobId> lost;
  std::size_t held = 0;
  for (const auto& job : manager_->query(on_node)) {
    // An interactive allocation has no batch step on any node.
    // COMPLETING: cancelled or requeued, its step not yet reported (jobs::killedInto).
    if ((job.state() != v1::JOB_RUNNING && job.state() != v1::JOB_COMPLETING) ||
        job.allocation_size() == 0 || !job.batch() ||
        job.allocation(0).node() != node) {
      continue;
    }
    ++held;
    if (job.start_time() > settled || listed.count(job.job_id()) != 0 ||
        launches_in_flight_.count(job.job_id()) != 0) {
      continue;
    }
    lost.push_back(job.job_id());
  }
  killStrays(node, running, /*named_runs_only=*/false);
  if (lost.empty()) return;
  auto log = drover::log::get("ctld");
  if (lost.size() == held) {
    log->warn("node {} re-registered without any of its {} running jobs: node failure", node,
              held);
    manager_->nodeFailed(node);
  } else {
    for (jobs::JobId id : lost) {
      log->warn("job {}: node {} re-registered without its batch step", id, node);
      manager_->jobLost(id, "batch step vanished from node " + node, node);
    }
  }
  afterCommit({});
}

std::map<std::string, NodeUsage> JobService::usage() const {
  v1::GetJobsRequest all;
  return usageOf(manager_->query(all));
}

}  // namespace drover::ctld
