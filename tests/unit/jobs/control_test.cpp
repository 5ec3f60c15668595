// scancel and scontrol's job commands with the owner/admin rules and Slurm's error texts
// (goldens 020/021 invalid id, 066 permission denied, 103 already done).
#include <csignal>
#include <map>

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

v1::CancelJobsRequest cancelIds(std::vector<std::string> ids) {
  v1::CancelJobsRequest r;
  for (auto& id : ids) r.add_job_ids(id);
  return r;
}

TEST_F(JobsTest, CancelRulesAndTexts) {
  JobId pending = submit(SpecBuilder().hold());
  JobId running = submit(SpecBuilder());
  pass();
  ASSERT_EQ(job(running).state(), v1::JOB_RUNNING);
  std::string p = std::to_string(pending), r = std::to_string(running);

  struct Case {
    std::string name;
    Caller who;
    std::string id;
    bool ok;
    std::string error;
  };
  std::vector<Case> cases = {
      {"020 nonexistent", alice(), "999999", false, "Invalid job id specified"},
      {"garbage id", alice(), "12abc", false, "Invalid job id specified"},
      {"066 other user", bob(), p, false, "Access/permission denied"},
      {"owner cancels pending", alice(), p, true, ""},
      {"103 already done", alice(), p, false, "Job/step already completing or completed"},
      {"root cancels running", root(), r, true, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto results = manager_->cancel(c.who, cancelIds({c.id}));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].job_id(), c.id);
    EXPECT_EQ(results[0].ok(), c.ok);
    EXPECT_EQ(results[0].error(), c.error);
  }
  EXPECT_EQ(job(pending).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(pending).cancelled_by(), "1001");
  // A running job is killed first and is CANCELLED when its step ends.
  EXPECT_EQ(job(running).state(), v1::JOB_RUNNING);
  auto kills = manager_->takeSignals();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].job_id, running);
  EXPECT_TRUE(kills[0].request.kill());
  EXPECT_EQ(kills[0].nodes, std::vector<std::string>{job(running).batch_host()});
  finishBatch(running, 0, SIGTERM);
  EXPECT_EQ(job(running).state(), v1::JOB_CANCELLED);
  // scontrol shows the batch step's end (the reference: ExitCode=0:15); sacct's job row keeps
  // 0:0 (golden 115; job_table.cpp's record).
  EXPECT_EQ(job(running).exit_signal(), 15u);
  EXPECT_EQ(job(running).cancelled_by(), "0");
}

// scancel -i's dry run: what the call would act on, each with its name and partition (steps by
// their job), the refusals the call would give, and nothing changed.
TEST_F(JobsTest, CancelDryRunNamesTheJobsAndChangesNothing) {
  const JobId held = submit(SpecBuilder().name("one").hold());
  const JobId running = submit(SpecBuilder().name("two"));
  pass();
  ASSERT_EQ(job(running).state(), v1::JOB_RUNNING);
  v1::CancelJobsRequest ask = cancelIds({std::to_string(held), std::to_string(running) + ".0",
                                         "999999"});
  ask.set_dry_run(true);
  auto would = manager_->cancel(alice(), ask);
  ASSERT_EQ(would.size(), 3u);
  EXPECT_TRUE(would[0].ok());
  EXPECT_EQ(would[0].name(), "one");
  EXPECT_EQ(would[0].partition(), "gpu");
  EXPECT_TRUE(would[1].ok());
  EXPECT_EQ(would[1].job_id(), std::to_string(running) + ".0");
  EXPECT_EQ(would[1].name(), "two");
  EXPECT_EQ(would[2].error(), "Invalid job id specified");
  EXPECT_EQ(manager_->cancel(bob(), ask)[0].error(), "Access/permission denied");
  v1::CancelJobsRequest by_user;
  by_user.set_user("alice");
  by_user.set_dry_run(true);
  EXPECT_EQ(manager_->cancel(alice(), by_user).size(), 2u);
  EXPECT_EQ(job(held).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(running).state(), v1::JOB_RUNNING);
  EXPECT_TRUE(manager_->takeSignals().empty());
}

TEST_F(JobsTest, CancelArrayFormsAndFilters) {
  JobId arr = submit(SpecBuilder().name("arr").array("0-5").hold());
  std::string a = std::to_string(arr);
  auto one = manager_->cancel(alice(), cancelIds({a + "_4"}));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].ok());
  EXPECT_EQ(task(arr, 4).state(), v1::JOB_CANCELLED);
  auto range = manager_->cancel(alice(), cancelIds({a + "_[1-2]"}));
  ASSERT_EQ(range.size(), 2u);
  EXPECT_EQ(range[0].job_id(), a + "_1");
  EXPECT_EQ(task(arr, 1).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(task(arr, 3).state(), v1::JOB_PENDING);
  EXPECT_FALSE(manager_->cancel(alice(), cancelIds({a + "_77"}))[0].ok());

  JobId other = submit(SpecBuilder().name("keep"));
  v1::CancelJobsRequest by_name;
  by_name.set_name("arr");
  auto named = manager_->cancel(alice(), by_name);
  EXPECT_EQ(named.size(), 3u);  // tasks 0, 3, 5 still live
  EXPECT_EQ(task(arr, 5).state(), v1::JOB_CANCELLED);
  EXPECT_EQ(job(other).state(), v1::JOB_PENDING);

  v1::CancelJobsRequest bobs;
  bobs.set_user("alice");
  auto denied = manager_->cancel(bob(), bobs);
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0].error(), "Access/permission denied");
}

