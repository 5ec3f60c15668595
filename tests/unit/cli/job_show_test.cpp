// `scontrol show job` records against Slurm's captured outputs (golden 086-092, 106, 108), byte
// for byte except LastSchedEval/Scheduler and AllocNode:Sid, which Drover does not track the
// same way (masked on both sides).
#include "cli/job_show.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "job_fixture.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::at;
using testing::goldenNow;
using testing::goldenStdout;
using testing::JobBuilder;
using testing::referenceJobs;

// Replaces the value of each `key=` token (up to the next space or newline) with "*".
std::string maskValue(std::string text, const std::string& key) {
  for (auto pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1)) {
    const auto start = pos + key.size();
    const auto end = text.find_first_of(" \n", start);
    text.replace(start, (end == std::string::npos ? text.size() : end) - start, "*");
  }
  return text;
}

std::string mask(const std::string& text) {
  return maskValue(maskValue(maskValue(text, "LastSchedEval="), "Scheduler="), "AllocNode:Sid=");
}

v1::JobInfo byId(std::uint64_t id) {
  for (const auto& j : referenceJobs())
    if (j.job_id() == id) return j;
  return {};
}

class JobShowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void expectGolden(const v1::JobInfo& job, const std::string& golden, bool oneliner = false,
                    bool details = false) {
    EXPECT_EQ(mask(formatJobRecord(job, goldenNow(golden), oneliner, details)), mask(goldenStdout(golden)))
        << golden;
  }
};

TEST_F(JobShowTest, RunningJobGolden086) { expectGolden(byId(28), "086-scontrol-show-job-running.txt"); }

TEST_F(JobShowTest, PendingJobWithPlannedNodesGolden087) {
  expectGolden(byId(33), "087-scontrol-show-job-pending.txt");
}

TEST_F(JobShowTest, DependentJobGolden088) { expectGolden(byId(30), "088-scontrol-show-job-dependency.txt"); }

TEST_F(JobShowTest, ArrayTaskGolden089) { expectGolden(byId(36), "089-scontrol-show-job-array-task.txt"); }

TEST_F(JobShowTest, DetailsListEachNodesShareGolden090) {
  auto job = byId(28);
  for (const char* node : {"node02", "node03", "node04"}) {
    auto* a = job.add_allocation();
    a->set_node(node);
    a->set_cpus(16);
    a->set_memory_mb(64000);
    for (unsigned i = 0; i < 8; ++i) a->add_gpu_indices(i);
  }
  expectGolden(job, "090-scontrol-show-job-d-running.txt", false, true);
}

TEST_F(JobShowTest, OneLinerGolden091) { expectGolden(byId(32), "091-scontrol-show-job-oneliner.txt", true); }

TEST_F(JobShowTest, CompletedJobWithDirectivesGolden092) {
  auto job = JobBuilder(11, "direct").state(v1::JOB_COMPLETED).running("node[01-02]", "node01")
                 .times(at(12, 28, 35), at(12, 28, 37), at(12, 28, 38)).priority(10412).limit(5)
                 .size(2, 8, 4).tres("", "billing=8,cpu=8,gres/gpu=4,mem=2048M,node=2").gpusPerNode(2)
                 .build();
  job.set_state(v1::JOB_COMPLETED);
  job.set_run_time_s(1);
  job.mutable_spec()->set_cpus_per_task(2);
  job.mutable_spec()->set_mem_per_cpu_mb(0);
  job.mutable_spec()->set_mem_per_node_mb(1024);
  job.set_command("/home/alice/golden-run/directives.sh");
  job.set_std_out("/home/alice/golden-run/out-11-direct-11-4294967294.txt");
  job.set_std_err("/home/alice/golden-run/err-11-direct-11-4294967294.txt");
  expectGolden(job, "092-scontrol-show-job-completed.txt");
}

TEST_F(JobShowTest, CancelledBeforeStartGolden106) {
  auto job = byId(33);
  job.set_state(v1::JOB_CANCELLED);
  job.set_start_time(at(12, 29, 5));
  job.set_end_time(at(12, 29, 5));
  expectGolden(job, "106-scontrol-show-job-cancelled.txt");
}

