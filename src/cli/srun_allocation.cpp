#include "cli/srun_allocation.h"
#include "common/slurm_errors.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/srun_step.h"

namespace drover::cli {

ParsedLaunch parseLaunch(jobspec::Tool tool, int argc, char** argv, std::string_view help,
                         std::string_view usage) {
  const char* prog = tool == jobspec::Tool::Srun ? "srun" : "salloc";
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  auto env = processEnvironment();
  {
    auto cl = jobspec::parseCommandLine(tool, args, now);
    if (!cl) {
      std::cerr << cl.error().text << "\n";
      return {std::nullopt, cl.error().exit_code};
    }
    if (printedInfo(*cl, help, usage)) return {std::nullopt, 0};
  }
  auto request = tool == jobspec::Tool::Srun ? jobspec::buildStepRequest(args, env, now)
                                             : jobspec::buildAllocRequest(args, env, now);
  if (!request) {
    std::cerr << request.error().text << "\n";
    return {std::nullopt, request.error().exit_code};
  }
  // srun fits nodes to tasks later, once it knows whether it runs inside an allocation.
  if (tool == jobspec::Tool::Salloc) {
    if (auto warning = jobspec::fitNodesToTasks(tool, request->spec)) std::cerr << *warning;
  }
  LaunchInput in{std::move(*request), {}};
  in.context.environment = std::move(env);
  in.context.cwd = workingDirectory();
  in.context.host = hostName();
  in.context.pid = static_cast<int>(::getpid());
  in.context.submit_line = submitLine(prog, args);
  return {std::move(in), 0};
}
namespace {

using Clock = std::chrono::steady_clock;

bool finalState(v1::JobState state) {
  return state != v1::JOB_PENDING && state != v1::JOB_RUNNING && state != v1::JOB_SUSPENDED &&
         state != v1::JOB_REQUEUED;
}

}  // namespace

void cancelQuietly(ControllerClient& client, const std::string& id, int signal) {
  v1::CancelJobsRequest cancel;
  cancel.add_job_ids(id);
  cancel.set_signal(signal);
  (void)client.cancelJobs(cancel);
}

void releaseAllocation(ControllerClient& client, std::string_view prog, std::uint64_t job_id,
                       int exit_code, int exit_signal) {
  v1::CompleteAllocationRequest done;
  done.set_job_id(job_id);
  done.set_exit_code(exit_code);
  done.set_exit_signal(exit_signal);
  // An allocation already ended (scancel of the job, its time limit) has nothing to release:
  // the reference's srun said nothing then.
  if (auto r = client.completeAllocation(done);
      !r.ok() && r.error() != kAlreadyDone) {
    printError(prog, "Unable to release job allocation " + std::to_string(job_id) + ": " + r.error());
  }
}

AllocationResult acquireAllocation(ControllerClient& client, const AllocationRequest& request,
                                   SignalWatch& signals) {
  const std::string& prog = request.prog;
  const bool salloc = prog == "salloc";
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = request.spec;
  auto submitted = client.submitJob(submit);
  if (!submitted.ok()) {
    const auto kind = client.lastFailure();
    if (kind == FailureKind::kInvalid || kind == FailureKind::kNotFound || kind == FailureKind::kOther) {
      std::cerr << formatAllocFailure(prog, submitted.error());
    } else {
      printError(prog, submitted.error());
    }
    return {};
  }
  for (const auto& w : submitted->warnings()) std::cerr << prog << ": " << w << "\n";
  const std::uint64_t job_id = submitted->job_id();
  const std::string id = std::to_string(job_id);
  const Clock::time_point submitted_at = Clock::now();

  std::optional<Clock::time_point> give_up;
  // A bare -I asks for no wait at all: the reference refused at once, saying nothing else.
  const bool at_once = request.immediate_seconds == 0u;
  if (request.immediate_seconds) {
    give_up = Clock::now() + std::chrono::seconds(std::max<std::uint32_t>(1, *request.immediate_seconds));
  }
  bool waited = false;
  // The first wait is short, so "queued" is printed only for a job that does not start at once.
  std::uint32_t wait_ms = 300;
  for (;;) {
    if (auto sig = signals.take(); sig && (*sig == SIGINT || *sig == SIGTERM || *sig == SIGHUP || *sig == SIGQUIT)) {
      cancelQuietly(client, id);
      // The reference's lines (2026-12-04): salloc's with a full stop and then why it ended,
      // srun's without one and then its forced end.
      if (salloc) {
        std::cerr << "salloc: Job allocation " << id << " has been revoked.\n"
                  << "salloc: Job aborted due to signal\n";
      } else {
        std::cerr << "srun: Job allocation " << id << " has been revoked\n"
                  << "srun: Force Terminated JobId=" << id << "\n";
      }
      return {};
    }
    v1::AwaitAllocationRequest await;
    await.set_job_id(job_id);
    await.set_timeout_ms(wait_ms);
    auto reply = client.awaitAllocation(await);
    if (!reply.ok()) {
      if (client.lastFailure() == FailureKind::kUnreachable) continue;  // controller restarting
      printError(prog, reply.error());
      cancelQuietly(client, id);
      return {};
    }
    printNotices(prog, *reply);
    const v1::JobInfo& job = reply->job();
    if (job.state() == v1::JOB_RUNNING) {
      if (waited && !request.quiet) std::cerr << prog << ": job " << id << " has been allocated resources\n";
      if (salloc && !request.quiet) std::cerr << "salloc: Granted job allocation " << id << "\n";
      return {Allocation{job, submitted->cluster_name(), Clock::now() - submitted_at}, 0};
    }
    if (finalState(job.state())) {
      // Ended before it started (scancel, --deadline): the reference's lines for both.
      if (salloc) std::cerr << "salloc: Job allocation " << id << " has been revoked.\n";
      std::cerr << prog << ": Job has been cancelled\n";
      std::cerr << formatAllocFailure(prog, kAlreadyDone);
      return {};
    }
    // Said once the job is known to wait, before any -I deadline (a loaded machine may pass
    // that deadline within the first short wait; the notice still comes first, as Slurm's).
    if (!waited) {
      waited = true;
      if (!request.quiet && !at_once) {
        if (salloc) std::cerr << "salloc: Pending job allocation " << id << "\n";
        std::cerr << prog << ": job " << id << " queued and waiting for resources\n";
      }
      wait_ms = 1000;
    }
    if (give_up && Clock::now() >= *give_up) {
      cancelQuietly(client, id);
      // As the reference's: a bare -I is refused with the nodes busy (salloc then revokes the
      // allocation); -I N runs out of time (salloc) or finds the nodes busy (srun).
      const std::string revoked = "salloc: Job allocation " + id + " has been revoked.\n";
      const std::string failed = prog + ": error: Unable to allocate resources: ";
      if (salloc && at_once) {
        std::cerr << failed << "Requested nodes are busy\n" << revoked;
      } else if (salloc) {
        std::cerr << revoked << failed << "Connection timed out\n";
      } else {
        std::cerr << failed << "Requested nodes are busy\n";
      }
      return {};
    }
  }
}

void printNotices(std::string_view prog, const v1::AwaitAllocationReply& reply) {
  for (const auto& m : reply.messages()) std::cerr << prog << ": " << m << "\n";
}

std::optional<v1::JobState> pollAllocation(ControllerClient& client, std::string_view prog,
                                           std::uint64_t job_id, int timeout_ms) {
  v1::AwaitAllocationRequest ask;
  ask.set_job_id(job_id);
  ask.set_timeout_ms(0);
  auto reply = client.awaitAllocation(ask, timeout_ms);
  if (!reply.ok()) return std::nullopt;
  printNotices(prog, *reply);
  return reply->job().state();
}

bool allocationStillRuns(ControllerClient& client, std::string_view prog, std::uint64_t job_id) {
  const auto state = pollAllocation(client, prog, job_id);
  if (!state) return client.lastFailure() != FailureKind::kNotFound;  // purged: gone
  return *state == v1::JOB_RUNNING || *state == v1::JOB_SUSPENDED;
}

}  // namespace drover::cli