TEST_F(JobsTest, SignalActionsForRunningJobs) {
  JobId id = submit(SpecBuilder().nodes(2));
  pass();
  v1::CancelJobsRequest r = cancelIds({std::to_string(id)});
  r.set_signal(SIGUSR1);
  r.set_batch_only(true);
  auto res = manager_->cancel(alice(), r);
  ASSERT_TRUE(res[0].ok());
  auto sigs = manager_->takeSignals();
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].request.signal(), SIGUSR1);
  EXPECT_TRUE(sigs[0].request.batch_shell_only());
  EXPECT_FALSE(sigs[0].request.kill());
  EXPECT_EQ(sigs[0].nodes.size(), 1u);
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  // --full: the batch step's every process (on its one node), --batch ignored.
  r.set_full(true);
  manager_->cancel(alice(), r);
  sigs = manager_->takeSignals();
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_FALSE(sigs[0].request.batch_shell_only());
  EXPECT_EQ(sigs[0].request.step().step_id(), acct::kBatchStep);
  // Neither: only numbered steps are signalled, and this job has none (scancel(1)).
  r.set_batch_only(false);
  r.set_full(false);
  ASSERT_TRUE(manager_->cancel(alice(), r)[0].ok());
  EXPECT_TRUE(manager_->takeSignals().empty());
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
}

// The reference's held job, cancelled: sacct Reason None (a hold is no wait the scheduler
// recorded) and Priority 0 (a held job's). Other waits are kept (the test above).
TEST_F(JobsTest, AHeldJobCancelledIsRecordedWithoutReasonOrPriority) {
  JobId id = submit(SpecBuilder().hold());
  manager_->takeAccounting();
  ASSERT_TRUE(manager_->cancel(alice(), cancelIds({std::to_string(id)}))[0].ok());
  ASSERT_TRUE(manager_->commit().ok());
  const auto batch = manager_->takeAccounting();
  const acct::JobRecord* rec = nullptr;
  for (const auto& r : batch.jobs)
    if (r.job_id == id) rec = &r;
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->state, acct::JobState::kCancelled);
  EXPECT_EQ(rec->reason, "");
  EXPECT_EQ(rec->priority, 0u);
  EXPECT_EQ(job(id).reason(), "JobHeldUser");  // scontrol's, as the reference's
}

// The reference took `sbatch -H --gres=gpu:9` (and --mem, -c) on 8-GPU nodes that it refused
// without -H; released, the job waited with BadConstraints.
TEST_F(JobsTest, AHeldJobNoNodeCanHoldIsTakenAndWaitsWithBadConstraints) {
  SubmitResult refused = manager_->submit(alice(), SpecBuilder().gres("gpu", 3).time(10));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.failure.message, "Requested node configuration is not available");
  const JobId gpus = submit(SpecBuilder().gres("gpu", 3).time(10).hold());
  const JobId mem = submit(SpecBuilder().mem(20000).time(10).hold());
  const JobId fits = submit(SpecBuilder().time(10).hold());
  for (JobId id : {gpus, mem, fits}) {
    EXPECT_EQ(job(id).reason(), "JobHeldUser");
    EXPECT_TRUE(manager_->control(alice(), act("release", std::to_string(id)))[0].ok());
  }
  pass();
  EXPECT_EQ(job(gpus).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(gpus).reason(), "BadConstraints");
  EXPECT_EQ(job(mem).reason(), "BadConstraints");
  EXPECT_EQ(job(fits).state(), v1::JOB_RUNNING);
  // Still so after a restart of the controller.
  reopen();
  pass();
  EXPECT_EQ(job(gpus).reason(), "BadConstraints");
  // Features and node counts are checked held or not, as the reference's.
  SubmitResult nodes = manager_->submit(alice(), SpecBuilder().nodes(5).time(10).hold());
  ASSERT_FALSE(nodes);
  EXPECT_EQ(nodes.failure.message, "Node count specification invalid");
}

