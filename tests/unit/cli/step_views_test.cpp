// squeue -s and scontrol show step against Slurm's captured outputs (golden 121-129), byte for
// byte, from the two jobs the reference cluster ran then: alice's 7025 (-N 2, one srun step
// `sleeper` over both nodes) and bob's 7026 (debug, -n 3 --gpus=2, a step `gsleep` -n 2
// --gpus=1 -t 5). Slurm's TresPerStep= line (a step's --gpus request) is not printed by Drover
// and is taken out of the goldens.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "cli/squeue.h"
#include "cli/squeue_steps.h"
#include "cli/step_rows.h"
#include "cli/step_show.h"
#include "drover/accounting.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;

std::string goldenText(const std::string& file) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string goldenStderr(const std::string& file) {
  const std::string text = goldenText(file), open = "# [stderr]\n";
  const auto a = text.rfind(open);
  return a == std::string::npos ? "<unreadable>" : text.substr(a + open.size());
}

// The capture time in the golden's header ("date=2026-12-01T15:21:25Z").
std::int64_t capturedAt(const std::string& file) {
  const std::string text = goldenText(file);
  const auto p = text.find("date=");
  std::tm tm{};
  std::istringstream in(text.substr(p + 5, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  return static_cast<std::int64_t>(timegm(&tm));
}

std::int64_t at(int h, int m, int s) {
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 11;
  tm.tm_mday = 1;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  return static_cast<std::int64_t>(timegm(&tm));
}

v1::StepNode stepNode(const std::string& node, std::uint32_t cpus, std::vector<std::uint32_t> ranks,
                      std::vector<std::uint32_t> gpus = {}) {
  v1::StepNode n;
  n.set_node(node);
  n.set_cpus(cpus);
  for (auto r : ranks) n.add_ranks(r);
  for (auto g : gpus) n.add_gpu_indices(g);
  return n;
}

v1::JobInfo job(std::uint64_t id, const std::string& user, std::uint32_t uid, const std::string& partition,
                std::int64_t start) {
  v1::JobInfo j;
  j.set_job_id(id);
  j.set_array_task_id(-1);
  j.set_user(user);
  j.set_uid(uid);
  j.set_partition(partition);
  j.set_state(v1::JOB_RUNNING);
  j.set_batch(true);
  j.set_batch_host("node01");
  j.set_start_time(start);
  return j;
}

std::vector<v1::JobInfo> referenceStepJobs() {
  v1::JobInfo a = job(7025, "alice", 1001, "gpu", at(15, 21, 19));
  for (const char* node : {"node01", "node02"}) {
    auto* alloc = a.add_allocation();
    alloc->set_node(node);
    alloc->set_cpus(1);
    alloc->set_memory_mb(4000);
  }
  v1::JobStep* s = a.add_steps();
  s->set_step_id(0);
  s->set_name("sleeper");
  *s->add_nodes() = stepNode("node01", 1, {0});
  *s->add_nodes() = stepNode("node02", 1, {1});
  s->set_ntasks(2);
  s->set_layout("Cyclic");
  s->set_start_time(at(15, 21, 19));
  s->set_time_limit_s(29 * 60);  // the job's remaining time: not a limit of its own
  s->set_srun_host("vm");
  s->set_srun_pid(15073);

  v1::JobInfo b = job(7026, "bob", 1002, "debug", at(15, 21, 22));
  auto* alloc = b.add_allocation();
  alloc->set_node("node01");
  alloc->set_cpus(3);
  alloc->set_memory_mb(12000);
  alloc->add_gpu_indices(0);
  alloc->add_gpu_indices(1);
  s = b.add_steps();
  s->set_step_id(0);
  s->set_name("gsleep");
  *s->add_nodes() = stepNode("node01", 3, {0, 1}, {0});
  s->set_ntasks(2);
  s->set_layout("Block");
  s->set_start_time(at(15, 21, 22));
  s->set_time_limit_s(5 * 60);
  s->set_time_limit_min(5);
  s->set_srun_host("vm");
  s->set_srun_pid(15165);
  // The controller lists jobs by id.
  return {a, b};
}

std::string withoutLine(std::string text, const std::string& prefix) {
  for (auto pos = text.find(prefix); pos != std::string::npos; pos = text.find(prefix)) {
    const auto line_start = text.rfind('\n', pos);
    const auto line_end = text.find('\n', pos);
    text.erase(line_start, line_end - line_start);
  }
  return text;
}

struct Rendered {
  std::string out;
  std::vector<std::string> warnings;
};

Rendered squeueSteps(const std::vector<std::string>& args, std::int64_t now,
                     const std::vector<v1::JobInfo>& jobs = referenceStepJobs()) {
  Rendered r;
  auto cmd = parseSqueueArgs(args);
  EXPECT_TRUE(cmd.ok()) << cmd.error();
  if (!cmd.ok()) return r;
  EXPECT_TRUE(cmd->options.steps);
  std::vector<const v1::JobInfo*> rows;
  for (const auto& j : jobs) rows.push_back(&j);
  Status s = renderSqueueStepsTo(cmd->options, rows, now, &r.out, &r.warnings);
  EXPECT_TRUE(s.ok()) << s.error();
  return r;
}

class StepViewsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(StepViewsTest, DefaultStepViewMatchesGolden121) {
  // Partition, then step id: bob's debug job first; numbered steps before the batch step.
  const std::string g = "121-squeue-steps.txt";
  EXPECT_EQ(squeueSteps({"-s"}, capturedAt(g)).out, goldenStdout(g));
  EXPECT_EQ(squeueSteps({"--steps"}, capturedAt(g)).out, goldenStdout(g));
}

TEST_F(StepViewsTest, StepFormatCodesMatchGolden122) {
  const std::string g = "122-squeue-steps-o.txt";
  auto r = squeueSteps({"-s", "-o", "%i|%j|%P|%u|%U|%M|%l|%N|%S|%A|%b"}, capturedAt(g));
  EXPECT_EQ(r.out, goldenStdout(g));
  EXPECT_TRUE(r.warnings.empty());
}

TEST_F(StepViewsTest, StepLongFieldsMatchGolden123) {
  const std::string g = "123-squeue-steps-O.txt";
  auto r = squeueSteps({"-s", "-O",
                        "StepID,StepName,StepState,Nodes,NumTasks,NumCPUs,Partition,StartTime,TimeLimit,"
                        "TimeUsed,UserName,UserID,JobID,ArrayJobID,ArrayTaskID"},
                       capturedAt(g));
  EXPECT_EQ(r.out, goldenStdout(g));
  EXPECT_TRUE(r.warnings.empty());
}

TEST_F(StepViewsTest, FiltersSortAndInvalidCodesMatchGolden124) {
  const std::string g = "124-squeue-steps-filters.txt";
  // Golden: `squeue -s -h -u alice -w node02 -S -i; squeue -s7026.0 -o '%.10i %20S %t'`.
  auto first = squeueSteps({"-s", "-h", "-u", "alice", "-w", "node02", "-S", "-i"}, capturedAt(g));
  auto second = squeueSteps({"-s7026.0", "-o", "%.10i %20S %t"}, capturedAt(g));
  EXPECT_EQ(first.out + second.out, goldenStdout(g));
  ASSERT_EQ(second.warnings.size(), 1u);
  EXPECT_EQ("squeue: error: " + second.warnings[0] + "\n", goldenStderr(g));
}

TEST_F(StepViewsTest, StepListWithoutStepIsRefusedAsGolden125) {
  auto cmd = parseSqueueArgs({"-s123"});
  ASSERT_FALSE(cmd.ok());
  EXPECT_EQ("squeue: error: " + cmd.error() + "\n", goldenStderr("125-squeue-steps-bad-id.txt"));
  EXPECT_FALSE(parseSqueueArgs({"--steps=12.x"}).ok());
  EXPECT_FALSE(parseSqueueArgs({"-sfoo.0"}).ok());
}

TEST_F(StepViewsTest, StepListSelectsStepsAndTheBatchStep) {
  const std::int64_t now = at(15, 22, 0);
  auto r = squeueSteps({"-h", "-o", "%i", "--steps=7025.batch,7026.0,7026.9"}, now);
  EXPECT_EQ(r.out, "7026.0\n7025.batch\n");
  // -j and the step list both select (no job 7025 step listed: nothing).
  EXPECT_EQ(squeueSteps({"-h", "-o", "%i", "-j", "7025", "-s7026.0"}, now).out, "");
  EXPECT_EQ(squeueSteps({"-h", "-o", "%i", "-s", "-p", "gpu"}, now).out, "7025.0\n7025.batch\n");
  // Job filters that do not apply to steps are ignored, as Slurm 22.05 does.
  EXPECT_EQ(squeueSteps({"-h", "-o", "%i", "-s", "-t", "PD", "-n", "nosuch", "-A", "x"}, now).out,
            "7026.0\n7026.batch\n7025.0\n7025.batch\n");
}

TEST_F(StepViewsTest, InvalidLongFieldsAreLeftOutAndNamed) {
  auto r = squeueSteps({"-s", "-h", "-O", "StepID:8,Name,StepName:.4,NumTasks:3"}, at(15, 22, 0));
  EXPECT_EQ(r.out, "7026.0  gsle2  \n7026.batbatc1  \n7025.0  slee2  \n7025.batbatc1  \n");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "Invalid job step format specification: Name");
}

TEST_F(StepViewsTest, StepsOfJobsWithoutResourcesAreNotListed) {
  auto jobs = referenceStepJobs();
  jobs[0].set_state(v1::JOB_PENDING);
  jobs[1].set_batch(false);  // an srun/salloc allocation: no batch step
  EXPECT_EQ(squeueSteps({"-s", "-h", "-o", "%i"}, at(15, 22, 0), jobs).out, "7026.0\n");
}

TEST_F(StepViewsTest, StepOfAnArrayTaskShowsTheTaskId) {
  auto jobs = referenceStepJobs();
  jobs[0].set_array_job_id(7000);
  jobs[0].set_array_task_id(3);
  EXPECT_EQ(squeueSteps({"-s7000_3.0", "-h", "-o", "%i %A"}, at(15, 22, 0), jobs).out, "7000_3.0 2\n");
}

std::string showSteps(const std::vector<v1::JobInfo>& jobs, bool oneliner, std::uint64_t only = 0) {
  std::string out;
  for (const auto& j : jobs) {
    if (only != 0 && j.job_id() != only) continue;
    for (const StepRow& row : jobStepRows(j)) out += formatStepRecord(row, oneliner);
  }
  return out;
}

TEST_F(StepViewsTest, ShowStepMatchesGolden126) {
  const std::string g = "126-scontrol-show-step.txt";
  EXPECT_EQ(showSteps(referenceStepJobs(), false), withoutLine(goldenStdout(g), "   TresPerStep="));
}

TEST_F(StepViewsTest, ShowStepOnelinerMatchesGolden127) {
  const std::string g = "127-scontrol-show-step-oneliner.txt";
  EXPECT_EQ(showSteps(referenceStepJobs(), true, 7025), goldenStdout(g));
}

TEST_F(StepViewsTest, ShowOneStepMatchesGolden128) {
  const std::string g = "128-scontrol-show-step-one.txt";
  const auto jobs = referenceStepJobs();
  auto id = parseStepId("7026.0", true);
  ASSERT_TRUE(id.ok());
  std::string out;
  for (const StepRow& row : jobStepRows(jobs[1]))
    if (stepMatches(row, *id)) out += formatStepRecord(row, false);
  EXPECT_EQ(out, withoutLine(goldenStdout(g), "   TresPerStep="));
}

TEST_F(StepViewsTest, StepIdsParseAsSlurmNamesThem) {
  auto batch = parseStepId("28.batch", false);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->job, "28");
  EXPECT_EQ(batch->step, acct::kBatchStep);
  auto task = parseStepId("29_3.1", false);
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->job, "29_3");
  EXPECT_EQ(task->step, 1);
  auto job_alone = parseStepId("28", true);
  ASSERT_TRUE(job_alone.ok());
  EXPECT_FALSE(job_alone->step.has_value());
  EXPECT_EQ(parseStepId("28", false).error(), "Invalid job_step id: 28.??");
  EXPECT_FALSE(parseStepId("28.", true).ok());
  EXPECT_FALSE(parseStepId("x", true).ok());
  EXPECT_FALSE(parseStepId("28.-1", true).ok());
}

TEST_F(StepViewsTest, SuspendedJobsStepsShowTheirState) {
  auto jobs = referenceStepJobs();
  jobs[1].set_state(v1::JOB_SUSPENDED);
  auto rows = jobStepRows(jobs[1]);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_STREQ(stepStateName(rows[1]), "SUSPENDED");
  EXPECT_NE(formatStepRecord(rows[1], true).find(" State=SUSPENDED "), std::string::npos);
}

}  // namespace
}  // namespace drover::cli