TEST_F(JobShowTest, TimedOutJobGolden108) {
  auto job = byId(4);
  job.set_state(v1::JOB_TIMEOUT);
  job.set_reason("TimeLimit");
  job.set_exit_signal(15);
  job.set_end_time(at(12, 30, 4));
  job.set_run_time_s(84);
  job.set_req_tres("billing=1,cpu=1,mem=4000M,node=1");
  job.set_alloc_tres("billing=1,cpu=1,mem=4000M,node=1");
  expectGolden(job, "108-scontrol-show-job-timeout.txt");
}

// What the controller sends for golden 087's job: -N 4 arrives as min_nodes 4 (no max), and a
// pending job carries its expected start but no end. scontrol derives "4-4" and start+limit.
TEST_F(JobShowTest, PendingJobShowsNodeRangeAndExpectedEnd) {
  auto job = JobBuilder(33, "big").pending("Resources")
                 .times(at(12, 28, 44), at(12, 38, 43), 0).limit(60)
                 .size(4, 4, 4).nodeRange(4, 0).build();
  const std::string out = formatJobRecord(job, at(12, 29, 5), false, false);
  EXPECT_NE(out.find("StartTime=2026-11-30T12:38:43 EndTime=2026-11-30T13:38:43 "), std::string::npos) << out;
  EXPECT_NE(out.find("NumNodes=4-4 "), std::string::npos) << out;
  // Without -N (no node count asked) it stays a plain count, as golden 088.
  job.mutable_spec()->set_min_nodes(0);
  job.set_num_nodes(1);
  EXPECT_NE(formatJobRecord(job, at(12, 29, 5), false, false).find("NumNodes=1 "), std::string::npos);
  // Not started and no estimate: Unknown.
  job.set_start_time(0);
  EXPECT_NE(formatJobRecord(job, at(12, 29, 5), false, false).find("StartTime=Unknown EndTime=Unknown"),
            std::string::npos);
}

TEST_F(JobShowTest, TasksPerGpuShowAsNtasksPerTresLast) {
  // The reference's `--ntasks-per-gpu=1 --gpus=2`: "TresPerJob=gres:gpu:2" then "NtasksPerTRES=1",
  // no TresBind for the binding it implies.
  auto job = JobBuilder(42, "wrap").pending("JobHeldUser").times(at(12, 28, 44), 0, 0).limit(60).build();
  job.mutable_spec()->mutable_gpus()->set_count(2);
  job.mutable_spec()->set_ntasks_per_gpu(1);
  const std::string out = formatJobRecord(job, at(12, 29, 5), false, false);
  EXPECT_NE(out.find("   TresPerJob=gres:gpu:2\n   NtasksPerTRES=1\n   \n"), std::string::npos) << out;
  EXPECT_EQ(out.find("TresBind="), std::string::npos) << out;
}

TEST_F(JobShowTest, APreemptableJobShowsWhenItMayBePreempted) {
  // As the reference with PreemptType=preempt/partition_prio, PreemptExemptTime=00:01:00
  // (2026-12-04): a started job whose mode is not OFF, running or ended, shows the line; its
  // eligible time is the start plus the exempt time, PreemptTime None until it is preempted.
  auto job = JobBuilder(40, "low").running("node1", "node1").times(at(12, 0, 0), at(12, 0, 5), 0)
                 .limit(5).size(1, 1, 1).build();
  EXPECT_EQ(formatJobRecord(job, at(12, 1, 0), false, false).find("PreemptEligibleTime="), std::string::npos)
      << "a job the controller did not mark (mode OFF) has no line";
  job.set_preempt_eligible_time(at(12, 1, 5));
  std::string out = formatJobRecord(job, at(12, 1, 0), false, false);
  EXPECT_NE(out.find("\n   PreemptEligibleTime=2026-11-30T12:01:05 PreemptTime=None\n   SuspendTime="),
            std::string::npos) << out;
  job.set_preempt_time(at(12, 2, 0));
  out = formatJobRecord(job, at(12, 2, 1), false, false);
  EXPECT_NE(out.find("PreemptEligibleTime=2026-11-30T12:01:05 PreemptTime=2026-11-30T12:02:00\n"),
            std::string::npos) << out;
}

