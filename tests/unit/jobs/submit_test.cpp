// Submission: each refusal with the exact text Slurm prints (goldens 007-017, 065), defaults,
// arrays and --test-only.
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

struct RefusalCase {
  std::string name;
  v1::JobSpec spec;
  std::string message;  // after "Batch job submission failed: "
  std::vector<std::string> notes;
  bool prefixed = true;
};

// Each case refused with its message and notes, after Slurm's "Batch job submission failed: "
// or not.
void expectRefusals(JobManager& manager, const std::vector<RefusalCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    SubmitResult r = manager.submit(alice(), c.spec);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.failure.message, c.message) << r.failure.detail;
    EXPECT_EQ(r.failure.notes, c.notes);
    EXPECT_EQ(r.failure.submission_failed_prefix, c.prefixed);
  }
}

TEST_F(JobsTest, RefusalsUseSlurmsTexts) {
  std::vector<RefusalCase> cases = {
      {"007 unknown partition", SpecBuilder().partition("nosuch"),
       "Invalid partition name specified", {"invalid partition specified: nosuch"}},
      {"009 unknown gres", SpecBuilder().gres("fpga", 1),
       "Invalid generic resource (gres) specification", {}, false},
      {"010 too many gpus", SpecBuilder().gres("gpu", 99),
       "Requested node configuration is not available", {}},
      {"013 too many nodes", SpecBuilder().nodes(10), "Node count specification invalid", {}},
      {"015 too many tasks", SpecBuilder().ntasks(1000),
       "More processors requested than permitted", {}},
      {"016 memory too large", SpecBuilder().mem(999999999),
       "Requested node configuration is not available",
       {"Memory specification can not be satisfied"}},
      {"017 unknown account", SpecBuilder().account("nosuchacct"),
       "Invalid account or account/partition combination specified", {}},
      {"account of another user", SpecBuilder().account("ops"),
       "Invalid account or account/partition combination specified", {}},
      {"065 over partition time", SpecBuilder().partition("debug").time(120),
       "Requested time limit is invalid (missing or exceeds some limit)", {}},
      {"bad array", SpecBuilder().array("5-1"), "Invalid job array specification", {}},
      {"negative nice from a user", SpecBuilder().nice(-5), "Invalid --nice value", {}},
      {"malformed dependency", SpecBuilder().dependency("afterok:x"), "Job dependency problem", {}},
  };
  expectRefusals(*manager_, cases);
  EXPECT_EQ(manager_->size(), 0u);  // no partial job left behind
  EXPECT_EQ(store_->stagedCount(), 0u);
}

TEST_F(JobsTest, TasksWithoutANodeCountAreCheckedOverTheNodesTheyNeed) {
  // -n 8 on 4-CPU, 16000 MB nodes at DefMemPerCPU 4000: two nodes of 4 CPUs and 16000 MB each
  // (Slurm runs `-n 20` on 16-CPU nodes as 16+4), not one node of 32000 MB.
  JobId id = submit(SpecBuilder().ntasks(8));
  clock_.advanceSeconds(1);
  pass();
  const auto& j = job(id);
  EXPECT_EQ(j.state(), v1::JOB_RUNNING);
  ASSERT_EQ(j.allocation_size(), 2);
  EXPECT_EQ(j.allocation(0).tasks(), 4u);
  EXPECT_EQ(j.allocation(1).tasks(), 4u);
  EXPECT_EQ(j.allocation(0).memory_mb(), 16000u);
}

TEST_F(JobsTest, DefaultsFromPartitionAccountTreeAndConfig) {
  JobId id = submit(SpecBuilder());
  const auto& j = job(id);
  EXPECT_EQ(j.partition(), "gpu");
  EXPECT_EQ(j.account(), "research");
  EXPECT_EQ(j.qos(), "normal");
  EXPECT_EQ(j.time_limit_min(), 60);  // no default_time: the partition's maximum
  EXPECT_EQ(j.spec().mem_per_cpu_mb(), 4000u);
  EXPECT_EQ(j.num_nodes(), 1u);
  EXPECT_EQ(j.num_cpus(), 1u);
  EXPECT_TRUE(j.requeue());
  EXPECT_EQ(j.std_out(), "/home/alice/slurm-" + std::to_string(id) + ".out");
  EXPECT_EQ(j.std_err(), j.std_out());
  EXPECT_EQ(j.std_in(), "/dev/null");
  EXPECT_EQ(j.req_tres(), "billing=1,cpu=1,mem=4000M,node=1");
  EXPECT_EQ(j.eligible_time(), clock_.now());
  EXPECT_EQ(j.reason(), "None");
  // Accounting sees the submission.
  auto batch = manager_->takeAccounting();
  ASSERT_FALSE(batch.jobs.empty());
  EXPECT_EQ(batch.jobs.back().job_id, id);
  EXPECT_EQ(batch.jobs.back().state, acct::JobState::kPending);
  EXPECT_EQ(batch.jobs.back().work_dir, "/home/alice");
}

