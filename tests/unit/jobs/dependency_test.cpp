// Every dependency type against each outcome of its target, OR/AND combinations, arrays,
// singleton and +time; a failed item stays failed (requeue, purge, restart).
#include "jobs/dependency_status.h"
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

enum class Outcome { Pending, Running, Completed, Failed, CancelledPending };

struct DepCase {
  std::string type;
  Outcome outcome;
  std::string reason;  // of the dependent job afterwards ("None" = satisfied)
};

TEST_F(JobsTest, DependencyTypesAgainstTargetOutcomes) {
  std::vector<DepCase> cases = {
      {"after", Outcome::Pending, "Dependency"},
      {"after", Outcome::Running, "None"},
      {"after", Outcome::CancelledPending, "None"},
      {"afterany", Outcome::Running, "Dependency"},
      {"afterany", Outcome::Completed, "None"},
      {"afterany", Outcome::Failed, "None"},
      {"afterok", Outcome::Running, "Dependency"},
      {"afterok", Outcome::Completed, "None"},
      {"afterok", Outcome::Failed, "DependencyNeverSatisfied"},
      {"afterok", Outcome::CancelledPending, "DependencyNeverSatisfied"},
      {"afternotok", Outcome::Completed, "DependencyNeverSatisfied"},
      {"afternotok", Outcome::Failed, "None"},
      {"afternotok", Outcome::CancelledPending, "None"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type + " case " + std::to_string(static_cast<int>(c.outcome)));
    // The target waits on a hold so it starts only when the case says so.
    JobId target = submit(SpecBuilder().name("target").hold());
    JobId dep = submit(SpecBuilder().name("dep").dependency(c.type + ":" + std::to_string(target)));
    EXPECT_EQ(job(dep).reason(), "Dependency");
    auto release = [&] {
      v1::JobControlRequest r;
      r.set_action("release");
      r.add_job_ids(std::to_string(target));
      manager_->control(alice(), r);
      auto launches = pass();
      ASSERT_EQ(job(target).state(), v1::JOB_RUNNING);
    };
    switch (c.outcome) {
      case Outcome::Pending: break;
      case Outcome::Running: release(); break;
      case Outcome::Completed: release(); finishBatch(target, 0); break;
      case Outcome::Failed: release(); finishBatch(target, 3); break;
      case Outcome::CancelledPending: {
        v1::CancelJobsRequest r;
        r.add_job_ids(std::to_string(target));
        manager_->cancel(alice(), r);
        break;
      }
    }
    manager_->buildSnapshot({});
    EXPECT_EQ(job(dep).reason(), c.reason);
    // Clean up so the next case has the cluster to itself.
    v1::CancelJobsRequest all;
    all.set_user("alice");
    manager_->cancel(root(), all);
    for (const auto& a : manager_->takeSignals()) finishBatch(a.job_id, 0, 9);
    ASSERT_TRUE(manager_->commit().ok());
  }
}