TEST_F(JobsTest, HoldReleaseRules) {
  JobId id = submit(SpecBuilder());
  std::string s = std::to_string(id);
  EXPECT_TRUE(manager_->control(alice(), act("hold", s))[0].ok());
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  EXPECT_TRUE(manager_->control(alice(), act("release", s))[0].ok());
  EXPECT_EQ(job(id).reason(), "None");
  EXPECT_TRUE(manager_->control(root(), act("hold", s))[0].ok());
  EXPECT_EQ(job(id).reason(), "JobHeldAdmin");
  auto denied = manager_->control(alice(), act("release", s));
  EXPECT_EQ(denied[0].error(), "Access/permission denied");
  // Another user's job: Slurm's scontrol says "Invalid user id" (scancel: permission denied).
  EXPECT_EQ(manager_->control(bob(), act("uhold", s))[0].error(), "Invalid user id");
  // Requeue, suspend, resume and top of another user's job are refused outright, as the
  // reference's ("Access/permission denied"); top, not for users here, names the list as given.
  for (const char* action : {"requeue", "requeuehold", "suspend", "resume", "top"}) {
    EXPECT_EQ(manager_->control(bob(), act(action, s))[0].error(), "Access/permission denied")
        << action;
  }
  v1::JobControlRequest top = act("top", s);
  top.add_job_ids("999999");
  auto refused = manager_->control(alice(), top);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].job_id(), s + ",999999");
  EXPECT_TRUE(manager_->control(root(), act("release", s))[0].ok());
  pass();
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  // A running job takes a hold and keeps running (the reference: exit 0, Priority=0,
  // Reason=JobHeldUser); a requeue then leaves it pending and held; release frees it.
  EXPECT_TRUE(manager_->control(alice(), act("hold", s))[0].ok());
  EXPECT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_TRUE(job(id).held_user());
  EXPECT_TRUE(manager_->control(alice(), act("release", s))[0].ok());
  EXPECT_FALSE(job(id).held_user());
  EXPECT_TRUE(manager_->control(alice(), act("uhold", s))[0].ok());
  EXPECT_TRUE(manager_->control(alice(), act("requeue", s))[0].ok());
  ASSERT_EQ(manager_->takeSignals().size(), 1u);
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  EXPECT_EQ(manager_->control(alice(), act("bogus", s))[0].error(), "Invalid job control action");
  // A job that ended: the reference's "Job has already finished" for hold, uhold and release.
  EXPECT_TRUE(manager_->control(alice(), act("release", s))[0].ok());
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  finishBatch(id, 0);
  ASSERT_EQ(job(id).state(), v1::JOB_COMPLETED);
  for (const char* a : {"hold", "uhold", "release"})
    EXPECT_EQ(manager_->control(alice(), act(a, s))[0].error(), "Job has already finished") << a;
}

// Slurm's requeued job may start again only cred_expire + 1 s later (slurm.conf(5) AuthInfo):
// pending with reason BeginTime until then, whether the node failed or scontrol requeued it.
TEST_F(JobsTest, RequeuedJobWaitsTheRequeueWait) {
  config_.jobs.requeue_wait_s = 30;
  JobId lost = submit(SpecBuilder());
  JobId asked = submit(SpecBuilder());
  pass();
  ASSERT_EQ(job(lost).state(), v1::JOB_RUNNING);
  ASSERT_EQ(job(asked).state(), v1::JOB_RUNNING);
  const std::int64_t t0 = clock_.now();
  manager_->nodeFailed(job(lost).allocation(0).node());
  EXPECT_TRUE(manager_->control(alice(), act("requeue", std::to_string(asked)))[0].ok());
  finishBatch(asked, 0, SIGKILL);
  ASSERT_TRUE(manager_->commit().ok());
  for (JobId id : {lost, asked}) {
    EXPECT_EQ(job(id).state(), v1::JOB_PENDING) << id;
    EXPECT_EQ(job(id).reason(), "BeginTime") << id;
    EXPECT_EQ(job(id).spec().begin_time(), t0 + 31) << id;
    EXPECT_EQ(job(id).eligible_time(), 0) << id;
  }
  clock_.advanceSeconds(30);
  EXPECT_TRUE(pass().empty());
  clock_.advanceSeconds(1);
  EXPECT_EQ(pass().size(), 2u);
  EXPECT_EQ(job(lost).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(asked).state(), v1::JOB_RUNNING);
  // A --begin of the job's own that lies later stands.
  JobId later = submit(SpecBuilder().begin(t0 + 1000));
  clock_.advanceSeconds(1000 - 31);
  pass();
  ASSERT_EQ(job(later).state(), v1::JOB_RUNNING);
  EXPECT_TRUE(manager_->control(alice(), act("requeue", std::to_string(later)))[0].ok());
  finishBatch(later, 0, SIGKILL);
  EXPECT_EQ(job(later).spec().begin_time(), clock_.now() + 31);
}

