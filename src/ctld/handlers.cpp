#include "ctld/handlers.h"
#include "common/slurm_errors.h"


#include <google/protobuf/arena.h>

#include "ctld/reply_block.h"
#include "ctld/services.h"
#include "ctld/event_query.h"
#include "ctld/usage_query.h"
#include "ctld/request_names.h"
#include "common/debug_level.h"
#include "common/log.h"

namespace drover::ctld {
namespace {

wire::Outcome fail(int code, std::string message) { return wire::Outcome{code, std::move(message)}; }

wire::Outcome deniedOutcome(const CtldState& state, const rpc::Caller& caller, const char* what) {
  return fail(kPermissionDenied, std::string(what) + " is for root and operators only; user " +
                                     state.names().userName(caller.uid) + " (uid " +
                                     std::to_string(caller.uid) + ") is neither");
}

wire::Outcome outcomeOf(const Status& s, int code) {
  return s ? wire::Outcome::ok() : fail(code, s.error());
}

template <typename Reply>
bool noJobs(JobService* jobs, const wire::Reply_<Reply>& done) {
  if (jobs != nullptr) return false;
  done(fail(kInternal, "this controller runs without a job table"), Reply{});
  return true;
}

}  // namespace

ControllerHandlers makeControllerHandlers(CtldState& state, JobService* jobs) {
  ControllerHandlers h;
  h.ping = [&state](const rpc::Caller& caller, const v1::PingRequest&,
                    wire::Reply_<v1::PingReply> done) {
    v1::PingReply rep;
    rep.set_cluster_name(state.config().cluster_name);
    rep.set_controller_host(state.config().controller.host);
    rep.set_start_time(state.startTime());
    rep.set_caller_uid(caller.uid);
    rep.set_caller_gid(caller.gid);
    rep.set_debug_level(std::string(debugLevelName(state.debugLevel())));
    done(wire::Outcome::ok(), rep);
  };
  h.get_nodes = [&state](const rpc::Caller&, const v1::GetNodesRequest& req,
                         wire::Reply_<v1::GetNodesReply> done) {
    v1::GetNodesReply rep;
    auto s = state.fillNodes({req.names().begin(), req.names().end()}, &rep);
    done(outcomeOf(s, kNotFound), rep);
  };
  h.get_partitions = [&state](const rpc::Caller&, const v1::GetPartitionsRequest& req,
                              wire::Reply_<v1::GetPartitionsReply> done) {
    v1::GetPartitionsReply rep;
    auto s = state.fillPartitions({req.names().begin(), req.names().end()}, &rep);
    done(outcomeOf(s, kNotFound), rep);
  };
  h.update_node = [&state](const rpc::Caller& caller, const v1::UpdateNodeRequest& req,
                           wire::Reply_<v1::UpdateNodeReply> done) {
    v1::UpdateNodeReply rep;
    if (!state.isOperator(caller.uid)) {
      done(deniedOutcome(state, caller, "UpdateNode"), rep);
      return;
    }
    auto s = state.updateNode(req.nodes(), req.state(), req.reason(), state.names().userName(caller.uid));
    done(outcomeOf(s, kInvalidArgument), rep);
  };
  h.update_partition = [&state, jobs](const rpc::Caller& caller,
                                      const v1::UpdatePartitionRequest& req,
                                      wire::Reply_<v1::UpdatePartitionReply> done) {
    v1::UpdatePartitionReply rep;
    if (!state.isOperator(caller.uid)) {
      done(deniedOutcome(state, caller, "UpdatePartition"), rep);
      return;
    }
    // A partition a job still names stays, as the reference refused to delete it.
    if (req.action() == v1::UpdatePartitionRequest::DELETE && jobs != nullptr &&
        state.config().findPartition(req.name()) != nullptr) {
      v1::GetJobsRequest naming;
      naming.add_partitions(req.name());
      if (!jobs->query(naming).empty()) {
        done(fail(kInvalidArgument, "Partition is in use"), rep);
        return;
      }
    }
    auto s = state.updatePartition(req, state.names().userName(caller.uid));
    if (s && jobs != nullptr) jobs->configChanged();
    done(outcomeOf(s, kInvalidArgument), rep);
  };
  h.reconfigure = [&state, jobs](const rpc::Caller& caller, const v1::ReconfigureRequest&,
                                 wire::Reply_<v1::ReconfigureReply> done) {
    v1::ReconfigureReply rep;
    if (!state.isOperator(caller.uid)) {
      done(deniedOutcome(state, caller, "Reconfigure"), rep);
      return;
    }
    auto r = state.reconfigure("");
    if (!r) {
      done(fail(kInvalidArgument, r.error()), rep);
      return;
    }
    if (jobs != nullptr) jobs->configChanged();
    rep.set_summary(*r);
    done(wire::Outcome::ok(), rep);
  };
  h.set_debug_level = [&state](const rpc::Caller& caller, const v1::SetDebugLevelRequest& req,
                                wire::Reply_<v1::SetDebugLevelReply> done) {
    if (!state.isOperator(caller.uid)) {
      done(deniedOutcome(state, caller, "SetDebugLevel"), v1::SetDebugLevelReply{});
      return;
    }
    if (req.level() == -1) {
      state.resetDebugLevel();
      log::get("ctld")->info("debug level set back to {} by {}", debugLevelName(state.debugLevel()),
                             state.names().userName(caller.uid));
      done(wire::Outcome::ok(), v1::SetDebugLevelReply{});
      return;
    }
    if (req.level() < 0 || req.level() > 9) {
      done(fail(kInvalidArgument, "invalid debug level: " + std::to_string(req.level())),
           v1::SetDebugLevelReply{});
      return;
    }
    // Said before it takes effect, so that `setdebug quiet` is in the log too.
    log::get("ctld")->info("debug level set to {} by {}", debugLevelName(req.level()),
                           state.names().userName(caller.uid));
    state.setDebugLevel(req.level());
    done(wire::Outcome::ok(), v1::SetDebugLevelReply{});
  };
  h.submit_job = [jobs](const rpc::Caller& caller, const v1::SubmitJobRequest& req,
                        wire::Reply_<v1::SubmitJobReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->submit(caller, req.spec(), [done](Result<v1::SubmitJobReply> r) {
      if (!r) {
        done(fail(kInvalidArgument, r.error()), v1::SubmitJobReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  h.get_jobs = [&state, jobs](const rpc::Caller&, const v1::GetJobsRequest& req,
                              wire::Reply_<v1::GetJobsReply> done) {
    if (noJobs(jobs, done)) return;
    // Rows are built in place on an arena: no allocation, move or destructor per row and
    // string, which were half of the controller's time for squeue over thousands of jobs.
    // Its first block is kept from one request to the next (ReplyBlock), so a long queue's
    // megabytes are not faulted in afresh on every squeue.
    static ReplyBlock block;
    google::protobuf::ArenaOptions options;
    options.start_block_size = 64 << 10;
    options.max_block_size = 4 << 20;
    options.initial_block = block.data();
    options.initial_block_size = block.size();
    std::size_t used = 0;
    {
      google::protobuf::Arena arena(options);
      auto* rep = google::protobuf::Arena::CreateMessage<v1::GetJobsReply>(&arena);
      rep->set_time(state.now());
      addUnknownUsers(req.users(), state.names(), rep->mutable_unknown_users());
      jobs->query(req, rep->mutable_jobs());
      done(wire::Outcome::ok(), *rep);
      used = arena.SpaceAllocated();
    }
    block.fit(used);
  };
  h.cancel_jobs = [&state, jobs](const rpc::Caller& caller, const v1::CancelJobsRequest& req,
                         wire::Reply_<v1::CancelJobsReply> done) {
    if (noJobs(jobs, done)) return;
    // scancel -u NAME of a user nobody is: the reference's scancel refused it ("Invalid user
    // name: X", exit 1). Looked up here, not in scancel: a static binary cannot use NSS.
    if (const std::string& u = req.user(); !u.empty() && !idInText(u) && !state.names().userNamed(u)) {
      done(fail(kInvalidArgument, "Invalid user name: " + u), v1::CancelJobsReply{});
      return;
    }
    jobs->cancel(caller, req, [done](v1::CancelJobsReply rep) { done(wire::Outcome::ok(), rep); });
  };
  h.job_control = [jobs](const rpc::Caller& caller, const v1::JobControlRequest& req,
                         wire::Reply_<v1::JobControlReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->control(caller, req, [done](v1::JobControlReply rep) { done(wire::Outcome::ok(), rep); });
  };
  h.update_job = [jobs](const rpc::Caller& caller, const v1::UpdateJobRequest& req,
                        wire::Reply_<v1::UpdateJobReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->update(caller, req, [done](Result<v1::UpdateJobReply> r) {
      if (!r) {
        done(fail(kInvalidArgument, r.error()), v1::UpdateJobReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  h.get_job_script = [jobs](const rpc::Caller& caller, const v1::GetJobScriptRequest& req,
                            wire::Reply_<v1::GetJobScriptReply> done) {
    if (noJobs(jobs, done)) return;
    auto r = jobs->jobScript(caller, req);
    if (!r) {
      const std::string& why = r.error();
      // Not kPermissionDenied for another user's job: the client would prefix Slurm's text.
      const int code = why == kInvalidJobId ? kNotFound
                       : why == "Invalid user id" || why == "Job script not specified"
                           ? kFailedPrecondition
                           : kInternal;
      done(fail(code, why), v1::GetJobScriptReply{});
      return;
    }
    done(wire::Outcome::ok(), *r);
  };
  h.query_accounting = [&state, jobs](const rpc::Caller& caller, const v1::QueryAccountingRequest& req,
                              wire::Reply_<v1::QueryAccountingReply> done) {
    if (noJobs(jobs, done)) return;
    auto resolved = resolveAccountingNames(req, state.names());
    if (!resolved) {
      done(fail(kInvalidArgument, resolved.error()), v1::QueryAccountingReply{});
      return;
    }
    jobs->queryAccounting(caller, std::move(*resolved), [done](Result<v1::QueryAccountingReply> r) {
      if (!r) {
        done(fail(kInternal, r.error()), v1::QueryAccountingReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  h.query_usage = [jobs](const rpc::Caller& caller, const v1::QueryUsageRequest& req,
                         wire::Reply_<v1::QueryUsageReply> done) {
    if (noJobs(jobs, done)) return;
    if (auto why = usageRequestError(req); !why.empty()) {
      done(fail(kInvalidArgument, why), v1::QueryUsageReply{});
      return;
    }
    jobs->queryUsage(caller, req, [done](Result<v1::QueryUsageReply> r) {
      if (!r) {
        done(fail(kInternal, r.error()), v1::QueryUsageReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  h.query_events = [jobs](const rpc::Caller&, const v1::QueryEventsRequest& req,
                          wire::Reply_<v1::QueryEventsReply> done) {
    if (noJobs(jobs, done)) return;
    if (auto why = eventsRequestError(req); !why.empty()) {
      done(fail(kInvalidArgument, why), v1::QueryEventsReply{});
      return;
    }
    jobs->queryEvents(req, [done](Result<v1::QueryEventsReply> r) {
      if (!r) {
        done(fail(kInternal, r.error()), v1::QueryEventsReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  addStepHandlers(h, jobs);  // handlers_steps.cpp
  addPriorityHandlers(h, state, jobs);  // handlers_priority.cpp
  addStatisticsHandler(h, state, jobs);  // handlers_diag.cpp
  return h;
}

}  // namespace drover::ctld