// -w without -N: as many nodes as listed from the submission on, as the reference showed
// `sbatch -H -w node[01-02]` (NumNodes=2 NumCPUs=2 NumTasks=2, TRES node=2), and it starts there.
TEST_F(JobsTest, ListedNodesAreTheNodeCountWithoutN) {
  JobId id = submit(SpecBuilder().nodelist("node[01-02]").hold());
  EXPECT_EQ(job(id).num_nodes(), 2u);
  EXPECT_EQ(job(id).num_tasks(), 2u);
  EXPECT_EQ(job(id).num_cpus(), 2u);
  EXPECT_EQ(job(id).req_tres(), "billing=2,cpu=2,mem=8000M,node=2");
  JobId twice = submit(SpecBuilder().nodelist("node01,node01").hold());  // one node
  EXPECT_EQ(job(twice).num_nodes(), 1u);
  JobId runs = submit(SpecBuilder().nodelist("node[02-03]"));
  clock_.advanceSeconds(1);
  pass();
  ASSERT_EQ(job(runs).state(), v1::JOB_RUNNING);
  ASSERT_EQ(job(runs).allocation_size(), 2);
  EXPECT_EQ(job(runs).allocation(0).node(), "node02");
  EXPECT_EQ(job(runs).allocation(1).node(), "node03");
}

// A partition list, as the reference took and refused it: every named partition must exist,
// the job must fit every one's limits (EnforcePartLimits=ALL), and runs in the first, with its
// default time.
TEST_F(JobsTest, PartitionListIsCheckedAgainstEveryPartition) {
  config_.partitions[0].default_time_min = 45;   // gpu: 45 min default, 60 max; debug: 30 max
  reopen();
  JobId id = submit(SpecBuilder().partition("gpu,debug").time(10));
  EXPECT_EQ(job(id).partition(), "gpu,debug");  // while it waits (multi_partition_test.cpp)
  EXPECT_EQ(submit(SpecBuilder().partition("gpu,,gpu,")), id + 1);  // empty items skipped
  EXPECT_EQ(job(id + 1).partition(), "gpu");  // and repeats
  EXPECT_EQ(job(id + 1).time_limit_min(), 45);

  expectRefusals(*manager_, {
      {"an unknown one", SpecBuilder().partition("gpu,nosuch"), "Invalid partition name specified",
       {"invalid partition specified: nosuch"}},
      {"a space after the comma", SpecBuilder().partition("gpu, debug"),
       "Invalid partition name specified", {"invalid partition specified:  debug"}},
      {"only commas", SpecBuilder().partition(","), "Invalid partition name specified",
       {"invalid partition specified: (null)"}},
      {"the first's default over another's maximum", SpecBuilder().partition("gpu,debug"),
       "Requested partition configuration not available now", {}},
      {"a limit over another's maximum", SpecBuilder().partition("gpu,debug").time(40),
       "Requested time limit is invalid (missing or exceeds some limit)", {}},
      {"more nodes than another has", SpecBuilder().partition("gpu,debug").time(10).nodes(2),
       "Node count specification invalid", {}},
  });
  EXPECT_EQ(manager_->size(), 2u);
}

TEST_F(JobsTest, AdminMayChargeAnyAccount) {
  JobId id = submit(SpecBuilder().account("ops"), root());
  EXPECT_EQ(job(id).account(), "ops");
}