// As the reference's requeue: the job is submitted anew (SubmitTime and the next run's sacct
// Submit are the requeue's), the run that ended keeps its start and end in its REQUEUED record,
// the pending run's Eligible is the end of its requeue wait; requeuehold describes the reason as
// "job requeued in held state" (accounting keeps JobHeldUser) until a hold or release.
TEST_F(JobsTest, RequeueSubmitsAnewAndDescribesTheHold) {
  config_.jobs.requeue_wait_s = 120;
  JobId id = submit(SpecBuilder());
  const std::string s = std::to_string(id);
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  const std::int64_t submitted = job(id).submit_time();
  const std::int64_t started = job(id).start_time();
  clock_.advanceSeconds(5);
  const std::int64_t requeued = clock_.now();
  manager_->takeAccounting();
  EXPECT_TRUE(manager_->control(alice(), act("requeuehold", s))[0].ok());
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).submit_time(), requeued);
  EXPECT_NE(job(id).submit_time(), submitted);
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  EXPECT_EQ(job(id).reason_description(), "job requeued in held state");
  auto batch = manager_->takeAccounting();
  ASSERT_EQ(batch.runs.size(), 1u);
  EXPECT_EQ(batch.runs[0].state, acct::JobState::kRequeued);
  EXPECT_EQ(batch.runs[0].submit, submitted);
  EXPECT_EQ(batch.runs[0].start, started);
  EXPECT_EQ(batch.runs[0].end, requeued);
  const acct::JobRecord* next = nullptr;
  for (const auto& r : batch.jobs)
    if (r.job_id == id) next = &r;
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->submit, requeued);
  EXPECT_EQ(next->eligible, requeued + 121);
  EXPECT_EQ(next->reason, "JobHeldUser");
  // hold replaces the description with its own code; release clears both.
  EXPECT_TRUE(manager_->control(root(), act("hold", s))[0].ok());
  EXPECT_EQ(job(id).reason_description(), "");
  // A pending job is not requeued, held or not, by root either: the reference's "Job is
  // pending execution".
  auto again = manager_->control(root(), act("requeuehold", s));
  ASSERT_FALSE(again[0].ok());
  EXPECT_EQ(again[0].error(), "Job is pending execution");
  EXPECT_TRUE(manager_->control(root(), act("release", s))[0].ok());
  EXPECT_EQ(job(id).reason_description(), "");
  // A plain requeue leaves no description.
  clock_.advanceSeconds(121);
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_TRUE(manager_->control(alice(), act("requeue", s))[0].ok());
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).reason(), "BeginTime");
  EXPECT_EQ(job(id).reason_description(), "");
}

// sacct's Reason, as the reference's accounting kept it (state_reason_prev_db): the last reason
// the job waited for other than Priority and Resources, "" (None) when it only waited its turn.
TEST_F(JobsTest, AccountingReasonIsTheLastWaitThatWasNotItsTurn) {
  auto reasonOf = [this](JobId id) {
    std::string reason = "(no record)";
    for (const auto& r : manager_->takeAccounting().jobs)
      if (r.job_id == id) reason = r.reason;
    return reason;
  };
  JobId held = submit(SpecBuilder().hold());
  EXPECT_EQ(reasonOf(held), "JobHeldUser");
  EXPECT_TRUE(manager_->control(alice(), act("release", std::to_string(held)))[0].ok());
  pass();
  ASSERT_EQ(job(held).state(), v1::JOB_RUNNING);
  finishBatch(held, 0);
  EXPECT_EQ(reasonOf(held), "JobHeldUser");
  JobId later = submit(SpecBuilder().begin(clock_.now() + 10));
  EXPECT_EQ(reasonOf(later), "BeginTime");
  clock_.advanceSeconds(10);
  pass();
  ASSERT_EQ(job(later).state(), v1::JOB_RUNNING);
  EXPECT_EQ(reasonOf(later), "BeginTime");
  finishBatch(later, 0);
  // Waiting for CPUs another job holds is waiting its turn: None.
  JobId big = submit(SpecBuilder().ntasks(16));
  JobId queued = submit(SpecBuilder().ntasks(16));
  pass();
  ASSERT_EQ(job(big).state(), v1::JOB_RUNNING);
  ASSERT_EQ(job(queued).reason(), "Resources");
  EXPECT_EQ(reasonOf(queued), "");
  finishBatch(big, 0);
  pass();
  ASSERT_EQ(job(queued).state(), v1::JOB_RUNNING);
  EXPECT_EQ(reasonOf(queued), "");
  finishBatch(queued, 0);
  // A reason the scheduler gives (over the partition's limit) is kept once the job runs.
  JobId over = submit(SpecBuilder().time(30).hold());
  auto setLimit = [&](const Caller& who, const std::string& minutes) {
    v1::UpdateJobRequest r;
    r.set_job_id(std::to_string(over));
    (*r.mutable_fields())["TimeLimit"] = minutes;
    return manager_->update(who, r).ok();
  };
  ASSERT_TRUE(setLimit(root(), "90"));  // root may set it past the partition's 60
  EXPECT_TRUE(manager_->control(alice(), act("release", std::to_string(over)))[0].ok());
  pass();
  ASSERT_EQ(job(over).reason(), "PartitionTimeLimit");
  ASSERT_TRUE(setLimit(alice(), "30"));
  pass();
  ASSERT_EQ(job(over).state(), v1::JOB_RUNNING);
  EXPECT_EQ(reasonOf(over), "PartitionTimeLimit");
  // A dependency that can never be met, then cancelled: its last wait.
  JobId failing = submit(SpecBuilder());
  JobId dependent = submit(SpecBuilder().dependency("afterok:" + std::to_string(failing)));
  EXPECT_EQ(reasonOf(dependent), "Dependency");
  pass();
  finishBatch(failing, 1);
  ASSERT_EQ(job(dependent).reason(), "DependencyNeverSatisfied");
  EXPECT_TRUE(manager_->cancel(alice(), cancelIds({std::to_string(dependent)}))[0].ok());
  EXPECT_EQ(reasonOf(dependent), "DependencyNeverSatisfied");
}

