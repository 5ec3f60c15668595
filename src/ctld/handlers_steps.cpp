// The srun/salloc RPCs: CreateStep, AwaitAllocation, CompleteAllocation, scontrol's NotifyJob
// and ListPids, and sstat's GetStepStats (NOT_FOUND for an unknown job, FAILED_PRECONDITION when the job or the named
// step does not run: ctld/step_stats.h). Errors carry Slurm's
// text; the status code tells a client what it may do about it: NOT_FOUND (no such job),
// PERMISSION_DENIED (not the caller's job), UNAVAILABLE (the step's CPUs/GPUs are held by other
// exclusive steps: retry later, as srun's "Step creation temporarily disabled"), and
// INVALID_ARGUMENT for everything else (finished job, layout that can never fit).
#include <string>

#include "ctld/handlers.h"
#include "common/slurm_errors.h"
#include "ctld/step_stats.h"
#include "jobs/step_layout.h"

namespace drover::ctld {
namespace {

int codeFor(const std::string& message) {
  if (message == kInvalidJobId) return kNotFound;
  if (message == "Access/permission denied") return kPermissionDenied;
  if (message == jobs::kStepNodesBusy) return kUnavailable;
  return kInvalidArgument;
}

template <typename Reply>
void answer(const wire::Reply_<Reply>& done, const Result<Reply>& r) {
  if (!r) {
    done(wire::Outcome{codeFor(r.error()), r.error()}, Reply{});
    return;
  }
  done(wire::Outcome::ok(), *r);
}

template <typename Reply>
bool noJobs(JobService* jobs, const wire::Reply_<Reply>& done) {
  if (jobs != nullptr) return false;
  done(wire::Outcome{kInternal, "this controller runs without a job table"}, Reply{});
  return true;
}

}  // namespace

void addStepHandlers(ControllerHandlers& h, JobService* jobs) {
  h.get_step_stats = [jobs](const rpc::Caller& caller, const v1::GetStepStatsRequest& req,
                            wire::Reply_<v1::GetStepStatsReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->stepStats(caller, req, [done, id = req.job_id()](Result<v1::GetStepStatsReply> r) {
      if (!r) {
        done(wire::Outcome{r.error() == unknownJobText(id) ? kNotFound : kFailedPrecondition,
                           r.error()},
             v1::GetStepStatsReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  h.list_pids = [jobs](const rpc::Caller&, const v1::ListPidsRequest& req,
                       wire::Reply_<v1::ListPidsReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->listPids(req, [done](Result<v1::ListPidsReply> r) { answer(done, r); });
  };
  h.notify_job = [jobs](const rpc::Caller& caller, const v1::NotifyJobRequest& req,
                        wire::Reply_<v1::NotifyJobReply> done) {
    if (noJobs(jobs, done)) return;
    const Status s = jobs->notify(caller, req);
    if (!s) {
      done(wire::Outcome{codeFor(s.error()), s.error()}, v1::NotifyJobReply{});
      return;
    }
    done(wire::Outcome::ok(), v1::NotifyJobReply{});
  };
  h.broadcast_file = [jobs](const rpc::Caller& caller, const v1::BroadcastFileRequest& req,
                            wire::Reply_<v1::BroadcastFileReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->broadcastFile(caller, req, [done](Result<v1::BroadcastFileReply> r) {
      if (!r) {
        const int code = codeFor(r.error());
        done(wire::Outcome{code == kInvalidArgument ? kFailedPrecondition : code, r.error()},
             v1::BroadcastFileReply{});
        return;
      }
      done(wire::Outcome::ok(), *r);
    });
  };
  h.create_step = [jobs](const rpc::Caller& caller, const v1::CreateStepRequest& req,
                         wire::Reply_<v1::CreateStepReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->createStep(caller, req, [done](Result<v1::CreateStepReply> r) { answer(done, r); });
  };
  h.await_allocation = [jobs](const rpc::Caller& caller, const v1::AwaitAllocationRequest& req,
                              wire::Reply_<v1::AwaitAllocationReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->awaitAllocation(caller, req,
                          [done](Result<v1::AwaitAllocationReply> r) { answer(done, r); });
  };
  h.complete_allocation = [jobs](const rpc::Caller& caller,
                                 const v1::CompleteAllocationRequest& req,
                                 wire::Reply_<v1::CompleteAllocationReply> done) {
    if (noJobs(jobs, done)) return;
    jobs->completeAllocation(caller, req, [done](Status s) {
      if (!s) {
        done(wire::Outcome{codeFor(s.error()), s.error()}, v1::CompleteAllocationReply{});
        return;
      }
      done(wire::Outcome::ok(), v1::CompleteAllocationReply{});
    });
  };
}

}  // namespace drover::ctld