// QOS: the account's default_qos without -q; a QOS of the table its account may use, in any
// case; anything else refused with the reference's text (AccountingStorageEnforce=qos), no job
// left; root may use any QOS.
TEST_F(JobsTest, QosIsOneOfTheTableTheAccountMayUse) {
  for (const char* name : {"high", "vip"}) {
    config::QosConfig q;
    q.name = name;
    config_.qos.push_back(q);
  }
  config_.accounts[1].qos = {"normal", "high"};  // research
  config_.accounts[1].default_qos = "high";
  EXPECT_EQ(job(submit(SpecBuilder())).qos(), "high");
  EXPECT_EQ(job(submit(SpecBuilder().qos("NORMAL"))).qos(), "normal");
  EXPECT_EQ(job(submit(SpecBuilder().account("ops"), root())).qos(), "normal");  // every QOS
  expectRefusals(*manager_, {
      {"no such QOS", SpecBuilder().qos("bogus"), "Invalid qos specification", {}},
      {"not the account's", SpecBuilder().qos("vip"), "Invalid qos specification", {}},
  });
  EXPECT_EQ(manager_->size(), 3u);
  EXPECT_EQ(job(submit(SpecBuilder().qos("vip"), root())).qos(), "vip");
}

// QOS per-user limits end to end through the job manager: MaxJobsPU keeps the second job out
// of the queue with the reference's reason until the first ends; MaxSubmitJobsPU refuses the
// job that would pass it (an array's tasks each count), with the reference's note and text.
TEST_F(JobsTest, QosLimitsHoldBackAndRefuse) {
  config::QosConfig q;
  q.name = "short";
  q.max_jobs_per_user = 1;
  q.max_submit_jobs_per_user = 3;
  config_.qos.push_back(q);
  const JobId first = submit(SpecBuilder().qos("short"));
  const JobId second = submit(SpecBuilder().qos("short"));
  const JobId bobs = submit(SpecBuilder().qos("short"), bob());
  pass();
  EXPECT_EQ(job(first).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(bobs).state(), v1::JOB_RUNNING);  // bob's own limit
  EXPECT_EQ(job(second).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(second).reason(), "QOSMaxJobsPerUserLimit");
  expectRefusals(*manager_, {
      {"an array of two over MaxSubmitJobsPU", SpecBuilder().qos("short").array("0-1"),
       "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)",
       {"QOSMaxSubmitJobPerUserLimit"}},
  });
  submit(SpecBuilder().qos("short"));  // the third of alice's
  expectRefusals(*manager_, {
      {"a fourth", SpecBuilder().qos("short"),
       "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)",
       {"QOSMaxSubmitJobPerUserLimit"}},
  });
  finishBatch(first, 0);
  pass();
  EXPECT_EQ(job(second).state(), v1::JOB_RUNNING);
}

// The submit limits count the jobs not ended as the table changes (LiveJobs), not afresh
// over every job at each submission: an end frees a place, a finished job requeued takes one
// again, QOS= moves a pending job out, and a restarted controller counts what it recovered.
TEST_F(JobsTest, QosSubmitCountsFollowEndsRequeuesUpdatesAndRestarts) {
  config::QosConfig q;
  q.name = "short";
  q.max_submit_jobs_per_user = 2;
  config_.qos.push_back(q);
  auto refused = [this] { return !manager_->submit(alice(), SpecBuilder().qos("short")); };
  const JobId a = submit(SpecBuilder().qos("short"));
  const JobId b = submit(SpecBuilder().qos("short"));
  EXPECT_TRUE(refused());
  EXPECT_FALSE(!manager_->submit(bob(), SpecBuilder().qos("short")));  // bob's own count
  pass();
  finishBatch(a, 0);
  ASSERT_EQ(job(a).state(), v1::JOB_COMPLETED);
  const JobId c = submit(SpecBuilder().qos("short"));
  EXPECT_TRUE(refused());
  ASSERT_TRUE(manager_->control(alice(), act("requeue", std::to_string(a)))[0].ok());
  ASSERT_EQ(job(a).state(), v1::JOB_PENDING);  // a, b and c: one over the limit now
  ASSERT_TRUE(updateField(c, "QOS", "normal").ok());
  EXPECT_TRUE(refused());  // a and b
  ASSERT_TRUE(updateField(a, "QOS", "normal").ok());
  EXPECT_FALSE(refused());  // b and the one this submits
  EXPECT_TRUE(refused());
  ASSERT_TRUE(manager_->commit().ok());
  reopen();
  EXPECT_TRUE(refused());
  EXPECT_EQ(job(b).qos(), "short");
}