TEST_F(JobsTest, AUsersSuspendIsRefusedForEachIdAsGivenOnceItsJobIsKnown) {
  // As the reference's: one refusal for a whole array, and one for a task the array lacks or
  // a task of a job that is no array; an id whose job is unknown is invalid.
  const JobId arr = submit(SpecBuilder().array("0-3").time(10));
  const JobId single = submit(SpecBuilder().time(10));
  pass();
  const std::string a = std::to_string(arr), one = std::to_string(single);
  for (const char* action : {"suspend", "resume"}) {
    const auto results = manager_->control(alice(), act(action, a));
    ASSERT_EQ(results.size(), 1u) << action;
    EXPECT_EQ(results[0].job_id(), a);
    EXPECT_EQ(results[0].error(), "Access/permission denied");
    for (const std::string& text : {a + "_9", one + "_1", a + "_[1-2]"}) {
      const auto r = manager_->control(alice(), act(action, text));
      ASSERT_EQ(r.size(), 1u) << text;
      EXPECT_EQ(r[0].job_id(), text);
      EXPECT_EQ(r[0].error(), "Access/permission denied") << text;
    }
    EXPECT_EQ(manager_->control(alice(), act(action, "999999_1"))[0].error(), "Invalid job id specified");
  }
  EXPECT_EQ(job(single).state(), v1::JOB_RUNNING);
  // An operator's suspend answers per task, as before.
  EXPECT_EQ(manager_->control(root(), act("suspend", a + "_9"))[0].error(), "Invalid job id specified");
}