TEST_F(JobsTest, OrAndCombinations) {
  JobId ok = submit(SpecBuilder().name("ok"));
  JobId bad = submit(SpecBuilder().name("bad"));
  pass();
  finishBatch(ok, 0);
  finishBatch(bad, 1);
  std::string o = std::to_string(ok), b = std::to_string(bad);
  JobId either = submit(SpecBuilder().dependency("afterok:" + b + "?afterok:" + o));
  JobId both = submit(SpecBuilder().dependency("afterok:" + o + ",afterok:" + b));
  JobId both_ok = submit(SpecBuilder().dependency("afterok:" + o + ",afternotok:" + b));
  JobId neither = submit(SpecBuilder().dependency("afternotok:" + o + "?afterok:" + b));
  EXPECT_EQ(job(either).reason(), "None");
  EXPECT_EQ(job(both).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(job(both_ok).reason(), "None");
  EXPECT_EQ(job(neither).reason(), "DependencyNeverSatisfied");
  // Never satisfied stays pending (Slurm's default), and never starts.
  pass();
  EXPECT_EQ(job(both).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(both).reason(), "DependencyNeverSatisfied");
}

TEST_F(JobsTest, AfterWithDelayWaitsAfterTheStart) {
  EXPECT_EQ(manager_->nextDependencyTime(), 0);
  JobId t = submit(SpecBuilder());
  pass();
  const std::int64_t started = job(t).start_time();
  JobId dep = submit(SpecBuilder().dependency("after:" + std::to_string(t) + "+5"));
  manager_->buildSnapshot({});
  EXPECT_EQ(job(dep).reason(), "Dependency");
  // The controller arms a timer for this moment, so the job starts on time.
  EXPECT_EQ(manager_->nextDependencyTime(), started + 5 * 60);
  clock_.advanceSeconds(5 * 60);
  pass();
  EXPECT_EQ(job(dep).state(), v1::JOB_RUNNING);
  EXPECT_EQ(manager_->nextDependencyTime(), 0);
}

// A pass that starts the target of `after:` releases its dependent; the controller discards
// the pass's own change notices, so it must be told separately to run the next pass (the
// dependent otherwise waited for an unrelated event, often the target's end).
TEST_F(JobsTest, StartThatSatisfiesAnAfterDependencyAsksForAnotherPass) {
  JobId target = submit(SpecBuilder());
  JobId dep = submit(SpecBuilder().dependency("after:" + std::to_string(target)));
  EXPECT_FALSE(manager_->takeReleasedByStarts());
  pass();
  EXPECT_EQ(job(target).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(dep).state(), v1::JOB_PENDING);
  EXPECT_TRUE(manager_->takeReleasedByStarts());
  EXPECT_FALSE(manager_->takeReleasedByStarts());  // once
  pass();
  EXPECT_EQ(job(dep).state(), v1::JOB_RUNNING);
  EXPECT_FALSE(manager_->takeReleasedByStarts());
}

TEST_F(JobsTest, SingletonWaitsForEarlierJobsOfSameNameAndUser) {
  JobId a = submit(SpecBuilder().name("single").dependency("singleton"));
  JobId b = submit(SpecBuilder().name("single").dependency("singleton"));
  JobId other_user = submit(SpecBuilder().name("single").dependency("singleton"), bob());
  pass();
  EXPECT_EQ(job(a).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(b).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(b).reason(), "Dependency");
  EXPECT_EQ(job(other_user).state(), v1::JOB_RUNNING);
  finishBatch(a, 0);
  pass();
  EXPECT_EQ(job(b).state(), v1::JOB_RUNNING);
}

// singleton reads the user's jobs of that name from the index of jobs not ended (LiveJobs): an
// array's tasks take their turns as each gets an id of its own, a job renamed with JobName=
// leaves the group, and a restarted controller rebuilds the index from what it recovers.
TEST_F(JobsTest, SingletonFollowsArrayTasksRenamesAndRestarts) {
  const JobId arr = submit(SpecBuilder().name("one").array("0-2").dependency("singleton"));
  const JobId later = submit(SpecBuilder().name("one").dependency("singleton"));
  auto running = [&] {
    std::vector<std::int64_t> tasks;
    for (std::int64_t t = 0; t < 3; ++t)
      if (task(arr, t).state() == v1::JOB_RUNNING) tasks.push_back(t);
    return tasks;
  };
  pass();
  EXPECT_EQ(running(), std::vector<std::int64_t>{0});
  EXPECT_EQ(job(later).state(), v1::JOB_PENDING);
  finishBatch(task(arr, 0).job_id(), 0);
  pass();
  EXPECT_EQ(running(), std::vector<std::int64_t>{1});
  EXPECT_EQ(job(later).state(), v1::JOB_PENDING);
  ASSERT_TRUE(updateField(later, "JobName", "two").ok());
  pass();
  EXPECT_EQ(job(later).state(), v1::JOB_RUNNING);
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  pass();
  EXPECT_EQ(running(), std::vector<std::int64_t>{1});
  finishBatch(task(arr, 1).job_id(), 0);
  pass();
  EXPECT_EQ(running(), std::vector<std::int64_t>{2});
}

// A job earlier than an array of its name waits for the array's running tasks, which are in
// the index under the ids they took when they started.
TEST_F(JobsTest, SingletonWaitsForRunningTasksOfALaterArray) {
  const JobId first = submit(SpecBuilder().name("one").dependency("singleton").hold());
  const JobId arr = submit(SpecBuilder().name("one").array("0-1"));
  pass();
  ASSERT_EQ(task(arr, 0).state(), v1::JOB_RUNNING);
  ASSERT_NE(task(arr, 0).job_id(), arr);  // an id of its own
  ASSERT_TRUE(manager_->control(alice(), act("release", std::to_string(first)))[0].ok());
  pass();
  EXPECT_EQ(job(first).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(first).reason(), "Dependency");
  finishBatch(task(arr, 0).job_id(), 0);
  finishBatch(task(arr, 1).job_id(), 0);
  pass();
  EXPECT_EQ(job(first).state(), v1::JOB_RUNNING);
}

TEST_F(JobsTest, ArrayDependenciesWholeTaskAndCorresponding) {
  JobId arr = submit(SpecBuilder().array("0-1"));
  JobId on_all = submit(SpecBuilder().dependency("afterok:" + std::to_string(arr)));
  JobId on_task = submit(SpecBuilder().dependency("afterok:" + std::to_string(arr) + "_1"));
  JobId corr = submit(SpecBuilder().array("0-1").dependency("aftercorr:" + std::to_string(arr)));
  pass();
  finishBatch(task(arr, 1).job_id(), 0);  // task 1 done
  manager_->buildSnapshot({});
  EXPECT_EQ(job(on_all).reason(), "Dependency");
  EXPECT_EQ(job(on_task).reason(), "None");
  EXPECT_EQ(task(corr, 0).reason(), "Dependency");  // task 0 waits on task 0
  EXPECT_EQ(task(corr, 1).reason(), "None");        // task 1 follows task 1
  finishBatch(task(arr, 0).job_id(), 2);
  manager_->buildSnapshot({});
  EXPECT_EQ(job(on_all).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(task(corr, 0).reason(), "DependencyNeverSatisfied");
}

TEST_F(JobsTest, DependencyIsReevaluatedAfterRestart) {
  JobId t = submit(SpecBuilder());
  JobId dep = submit(SpecBuilder().dependency("afterok:" + std::to_string(t)));
  pass();
  finishBatch(t, 0);
  reopen();
  EXPECT_EQ(job(dep).reason(), "None");
  EXPECT_EQ(job(dep).dependency(), "afterok:" + std::to_string(t));
}

// scontrol's Dependency= (golden 088): what still holds the job back, each with its state.
TEST(DependencyStatus, ItemsThatHoldTheJobWithTheirState) {
  using S = sched::DependencyState;
  struct Case {
    std::string spec;
    std::vector<S> items;
    S overall;
    std::string want;
  };
  std::vector<Case> cases = {
      {"afterok:28", {S::Pending}, S::Pending, "afterok:28(unfulfilled)"},
      {"afterok:28", {S::NeverSatisfied}, S::NeverSatisfied, "afterok:28(failed)"},
      {"afterok:28", {S::Satisfied}, S::Satisfied, ""},
      // Satisfied items no longer show; the rest keep the separator they were written with.
      {"afterok:1,afterany:2,afternotok:3", {S::Satisfied, S::Pending, S::Pending}, S::Pending,
       "afterany:2(unfulfilled),afternotok:3(unfulfilled)"},
      {"afterok:1?afterok:2", {S::NeverSatisfied, S::Pending}, S::Pending,
       "afterok:1(failed)?afterok:2(unfulfilled)"},
      {"afterok:1?afterok:2", {S::NeverSatisfied, S::Satisfied}, S::Satisfied, ""},
      {"after:5+10,singleton", {S::Pending, S::Pending}, S::Pending,
       "after:5+10(unfulfilled),singleton(unfulfilled)"},
      {"afterok:7_*", {S::Pending}, S::Pending, "afterok:7_*(unfulfilled)"},
  };
  for (const auto& c : cases) {
    auto spec = jobspec::parseDependencySpec(c.spec);
    ASSERT_TRUE(spec) << c.spec;
    EXPECT_EQ(dependencyStatus(*spec, c.items, c.overall), c.want) << c.spec;
  }
}

TEST_F(JobsTest, DependencyStatusFollowsTheTarget) {
  JobId t = submit(SpecBuilder());
  JobId dep = submit(SpecBuilder().dependency("afterok:" + std::to_string(t)));
  pass();
  EXPECT_EQ(job(dep).dependency_status(), "afterok:" + std::to_string(t) + "(unfulfilled)");
  finishBatch(t, 1);
  EXPECT_EQ(job(dep).dependency_status(), "afterok:" + std::to_string(t) + "(failed)");
  reopen();  // recomputed after a restart
  EXPECT_EQ(job(dep).dependency_status(), "afterok:" + std::to_string(t) + "(failed)");

  JobId t2 = submit(SpecBuilder());
  JobId dep2 = submit(SpecBuilder().dependency("afterok:" + std::to_string(t2)));
  pass();
  finishBatch(t2, 0);
  EXPECT_EQ(job(dep2).dependency_status(), "");  // satisfied: Dependency=(null)
}


// sbatch(1): once a dependency fails on the target's end state, the dependent job never runs,
// even if the target is requeued and ends otherwise; nor once the target is purged.
TEST_F(JobsTest, FailedDependencyStaysFailed) {
  JobId t = submit(SpecBuilder().name("target"));
  const std::string ts = std::to_string(t);
  JobId dep = submit(SpecBuilder().dependency("afterok:" + ts));
  pass();
  finishBatch(t, 1);
  manager_->buildSnapshot({});
  EXPECT_EQ(job(dep).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(job(dep).dependency(), "afterok:" + ts + "(failed)");  // stored, survives restart

  v1::JobControlRequest rq;
  rq.set_action("requeue");
  rq.add_job_ids(ts);
  ASSERT_TRUE(manager_->control(alice(), rq)[0].ok());
  ASSERT_EQ(job(t).state(), v1::JOB_PENDING);
  pass();
  finishBatch(t, 0);  // the second run succeeds
  pass();
  EXPECT_EQ(job(dep).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(dep).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(job(dep).dependency_status(), "afterok:" + ts + "(failed)");

  reopen();
  EXPECT_EQ(job(dep).reason(), "DependencyNeverSatisfied");
  clock_.advanceSeconds(kMinJobAgeS + 1);
  manager_->purgeFinished();
  ASSERT_EQ(manager_->find(t), nullptr);
  pass();
  EXPECT_EQ(job(dep).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(dep).reason(), "DependencyNeverSatisfied");
}

// Slurm names a whole array as ID_* wherever it shows a dependency on it.
TEST_F(JobsTest, DependencyOnAWholeArrayShowsAllTasks) {
  JobId arr = submit(SpecBuilder().array("0-1"));
  const std::string a = std::to_string(arr);
  JobId on_all = submit(SpecBuilder().dependency("afterok:" + a));
  JobId corr = submit(SpecBuilder().array("0-1").dependency("aftercorr:" + a));
  JobId on_task = submit(SpecBuilder().dependency("afterok:" + a + "_1"));
  EXPECT_EQ(job(on_all).dependency_status(), "afterok:" + a + "_*(unfulfilled)");
  EXPECT_EQ(job(on_all).dependency(), "afterok:" + a + "_*");
  EXPECT_EQ(task(corr, 0).dependency_status(), "aftercorr:" + a + "_*(unfulfilled)");
  EXPECT_EQ(job(on_task).dependency_status(), "afterok:" + a + "_1(unfulfilled)");
  pass();
  finishBatch(task(arr, 0).job_id(), 3);
  manager_->buildSnapshot({});
  EXPECT_EQ(job(on_all).dependency_status(), "afterok:" + a + "_*(failed)");
  EXPECT_EQ(task(corr, 0).dependency_status(), "aftercorr:" + a + "_*(failed)");  // task 0
  EXPECT_EQ(task(corr, 1).dependency_status(), "aftercorr:" + a + "_*(unfulfilled)");
}

// The reference (Slurm 22.05) took a dependency on a job it did not know (never submitted, or
// purged after MinJobAge) at submission and in scontrol update, and ran the job: nothing is left
// to wait for. Only a malformed text is refused.
TEST_F(JobsTest, UnknownTargetsAreTakenAndMet) {
  JobId done = submit(SpecBuilder());
  pass();
  finishBatch(done, 0);
  EXPECT_TRUE(manager_->commit().ok());
  clock_.advanceSeconds(kMinJobAgeS + 1);
  manager_->purgeFinished();
  ASSERT_EQ(manager_->find(done), nullptr);

  JobId purged = submit(SpecBuilder().dependency("afterok:" + std::to_string(done)));
  JobId never = submit(SpecBuilder().dependency("afterany:" + std::to_string(done + 1000)));
  JobId held = submit(SpecBuilder().hold());
  v1::UpdateJobRequest up;
  up.set_job_id(std::to_string(held));
  (*up.mutable_fields())["Dependency"] = "afterok:" + std::to_string(done + 1000);
  ASSERT_TRUE(manager_->update(alice(), up).ok());
  (*up.mutable_fields())["Dependency"] = "afterok:x";
  auto res = manager_->update(alice(), up);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error(), "Job dependency problem");
  pass();
  EXPECT_EQ(manager_->find(purged)->state(), v1::JOB_RUNNING);
  EXPECT_EQ(manager_->find(never)->state(), v1::JOB_RUNNING);
}

// The stored form of a failed item reads back as failed; a bare "(failed)" is no job id.
TEST(DependencySpecText, FailedItemsRoundTrip) {
  struct Case {
    std::string text;
    bool ok;
    std::vector<bool> failed;
  };
  std::vector<Case> cases = {
      {"afterok:12(failed)", true, {true}},
      {"afterok:12(failed),afterok:13", true, {true, false}},
      {"afterok:7_*(failed)?afterany:8", true, {true, false}},
      {"afterok:(failed)", false, {}},
      {"afterok:12(failed", false, {}},
  };
  for (const auto& c : cases) {
    auto spec = jobspec::parseDependencySpec(c.text);
    ASSERT_EQ(static_cast<bool>(spec), c.ok) << c.text;
    if (!spec) continue;
    std::vector<bool> failed;
    for (const auto& item : spec->items) failed.push_back(item.failed);
    EXPECT_EQ(failed, c.failed) << c.text;
    EXPECT_EQ(jobspec::formatDependency(*spec), c.text) << c.text;
  }
}

}  // namespace
}  // namespace drover::jobs::testing