TEST_F(JobsTest, ArrayTakesOneIdAndFoldsPendingTasks) {
  JobId first = submit(SpecBuilder().name("arr").array("0-9%2").output("out-%A_%a-%j.txt"));
  EXPECT_EQ(manager_->size(), 10u);
  const v1::JobInfo t3 = task(first, 3);
  EXPECT_EQ(t3.job_id(), first);  // no id of its own while pending
  EXPECT_EQ(t3.array_job_id(), first);
  EXPECT_EQ(t3.array_task_id(), 3);
  EXPECT_EQ(t3.std_out(), "/home/alice/out-" + std::to_string(first) + "_3-" +
                              std::to_string(first) + ".txt");

  auto launches = pass();
  ASSERT_EQ(launches.size(), 2u);  // %2
  EXPECT_EQ(task(first, 2).reason(), "JobArrayTaskLimit");
  // A throttled task has its priority (the reference showed it, not 0), as its started ones.
  EXPECT_GT(task(first, 2).priority(), 0);
  EXPECT_EQ(task(first, 2).priority(), job(first + 1).priority());
  // Started tasks took the next ids, in task order.
  EXPECT_EQ(launches[0].job_id, first + 1);
  EXPECT_EQ(launches[1].job_id, first + 2);
  EXPECT_EQ(task(first, 0).job_id(), first + 1);
  EXPECT_EQ(job(first + 1).std_out(), "/home/alice/out-" + std::to_string(first) + "_0-" +
                                          std::to_string(first + 1) + ".txt");

  v1::GetJobsRequest q;
  q.add_job_ids(std::to_string(first));
  auto rows = manager_->query(q);
  ASSERT_EQ(rows.size(), 3u);  // two running tasks + the folded remainder
  const auto& folded = rows.back();
  EXPECT_EQ(folded.job_id(), first);
  EXPECT_EQ(folded.array_task_pending(), "2-9%2");
  q.set_array_tasks_expanded(true);
  EXPECT_EQ(manager_->query(q).size(), 10u);

  // A finished task frees a slot for the next.
  finishBatch(launches[0].job_id, 0);
  auto next = pass();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].job_id, first + 3);
  EXPECT_EQ(job(next[0].job_id).array_task_id(), 2);
  auto env = next[0].request.environment();
  EXPECT_EQ(env.at("SLURM_JOB_ID"), std::to_string(first + 3));
  EXPECT_EQ(env.at("SLURM_ARRAY_JOB_ID"), std::to_string(first));
  EXPECT_EQ(env.at("SLURM_ARRAY_TASK_ID"), "2");
  EXPECT_EQ(env.at("SLURM_ARRAY_TASK_COUNT"), "10");
}

TEST_F(JobsTest, TestOnlyReportsStartWithoutCreatingAJob) {
  JobId big = submit(SpecBuilder().nodes(4).ntasks(16).time(30));
  ASSERT_EQ(pass().size(), 1u);
  SubmitResult r = manager_->submit(alice(), SpecBuilder().nodes(4).testOnly());
  ASSERT_TRUE(r);
  EXPECT_EQ(r.ok->expected_start, job(big).end_time());
  EXPECT_EQ(manager_->size(), 1u);
  SubmitResult now = manager_->submit(alice(), SpecBuilder().partition("debug").testOnly());
  ASSERT_TRUE(now);
  EXPECT_EQ(manager_->size(), 1u);
}

// controller.accounting_store_flags: a batch job's script and environment go to accounting
// with its record, once for an array (under its first id); nothing without the flags.
TEST_F(JobsTest, SubmissionKeepsTheScriptWhereAsked) {
  submit(SpecBuilder());
  EXPECT_TRUE(manager_->takeAccounting().scripts.empty());
  config_.controller.store_job_script = true;
  config_.controller.store_job_env = true;
  v1::JobSpec spec = SpecBuilder().array("0-3");
  spec.set_batch(true);
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.clear_environment();
  (*spec.mutable_environment())["B"] = "2";
  (*spec.mutable_environment())["A"] = "1";
  const JobId array = submit(spec);
  const auto kept = manager_->takeAccounting().scripts;
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0], (acct::JobScript{array, std::string("#!/bin/sh\ntrue\n"), std::string("A=1\nB=2\n")}));
}

}  // namespace
}  // namespace drover::jobs::testing