TEST_F(JobsTest, RequeueSuspendResumeTop) {
  JobId id = submit(SpecBuilder().time(10));
  std::string s = std::to_string(id);
  pass();
  std::int64_t end = job(id).end_time();
  // suspend/resume are for admins; the limit does not run while suspended.
  EXPECT_EQ(manager_->control(alice(), act("suspend", s))[0].error(), "Access/permission denied");
  EXPECT_TRUE(manager_->control(root(), act("suspend", s))[0].ok());
  EXPECT_EQ(job(id).state(), v1::JOB_SUSPENDED);
  EXPECT_EQ(manager_->takeSignals()[0].request.signal(), SIGSTOP);
  clock_.advanceSeconds(100);
  EXPECT_TRUE(manager_->control(root(), act("resume", s))[0].ok());
  EXPECT_EQ(job(id).end_time(), end + 100);
  EXPECT_EQ(manager_->takeSignals()[0].request.signal(), SIGCONT);

  EXPECT_TRUE(manager_->control(alice(), act("requeuehold", s))[0].ok());
  ASSERT_EQ(manager_->takeSignals().size(), 1u);
  finishBatch(id, 0, SIGKILL);
  EXPECT_EQ(job(id).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  EXPECT_EQ(job(id).restart_count(), 1u);
  EXPECT_EQ(manager_->control(alice(), act("requeue", s))[0].error(), "Job is pending execution");

  JobId a = submit(SpecBuilder().hold());
  JobId b = submit(SpecBuilder().hold());
  // top: root and operators, or users where enable_user_top is set (Slurm's default: off).
  EXPECT_EQ(manager_->control(alice(), act("top", std::to_string(b)))[0].error(),
            "Access/permission denied");
  EXPECT_TRUE(manager_->control(root(), act("top", std::to_string(b)))[0].ok());
  EXPECT_GT(job(b).priority(), job(a).priority());
  // The job passed pays for it: the user's total priority does not grow.
  EXPECT_EQ(job(a).nice() + job(b).nice(), 0);
  config_.scheduler.enable_user_top = true;
  EXPECT_TRUE(manager_->control(alice(), act("top", std::to_string(a)))[0].ok());
  EXPECT_GT(job(a).priority(), job(b).priority());
  // Already on top: nothing changes.
  const int nice = job(a).nice();
  EXPECT_TRUE(manager_->control(alice(), act("top", std::to_string(a)))[0].ok());
  EXPECT_EQ(job(a).nice(), nice);
}

TEST_F(JobsTest, UpdateRulesAndTexts) {
  JobId id = submit(SpecBuilder().time(30).hold());
  std::string s = std::to_string(id);
  auto upd = [&](const Caller& who, const std::string& key, const std::string& value) {
    v1::UpdateJobRequest r;
    r.set_job_id(s);
    (*r.mutable_fields())[key] = value;
    return manager_->update(who, r);
  };
  struct Case {
    std::string name;
    Caller who;
    std::string key, value;
    std::string error;  // "" = accepted
  };
  std::vector<Case> cases = {
      {"shorter limit", alice(), "TimeLimit", "20", ""},
      {"user lengthens a pending job within the partition", alice(), "TimeLimit", "40", ""},
      {"admin longer limit", root(), "TimeLimit", "50", ""},
      {"over partition for user", alice(), "TimeLimit", "UNLIMITED", "Access/permission denied"},
      {"other user", bob(), "Name", "x", "Invalid user id"},
      {"rename", alice(), "Name", "renamed", ""},
      {"negative nice", alice(), "Nice", "-5", "Access/permission denied"},
      {"positive nice", alice(), "Nice", "5", ""},
      {"bad partition", alice(), "Partition", "nosuch", "Invalid partition name specified"},
      {"partition", alice(), "Partition", "debug", ""},
      {"numnodes", alice(), "NumNodes", "1", ""},
      // debug has one node (the job moved there above): two are more than it has.
      {"numnodes beyond the partition", alice(), "NumNodes", "2",
       "Requested partition configuration not available now"},
      {"unknown account", alice(), "Account", "nosuch",
       "Invalid account or account/partition combination specified"},
      {"dependency", alice(), "Dependency", "afterany:" + s, ""},
      {"unsupported", alice(), "Shoesize", "4", "Update of this parameter is not supported: Shoesize"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto st = upd(c.who, c.key, c.value);
    EXPECT_EQ(st.ok(), c.error.empty());
    if (!st.ok()) {
      EXPECT_EQ(st.error(), c.error);
    }
  }
  // A QOS no one configured is refused (the reference with AccountingStorageEnforce=qos),
  // the job's left as it was; `QOS=` is the account's default.
  EXPECT_EQ(upd(alice(), "QOS", "bogus").error(), "Invalid qos specification");
  EXPECT_EQ(job(id).qos(), "normal");
  EXPECT_TRUE(upd(alice(), "QOS", "NORMAL").ok());
  EXPECT_TRUE(upd(alice(), "QOS", "").ok());
  EXPECT_EQ(job(id).qos(), "normal");
  EXPECT_EQ(job(id).time_limit_min(), 50);
  EXPECT_EQ(job(id).name(), "renamed");
  EXPECT_EQ(job(id).nice(), 5);
  EXPECT_EQ(job(id).partition(), "debug");
  EXPECT_EQ(job(id).num_nodes(), 1u);
  EXPECT_EQ(job(id).dependency(), "afterany:" + s);
  v1::UpdateJobRequest missing;
  missing.set_job_id("424242");
  (*missing.mutable_fields())["Name"] = "x";
  EXPECT_EQ(manager_->update(alice(), missing).error(), "Invalid job id specified");
  // Durable like everything else, once the daemon commits.
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  EXPECT_EQ(job(id).name(), "renamed");
}

TEST_F(JobsTest, UpdateWhereAPendingJobMayRun) {
  JobId id = submit(SpecBuilder().hold());
  auto upd = [&](const std::string& key, const std::string& value) { return updateField(id, key, value); };
  EXPECT_TRUE(upd("ExcNodeList", "node[01-03]").ok());
  EXPECT_EQ(job(id).exc_nodes(), "node[01-03]");
  EXPECT_EQ(job(id).spec().exclude(), "node[01-03]");
  // Checked as at submission; a refused list leaves the one before.
  EXPECT_EQ(upd("ExcNodeList", "node[01-04]").error(), "Requested node configuration is not available");
  EXPECT_EQ(upd("ExcNodeList", "node09").error(), "Invalid node name specified");
  EXPECT_EQ(job(id).exc_nodes(), "node[01-03]");
  EXPECT_TRUE(upd("ExcNodeList", "").ok());
  EXPECT_EQ(job(id).exc_nodes(), "");
  EXPECT_TRUE(upd("ReqNodeList", "node02").ok());
  EXPECT_EQ(job(id).req_nodes(), "node02");
  EXPECT_TRUE(upd("Features", "fast").ok());
  EXPECT_EQ(job(id).features(), "fast");
  EXPECT_EQ(upd("Features", "slow").error(), "Invalid feature specification");

  // The scheduler places it where the update says.
  v1::JobControlRequest release;
  release.set_action("release");
  release.add_job_ids(std::to_string(id));
  ASSERT_TRUE(manager_->control(alice(), release)[0].ok());
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(id).nodes(), "node02");
  EXPECT_EQ(upd("ExcNodeList", "node01").error(), "Job is no longer pending execution");
}

// What a pending job asks for and where it writes, as the reference took them from its owner
// (scontrol update, 2026-12-03): NumTasks=, CPUsPerTask=, MinMemoryCPU=, Gres=/TresPerNode=,
// TimeMin=, Requeue=, WorkDir=, StdOut=, EligibleTime=; checked as at submission.
TEST_F(JobsTest, UpdateWhatAPendingJobAsksFor) {
  JobId id = submit(SpecBuilder().hold());
  auto upd = [&](const std::string& key, const std::string& value) { return updateField(id, key, value); };
  EXPECT_TRUE(upd("NumTasks", "4").ok());
  EXPECT_EQ(job(id).spec().ntasks(), 4u);
  EXPECT_EQ(job(id).num_tasks(), 4u);
  EXPECT_TRUE(upd("CPUsPerTask", "2").ok());
  EXPECT_EQ(job(id).spec().cpus_per_task(), 2u);
  EXPECT_NE(job(id).req_tres().find("cpu=8"), std::string::npos) << job(id).req_tres();
  // The nodes have 4 CPUs and 2 GPUs each, 16000 MB.
  EXPECT_EQ(upd("CPUsPerTask", "64").error(), "Requested node configuration is not available");
  EXPECT_EQ(job(id).spec().cpus_per_task(), 2u);
  EXPECT_EQ(upd("NumTasks", "x").error(), "Invalid numtasks value: x");
  EXPECT_TRUE(upd("MinMemoryCPU", "1000").ok());
  EXPECT_EQ(job(id).spec().mem_per_cpu_mb(), 1000u);
  EXPECT_TRUE(upd("Gres", "gpu:2").ok());
  ASSERT_EQ(job(id).spec().gres_size(), 1);
  EXPECT_EQ(job(id).spec().gres(0).count(), 2u);
  EXPECT_TRUE(upd("TresPerNode", "gres:gpu:1").ok());
  EXPECT_EQ(job(id).spec().gres(0).count(), 1u);
  EXPECT_EQ(upd("Gres", "gpu:9").error(), "Requested node configuration is not available");
  EXPECT_EQ(upd("Gres", "nvme:1").error(), "Invalid generic resource (gres) specification");
  EXPECT_TRUE(upd("TimeMin", "5").ok());
  EXPECT_EQ(job(id).spec().time_min_min(), 5);
  EXPECT_TRUE(upd("Requeue", "0").ok());
  EXPECT_FALSE(job(id).requeue());
  EXPECT_TRUE(upd("WorkDir", "/var/tmp").ok());
  EXPECT_EQ(job(id).work_dir(), "/var/tmp");
  EXPECT_EQ(upd("WorkDir", "relative").error(), "Invalid WorkDir value: relative");
  EXPECT_TRUE(upd("StdOut", "new_%j.out").ok());
  EXPECT_EQ(job(id).std_out(), "/var/tmp/new_" + std::to_string(id) + ".out");
  EXPECT_EQ(job(id).std_err(), job(id).std_out());  // no StdErr of its own: it follows
  EXPECT_TRUE(upd("EligibleTime", "1796050000").ok());
  EXPECT_EQ(job(id).spec().begin_time(), 1796050000);

  // A started job keeps what it has.
  v1::JobControlRequest release;
  release.set_action("release");
  release.add_job_ids(std::to_string(id));
  ASSERT_TRUE(manager_->control(alice(), release)[0].ok());
  EXPECT_TRUE(upd("EligibleTime", "0").ok());
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_EQ(upd("NumTasks", "1").error(), "Job is no longer pending execution");
  EXPECT_EQ(upd("StdOut", "x").error(), "Job is no longer pending execution");
}

TEST_F(JobsTest, UpdateArrayTaskThrottle) {
  const JobId a = submit(SpecBuilder().array("0-3").time(10));
  auto throttle = [&](const std::string& id, const std::string& value) {
    v1::UpdateJobRequest r;
    r.set_job_id(id);
    (*r.mutable_fields())["ArrayTaskThrottle"] = value;
    return manager_->update(alice(), r);
  };
  ASSERT_TRUE(throttle(std::to_string(a), "1").ok());
  EXPECT_EQ(pass().size(), 1u);
  // squeue's folded row of the tasks still pending shows the limit.
  v1::GetJobsRequest q;
  q.add_job_ids(std::to_string(a));
  q.add_states("PENDING");
  const auto rows = manager_->query(q);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].array_task_pending(), "1-3%1");
  // Raised while a task runs: two more start.
  ASSERT_TRUE(throttle(std::to_string(a), "3").ok());
  EXPECT_EQ(pass().size(), 2u);
  // Each task refuses a value that is no number (scontrol: "A_0-3: Invalid ...").
  auto bad = throttle(std::to_string(a), "x");
  ASSERT_TRUE(bad.ok()) << bad.error();
  ASSERT_EQ(bad->tasks_size(), 4);
  for (const auto& t : bad->tasks()) EXPECT_EQ(t.error(), "Invalid ArrayTaskThrottle value");
  const JobId plain = submit(SpecBuilder().hold());
  EXPECT_EQ(throttle(std::to_string(plain), "2").error(), "Job is not an array job");
}