TEST_F(JobShowTest, HeldAndFailedJobsShowAsTheReferenceDid) {
  // tests/e2e/golden/edges/02-04, 07: a held job shows priority 0 (its own comes back on
  // release), pending or running, with the held reason; a failed batch job NonZeroExitCode.
  auto held = JobBuilder(26, "heldjob").pending("JobHeldUser").priority(10232).build();
  held.set_held_user(true);
  EXPECT_NE(formatJobRecord(held, at(12, 29, 5), false, false).find("   Priority=0 Nice=0 "), std::string::npos);
  auto running = JobBuilder(25, "runner").running("node01", "node01").priority(10232).build();
  running.set_reason("None");
  running.set_held_admin(true);
  const std::string r = formatJobRecord(running, at(12, 29, 5), false, false);
  EXPECT_NE(r.find("Priority=0 "), std::string::npos) << r;
  EXPECT_NE(r.find("JobState=RUNNING Reason=JobHeldAdmin "), std::string::npos) << r;
  auto failed = JobBuilder(27, "failer").state(v1::JOB_FAILED).priority(10232).build();
  failed.set_exit_code(2);
  const std::string f = formatJobRecord(failed, at(12, 29, 5), false, false);
  EXPECT_NE(f.find("Priority=10232 "), std::string::npos) << f;
  EXPECT_NE(f.find("JobState=FAILED Reason=NonZeroExitCode "), std::string::npos) << f;
  // One a signal ended (the reference's `kill -9 $$`: ExitCode=0:9).
  auto killed = JobBuilder(28, "killed").state(v1::JOB_FAILED).build();
  killed.set_exit_signal(9);
  const std::string k = formatJobRecord(killed, at(12, 29, 5), false, false);
  EXPECT_NE(k.find("JobState=FAILED Reason=JobLaunchFailure "), std::string::npos) << k;
  EXPECT_NE(k.find("ExitCode=0:9"), std::string::npos) << k;
}

// As the reference printed them after `scontrol requeuehold` and for held jobs with --begin:
// the reason's description with '_' for spaces, and a pending job not eligible yet shows its
// --begin time as EligibleTime and AccrueTime, held or not (Unknown without one).
TEST_F(JobShowTest, RequeuedHeldJobShowsItsDescriptionAndBeginTime) {
  auto job = JobBuilder(2, "wrap").pending("JobHeldUser").times(at(14, 46, 39), 0, 0).build();
  job.set_held_user(true);
  job.set_restart_count(1);
  job.set_reason_description("job requeued in held state");
  job.mutable_spec()->set_begin_time(at(14, 48, 40));
  const std::string out = formatJobRecord(job, at(14, 47, 0), false, false);
  EXPECT_NE(out.find("JobState=PENDING Reason=job_requeued_in_held_state "), std::string::npos) << out;
  EXPECT_NE(out.find("SubmitTime=2026-11-30T14:46:39 EligibleTime=2026-11-30T14:48:40\n"),
            std::string::npos) << out;
  EXPECT_NE(out.find("AccrueTime=2026-11-30T14:48:40\n"), std::string::npos) << out;
  job.mutable_spec()->set_begin_time(0);
  job.clear_reason_description();
  const std::string plain = formatJobRecord(job, at(14, 47, 0), false, false);
  EXPECT_NE(plain.find("Reason=JobHeldUser "), std::string::npos) << plain;
  EXPECT_NE(plain.find("EligibleTime=Unknown\n"), std::string::npos) << plain;
  EXPECT_NE(plain.find("AccrueTime=Unknown\n"), std::string::npos) << plain;
}

}  // namespace
}  // namespace drover::cli