// Each task's answer, "" where it took the update.
std::map<std::int64_t, std::string> taskAnswers(const v1::UpdateJobReply& reply) {
  std::map<std::int64_t, std::string> out;
  for (const auto& t : reply.tasks()) out[t.task_id()] = t.error();
  return out;
}

TEST_F(JobsTest, PendingOnlyUpdateOfAnArrayChangesItsPendingTasksAndNamesTheRunningOnes) {
  const JobId a = submit(SpecBuilder().array("0-2%1").time(10));
  ASSERT_EQ(pass().size(), 1u);
  ASSERT_EQ(task(a, 0).state(), v1::JOB_RUNNING);
  auto update = [&](std::map<std::string, std::string> fields) {
    v1::UpdateJobRequest r;
    r.set_job_id(std::to_string(a));
    for (auto& [k, v] : fields) (*r.mutable_fields())[k] = v;
    return manager_->update(alice(), r);
  };
  // As the reference: the pending tasks move, the running one refuses (scontrol printed
  // "A_0: Job is no longer pending execution", "A_1-2: No error", exit 1).
  auto r = update({{"Partition", "debug"}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->array_job_id(), a);
  const std::map<std::int64_t, std::string> moved = {
      {0, "Job is no longer pending execution"}, {1, ""}, {2, ""}};
  EXPECT_EQ(taskAnswers(*r), moved);
  EXPECT_EQ(task(a, 0).partition(), "gpu");
  EXPECT_EQ(task(a, 1).partition(), "debug");
  EXPECT_EQ(task(a, 2).partition(), "debug");
  // Each task takes the whole update or none of it: the running one keeps its limit too
  // (the reference's TimeLimit=1 Partition=nosuch left every limit as it was).
  r = update({{"Partition", "nosuch"}, {"TimeLimit", "7"}});
  const std::map<std::int64_t, std::string> refused = {
      {0, "Job is no longer pending execution"},
      {1, "Invalid partition name specified"},
      {2, "Invalid partition name specified"}};
  EXPECT_EQ(taskAnswers(*r), refused);
  EXPECT_EQ(task(a, 0).time_limit_min(), 10);
  EXPECT_EQ(task(a, 2).time_limit_min(), 10);
  // The partition it is already in: a running task takes it without a word, as the reference.
  r = update({{"Partition", "gpu"}, {"TimeLimit", "5"}});
  const std::map<std::int64_t, std::string> all_took = {{0, ""}, {1, ""}, {2, ""}};
  EXPECT_EQ(taskAnswers(*r), all_took);
  EXPECT_EQ(task(a, 0).time_limit_min(), 5);
  EXPECT_EQ(task(a, 2).partition(), "gpu");
  // A key no job takes refuses the request as a whole.
  EXPECT_EQ(update({{"Shoesize", "4"}}).error(), "Update of this parameter is not supported: Shoesize");
}

TEST_F(JobsTest, UpdateOfAnArraySaysWhichTasksEnded) {
  const JobId a = submit(SpecBuilder().array("0-2%1").time(10));
  ASSERT_EQ(pass().size(), 1u);
  finishBatch(task(a, 0).job_id(), 0);
  ASSERT_EQ(task(a, 0).state(), v1::JOB_COMPLETED);
  v1::UpdateJobRequest r;
  r.set_job_id(std::to_string(a));
  (*r.mutable_fields())["Name"] = "renamed";
  // The reference: "A_0: Job has already finished", "A_1-2: No error", exit 1.
  auto reply = manager_->update(alice(), r);
  ASSERT_TRUE(reply.ok()) << reply.error();
  const std::map<std::int64_t, std::string> answers = {{0, "Job has already finished"}, {1, ""}, {2, ""}};
  EXPECT_EQ(taskAnswers(*reply), answers);
  EXPECT_EQ(task(a, 1).name(), "renamed");
  EXPECT_NE(task(a, 0).name(), "renamed");
  // The throttle is the array's: the ended task keeps the new one too (the scheduler reads
  // it from the array's first task), while it still answers that it ended.
  v1::UpdateJobRequest t;
  t.set_job_id(std::to_string(a));
  (*t.mutable_fields())["ArrayTaskThrottle"] = "2";
  reply = manager_->update(alice(), t);
  EXPECT_EQ(taskAnswers(*reply), answers);
  EXPECT_EQ(task(a, 0).array_max_running(), 2u);
  EXPECT_EQ(task(a, 2).array_max_running(), 2u);
  // A task cancelled while it runs is CANCELLED while its processes are killed: the
  // reference's "A_1: Job has already finished" beside "A_0,2: No error" for the others.
  pass();
  ASSERT_EQ(task(a, 1).state(), v1::JOB_RUNNING);
  ASSERT_TRUE(manager_->cancel(alice(), cancelIds({std::to_string(a) + "_1"}))[0].ok());
  ASSERT_EQ(task(a, 1).state(), v1::JOB_COMPLETING);
  v1::UpdateJobRequest second = r;
  (*second.mutable_fields())["Name"] = "second";
  reply = manager_->update(alice(), second);
  const std::map<std::int64_t, std::string> killed = {
      {0, "Job has already finished"}, {1, "Job has already finished"}, {2, ""}};
  EXPECT_EQ(taskAnswers(*reply), killed);
  EXPECT_EQ(task(a, 1).name(), "renamed");
  EXPECT_EQ(task(a, 2).name(), "second");
  // Once every task ended, each says so (the reference: "A_0-3: Job has already finished");
  // a job that is no array says it for the request, also while it is being killed.
  finishBatch(task(a, 1).job_id(), 0, SIGKILL);
  finishBatch(task(a, 2).job_id(), 0);
  reply = manager_->update(alice(), r);
  const std::map<std::int64_t, std::string> ended = {
      {0, "Job has already finished"}, {1, "Job has already finished"}, {2, "Job has already finished"}};
  EXPECT_EQ(taskAnswers(*reply), ended);
  const JobId plain = submit(SpecBuilder().time(5));
  pass();
  r.set_job_id(std::to_string(plain));
  ASSERT_TRUE(manager_->cancel(alice(), cancelIds({std::to_string(plain)}))[0].ok());
  EXPECT_EQ(manager_->update(alice(), r).error(), "Job has already finished");
  finishBatch(plain, 0, SIGKILL);
  EXPECT_EQ(manager_->update(alice(), r).error(), "Job has already finished");
}

}  // namespace
}  // namespace drover::jobs::testing
